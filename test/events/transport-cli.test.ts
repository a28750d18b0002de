// `lckit events check` with service envelopes and AMQP 1.0 URLs through main(): the flags, their exit codes
// and messages; and how an AMQP 1.0 message becomes headers and a body (no broker needed here: the broker
// tests are test/broker/amqp1-events.test.ts).
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { Readable } from "node:stream";
import rhea, { type Message } from "rhea";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { amqp1Body, amqp1Headers } from "../../src/events/transport/sources/amqp1.ts";
import { captureIo } from "../cli/capture-io.ts";

const fixtures = join(import.meta.dirname, "..", "..", "fixtures", "envelopes");

async function run(args: string[], stdin?: string) {
  const io = captureIo();
  const withStdin = stdin === undefined ? io : Object.assign(io, { stdin: Readable.from([stdin]) });
  const code = await main(["events", ...args], withStdin);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe("lckit events check --envelope", () => {
  it("detects each line's envelope by default and checks the messages in it", async () => {
    const { code, out } = await run([
      "check",
      join(fixtures, "sqs-sns-wrapped.jsonl"),
      "--config",
      join(fixtures, "streaming-config.json"),
    ]);
    expect(code).toBe(0);
    expect(out).toMatch(/6 message\(s\), 6 valid, 0 invalid/);
  });

  it("reads stdin the same way", async () => {
    const lines = readFileSync(join(fixtures, "pubsub-push.jsonl"), "utf8");
    const { code, out } = await run(["check", "-", "--envelope", "pubsub"], lines);
    expect(code).toBe(0);
    expect(out).toMatch(/stdin \(pubsub envelopes\): 6 message\(s\), 6 valid/);
  });

  it("reports every line of another form when one form is chosen, and exits 1", async () => {
    const { code, out } = await run(["check", join(fixtures, "kcat.jsonl"), "--envelope", "sns"]);
    expect(code).toBe(1);
    expect(out).toMatch(/line 1: EVENT-DELIVERY-01 at \/Type: sns envelope: \/Type must be "Notification"/);
    expect(out).toMatch(/6 message\(s\), 0 valid, 6 invalid/);
  });

  it("--envelope none reads the service's JSON as the kit's NDJSON (and finds no event in it)", async () => {
    const { code } = await run(["check", join(fixtures, "kcat.jsonl"), "--envelope", "none"]);
    expect(code).toBe(1);
  });

  it("refuses an unknown envelope with exit 2, naming the choices", async () => {
    const { code, err } = await run(["check", join(fixtures, "kcat.jsonl"), "--envelope", "kinesis"]);
    expect(code).toBe(2);
    expect(err).toMatch(/--envelope expects .*sns.*sqs.*pubsub.*kafka/);
  });
});

describe("lckit events check amqp1://", () => {
  it("names the fix when nothing listens (exit 3)", async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, "127.0.0.1", () => {
        const address = server.address();
        server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
      });
    });
    const { code, err } = await run(["check", `amqp1://127.0.0.1:${port}/orders`]);
    expect(code).toBe(3);
    expect(err).toMatch(/nothing accepts connections at 127\.0\.0\.1:\d+.*AMQP 1\.0 port/);
  });

  it("wants an address (exit 2)", async () => {
    const { code, err } = await run(["check", "amqp1://127.0.0.1:1"]);
    expect(code).toBe(2);
    expect(err).toMatch(/no AMQP 1\.0 address.*--address/);
  });

  it("refuses a --ca file that does not exist and an unknown mode (exit 2)", async () => {
    expect((await run(["check", "amqp1s://h/q", "--ca", "/nonexistent/ca.pem"])).code).toBe(2);
    const mode = await run(["check", "amqp1://h/q", "--amqp1-mode", "steal"]);
    expect(mode.code).toBe(2);
    expect(mode.err).toMatch(/--amqp1-mode expects browse or own/);
  });

  it.each([
    [["check", "amqp1://h/q", "--exchange", "x"], /--exchange belong to amqp:\/\/ \(AMQP 0-9-1\) sources/],
    [["check", "amqp://h", "--address", "q"], /--address belong to amqp1:\/\/.*--exchange and --routing-key/],
    [["check", join(fixtures, "kcat.jsonl"), "--amqp1-mode", "own"], /--amqp1-mode belong to amqp1:\/\//],
  ])("refuses a flag of the other protocol: %j", async (argv, message) => {
    const { code, err } = await run(argv);
    expect(code).toBe(2);
    expect(err).toMatch(message);
  });

  it("never prints the password of the URL", async () => {
    const { err } = await run(["check", "amqp1://user:s3cret-pw@127.0.0.1:1/orders"]);
    expect(err).not.toContain("s3cret-pw");
  });
});

describe("an AMQP 1.0 message as headers and body", () => {
  it("takes application properties over message annotations, and x-opt- annotations of the document's headers", () => {
    const headers = amqp1Headers({
      body: "",
      message_annotations: {
        "x-opt-tenantId": "from-annotation",
        "x-opt-eventType": "ENTITY_CREATED",
        "x-opt-enqueued-time": new Date(5),
      },
      application_properties: { tenantId: "acme", objectVersion: 7, blob: Buffer.from("héllo") },
    });
    expect(headers).toEqual({
      "x-opt-tenantId": "from-annotation",
      "x-opt-eventType": "ENTITY_CREATED",
      "x-opt-enqueued-time": 5,
      tenantId: "acme",
      eventType: "ENTITY_CREATED",
      objectVersion: 7,
      blob: "héllo",
    });
  });

  it.each([
    [
      "a data section",
      { body: rhea.message.data_section(Buffer.from('{"type":"X"}')) },
      { text: '{"type":"X"}' },
    ],
    ["a string value", { body: '{"type":"X"}' }, { text: '{"type":"X"}' }],
    ["a map value", { body: { type: "X" } }, { got: "an AMQP value of type object" }],
    ["a sequence", { body: rhea.message.sequence_section([1, 2]) }, { got: "an AMQP sequence section" }],
    ["no body", {}, { got: "no body" }],
  ])("reads %s", (_name, message, want) => {
    expect(amqp1Body(message as Message)).toEqual(want);
  });
});
