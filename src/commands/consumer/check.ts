// lckit events consumer check as a library: generates a stream whose final state it knows (one producer
// choice), delivers it to the team's consumer (a file, stdin, HTTP push or a broker), runs the consumer's
// command with the LCKIT_* variables, stops its process group on a hang, reads the view it wrote and judges
// it by the consumer rules. Nothing is left running and its work folder is removed. The rabbitmq and amqp1
// deliveries run on the team's broker, or on a private RabbitMQ node the kit starts and stops around them.
// In three steps: the request (request.ts), one run (run.ts), its result (result.ts).
import { withKitBroker } from "./kit-broker.ts";
import { type ConsumerCheckOptions, consumerCheckRequest } from "./request.ts";
import { type ConsumerCheckRun, consumerCheckResult } from "./result.ts";
import { runConsumer } from "./run.ts";

export async function consumerCheck(options: ConsumerCheckOptions): Promise<ConsumerCheckRun> {
  const request = consumerCheckRequest(options);
  if (request === "kit-broker") return withKitBroker(options, consumerCheck);
  return consumerCheckResult(request, await runConsumer(request));
}
