// The private RabbitMQ node the kit starts for a delivery through a broker when no --broker is given: one
// node for a check, or for every run of a sweep, stopped however the runs end.
import {
  RabbitNodeError,
  rabbitNodeMissing,
  startPrivateRabbitNode,
} from "../../events/broker/rabbitmq-node.ts";
import {
  BROKER_DELIVERIES,
  CONSUMER_CHECK_DEFAULTS,
  ConsumerCheckError,
  type ConsumerCheckOptions,
} from "./request.ts";

/** Runs `use` on a private RabbitMQ node when the delivery goes through a broker and none was named (one
 *  node for every run of a sweep); the node is stopped by its PIDs and its folder removed however `use`
 *  ends: a verdict, an error, the kit stopped (options.signal), a command past its time limit. */
export async function withKitBroker<T>(
  options: ConsumerCheckOptions,
  use: (options: ConsumerCheckOptions) => Promise<T>,
): Promise<T> {
  const delivery = options.delivery ?? CONSUMER_CHECK_DEFAULTS.delivery;
  if (!BROKER_DELIVERIES.has(delivery) || options.brokerUrl !== undefined || options.kitBroker)
    return use(options);
  const fix = "or give --broker URL of a running broker";
  const missing = rabbitNodeMissing(options.rabbitmqServer);
  if (missing)
    throw new ConsumerCheckError(
      `the ${delivery} delivery without --broker runs on a RabbitMQ node the kit starts, and ${missing}: install it (sudo apt-get install rabbitmq-server), ${fix}`,
    );
  const progress = options.progress ?? (() => {});
  const began = Date.now();
  progress(
    `starting a RabbitMQ node of the kit's own for the ${delivery} delivery (Debian's rabbitmq-server, loopback only; no --broker given) ...\n`,
  );
  let node: Awaited<ReturnType<typeof startPrivateRabbitNode>>;
  try {
    node = await startPrivateRabbitNode({
      ...(options.rabbitmqServer ? { serverScript: options.rabbitmqServer } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      progress: (line) => progress(`RabbitMQ: ${line}\n`),
    });
  } catch (error) {
    if (error instanceof RabbitNodeError)
      throw new ConsumerCheckError(
        options.signal?.aborted
          ? "stopped while the kit's RabbitMQ node was starting: the node is stopped again and nothing ran"
          : `could not start RabbitMQ: ${error.message}; ${fix}`,
      );
    throw error;
  }
  const pids = Object.values(node.pids).filter((pid) => pid !== null);
  progress(
    `RabbitMQ ready at amqp://127.0.0.1:${node.port} in ${((Date.now() - began) / 1000).toFixed(1)} s (node ${node.nodename}, pids ${pids.join(" ")}, folder ${node.base})\n`,
  );
  try {
    return await use({ ...options, kitBroker: { url: node.url } });
  } finally {
    await node.stop();
    progress(`RabbitMQ node stopped (pids ${pids.join(" ")}), its folder removed\n`);
  }
}
