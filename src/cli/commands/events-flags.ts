// The declaration of `lckit events check`: its flags, what it does and its exit codes (--help is written
// from it). A flag table; the command is events.ts.
import { reportFilesInWords } from "../../report-folder/write.ts";
import { EVENTS_FILE } from "../../result/evidence.ts";
import { option, toggle } from "../argv.ts";
import { duration, existingPath, integer, oneOf, text } from "../flags.ts";
import { failOnFlag, passInconclusiveFlag } from "../judging-flags.ts";

const broker = "Broker options (amqp:// sources)";
const broker1 = "AMQP 1.0 options (amqp1:// and amqp1s:// sources)";

/** The broker's time limits: a bare number has always meant seconds there. */
const brokerTime = duration({ example: "30s", minMs: 0, bareSeconds: true });

export const checkSpec = {
  name: "events check",
  summary: "check event messages (an NDJSON file, stdin, an AMQP broker) against the event contract",
  positionals: "<file.ndjson | - | amqp://... | amqp1s://...>",
  about: `Reads event messages and checks each against the event contract, then the stream rules (objectVersion
reuse, GDPR removal, ENTITY_CHANGED companions of reference relationships with their ovChanged). An
NDJSON line is either a bare payload ({"type": ...}) or an envelope {"headers": {...}, "payload": {...}},
or a message as a messaging service writes it (SNS, SQS, Pub/Sub, kcat; see --envelope); "-" reads stdin.
Malformed lines are reported and skipped.`,
  flags: {
    config: option(
      "FILE",
      existingPath({ example: "streaming.json", what: "a streaming configuration file (JSON or YAML)" }),
      "streaming configuration (JSON or YAML: JMSEventsFilteringFields, RelationEventsFilteringFields, " +
        "payloadType, analyzeOvChanges, largeObjectsSupport, and the kit's referenceRelationTypes and " +
        "companionWindow); without it the configuration-dependent rules are not checked",
      { example: "streaming.json" },
    ),
    format: option(
      "F",
      oneOf(["text", "json"]),
      "text: one line per problem and a summary; json: the result object",
      {
        default: "text",
      },
    ),
    "max-problems": option("N", integer({ min: 1, example: "100" }), "problems listed; all are counted", {
      default: 1000,
    }),
    "max-tracked": option(
      "N",
      integer({ min: 1, example: "50000" }),
      "(uri, objectVersion) pairs the stream rules remember (about 90 bytes each), and entities the " +
        "companion and reference rules hold at most; past it the objects seen longest ago are forgotten, " +
        "so memory stays flat, and a notice says what was no longer compared",
      { defaultText: "200000, about 18 MB" },
    ),
    "companion-window": option(
      "N",
      integer({ min: 1, example: "1000" }),
      "messages before or after a relationship event of a reference relation type its ENTITY_CHANGED " +
        "companion may be (overrides companionWindow.messages of --config)",
      { defaultText: "1000" },
    ),
    "companion-window-time": option(
      "T",
      duration({ example: "60s", minMs: 0 }),
      "event time (updatedTime, delta timestamp) before or after within which the companion also counts; " +
        "0s: messages only (overrides companionWindow.seconds)",
      { defaultText: "60s" },
    ),
    "max-depth": option(
      "N",
      // The checker's own recursion (canonical JSON) stays far from the stack's limit below this ceiling.
      integer({ min: 1, max: 4096, example: "512" }),
      "nesting of objects and arrays inspected per message; a deeper message is reported for its line and " +
        "the run goes on",
      { defaultText: "512" },
    ),
    "max-line-bytes": option(
      "N",
      // A string of more than about 512 M characters cannot be made at all; half of that is the ceiling.
      integer({ min: 1, max: 256 * 1024 * 1024, example: "134217728" }),
      "file and stdin: longest line read, in bytes; a longer one is measured, not held, and reported for " +
        "its line, and the run goes on",
      { defaultText: "67108864 (64 MiB)" },
    ),
    envelope: option(
      "auto|none|sns|sqs|pubsub|kafka",
      oneOf(["auto", "none", "sns", "sqs", "pubsub", "kafka"]),
      "file and stdin: the service envelope of each line. sns: an SNS notification (payload in Message, " +
        "headers from MessageAttributes); sqs: ReceiveMessage output or one SQS message (raw or SNS-wrapped " +
        "Body); pubsub: a Pub/Sub message, push or pull form (base64 data, attributes); kafka: a record as " +
        "kcat -J prints it. auto detects each line's form; none reads every line as the kit's NDJSON. " +
        "Pretty-printed documents (a line that is only { or [ starts one) are joined. A " +
        "broken envelope is reported for its line (field, what was expected) and the run goes on",
      { default: "auto" as const },
    ),
    "fail-on": failOnFlag,
    "pass-inconclusive": passInconclusiveFlag(
      "a rule that could not decide (a relationship event whose ENTITY_CHANGED companion may come after the " +
        "last message)",
    ),
    "allow-empty": toggle("exit 0 when no message was read (default: exit 2, nothing was checked)"),
    "report-dir": option(
      "DIR",
      text,
      `also write the run report (${reportFilesInWords()}, and the messages read in ${EVENTS_FILE}) under DIR/<run id>/`,
      {
        example: "reports",
      },
    ),
    "sign-key": option(
      "FILE",
      text,
      "with --report-dir: sign the report folder's manifest.json with this Ed25519 private key (PEM), as " +
        "lckit run --sign-key does; check with: lckit report verify <report folder> --public-key PUB.pem",
      { example: "lckit-sign.pem" },
    ),
    exchange: option("X", text, "exchange to bind the checker's own private queue to", {
      defaultText: "lckit.events",
      example: "lckit.events",
      section: broker,
    }),
    "routing-key": option("K", text, "binding key", {
      defaultText: "#",
      example: "events.acme",
      section: broker,
    }),
    "max-messages": option("N", integer({ min: 1, example: "1000" }), "stop after N messages", {
      section: broker,
    }),
    "idle-timeout": option("T", brokerTime, "stop after T without a message (e.g. 500ms, 30s, 2m)", {
      example: "30s",
      section: broker,
    }),
    duration: option("T", brokerTime, "stop after T in all", { example: "2m", section: broker }),
    address: option(
      "ADDRESS",
      text,
      "queue, TOPIC/Subscriptions/SUB or address to read (Service Bus, Artemis, Qpid: the queue's name; " +
        "RabbitMQ 3: /exchange/EXCHANGE/KEY or /amq/queue/NAME)",
      { defaultText: "the URL's path", example: "orders/Subscriptions/lckit", section: broker1 },
    ),
    "amqp1-mode": option(
      "browse|own",
      oneOf(["browse", "own"]),
      "browse: ask the broker for copies (distribution-mode copy), so the queue keeps its messages; refused, " +
        "and nothing read, when the broker cannot browse. own: the address is the kit's own (a subscription made " +
        "for the checker, a RabbitMQ /exchange/X/# private queue) and its messages are consumed",
      { defaultText: "browse", example: "own", section: broker1 },
    ),
    ca: option(
      "FILE",
      existingPath({ example: "broker-ca.pem", what: "a PEM file of the broker's CA" }),
      "amqp1s://: the CA that signed the broker's certificate (PEM), trusted beside the system's",
      { example: "broker-ca.pem", section: broker1 },
    ),
  },
  notes: `Exit codes: 0 every message conforms (warnings allowed), 1 a message does not conform or a rule
could not decide (see --pass-inconclusive), or an outcome named by --fail-on, 2 usage error
or no message read (an empty file or stdin, a broker that delivered nothing: nothing was checked; see
--allow-empty), 3 the run broke. Control characters from the input are printed as escapes (\\x1b).`,
};
