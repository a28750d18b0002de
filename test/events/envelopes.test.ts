// Service envelopes (SNS, SQS, Pub/Sub, kcat) read from files and stdin: the same generated stream through
// each envelope gives the verdict of the NDJSON file it came from, problem for problem (header rules
// included); a broken envelope is reported for its line, with the field and what was expected, and the run
// goes on.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { generateStream } from "../../src/events/generate/index.ts";
import { checkStream, type EventCheckResult } from "../../src/events/judge/event-stream.ts";
import { parseStreamingConfig, type StreamingConfig } from "../../src/events/streaming-config.ts";
import { type EnvelopeChoice, unwrapLine } from "../../src/events/transport/envelopes/index.ts";
import { ndjsonLine } from "../../src/events/transport/sinks/file.ts";
import { openSource } from "../../src/events/transport/sources/index.ts";
import { envelopeForms, envelopeOfForm, type TransportMessage } from "./envelope-forms.ts";

const dir = mkdtempSync(join(tmpdir(), "lckit-envelopes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function verdict(result: EventCheckResult) {
  return {
    total: result.total,
    valid: result.valid,
    invalid: result.invalid,
    warned: result.warned,
    duplicates: result.duplicates,
    byRule: result.byRule,
    problems: result.problems,
  };
}

async function checkFile(name: string, lines: string[], envelope?: EnvelopeChoice, config?: StreamingConfig) {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return checkStream(await openSource(path, envelope === undefined ? {} : { envelope }), { config });
}

const streams = [
  ["snapshot, objectVersion listed", { seed: 3, payloadType: "snapshot" as const }],
  ["deltas", { seed: 8, payloadType: "deltas" as const }],
  // A seed whose invalid messages include a header problem (EVENT-HEADERS-01), which the envelopes carry.
  ["mixed", { seed: 22, payloadType: "mixed" as const }],
] as const;

describe("the same stream through each envelope", () => {
  for (const [label, options] of streams) {
    const { messages, manifest } = generateStream({
      ...options,
      count: 400,
      duplicates: 0.08,
      reorderWindow: 4,
      invalid: { count: 40 },
    });
    const ndjson = messages.map((m) => ndjsonLine(m));
    it.each(Object.keys(envelopeForms) as (keyof typeof envelopeForms)[])(
      `${label}: %s gives the NDJSON file's verdict, problem for problem`,
      async (form) => {
        const encode = envelopeForms[form] as (m: TransportMessage, i: number) => unknown;
        const wrapped = messages.map((m, i) => JSON.stringify(encode(m, i)));
        const plain = await checkFile(
          `${form}-${options.seed}.ndjson`,
          ndjson,
          "none",
          manifest.streamingConfig,
        );
        expect(plain.invalid).toBe(manifest.invalid);
        expect(Object.keys(plain.byRule)).toContain("EVENT-HEADERS-01");
        for (const choice of ["auto", envelopeOfForm[form]] as const) {
          const through = await checkFile(
            `${form}-${options.seed}.jsonl`,
            wrapped,
            choice,
            manifest.streamingConfig,
          );
          expect(verdict(through), `--envelope ${choice}`).toEqual(verdict(plain));
        }
      },
    );
  }

  it("reads an SQS batch and a Pub/Sub pull response as one message each, positioned in the line", async () => {
    const { messages, manifest } = generateStream({ seed: 5, count: 30, invalid: { count: 6 } });
    const batches: string[] = [];
    for (let i = 0; i < messages.length; i += 10) {
      const part = messages.slice(i, i + 10);
      batches.push(
        JSON.stringify(
          i % 20 === 0
            ? { Messages: part.map((m, k) => envelopeForms["sqs one message"](m, i + k)) }
            : {
                receivedMessages: part.map(
                  (m, k) => envelopeForms["pubsub pull"](m, i + k).receivedMessages[0],
                ),
              },
        ),
      );
    }
    const result = await checkFile("batches.jsonl", batches, "auto", manifest.streamingConfig);
    expect(result.total).toBe(30);
    expect(result.invalid).toBe(manifest.invalid);
    const positions = new Set(
      manifest.invalidMessages.map(
        (e) => `line ${Math.floor(e.index / 10) + 1} message ${(e.index % 10) + 1}`,
      ),
    );
    expect(
      new Set(result.problems.filter((p) => p.evidence.severity === "error").map((p) => p.evidence.position)),
    ).toEqual(positions);
  });

  it("reads envelopes from stdin as from a file", async () => {
    const { messages } = generateStream({ seed: 9, count: 20, invalid: { count: 3 } });
    const lines = messages.map((m, i) => JSON.stringify(envelopeForms.kafka(m, i)));
    const fromFile = await checkFile("stdin.jsonl", lines);
    const stdin = Readable.from([`${lines.join("\n")}\n`]);
    const fromStdin = await checkStream(await openSource("-", { stdin }));
    expect(verdict(fromStdin)).toEqual(verdict(fromFile));
  });
});

const good = { tenantId: "acme", eventType: "ENTITY_REMOVED", sourceObjectUri: "entities/E1" };
const body = JSON.stringify({
  type: "ENTITY_REMOVED",
  object: { uri: "entities/E1", type: "configuration/entityTypes/HCP" },
});
const sns = envelopeForms.sns({ headers: good, body }, 1);
const sqs = envelopeForms["sqs one message"]({ headers: good, body }, 1);
const push = envelopeForms["pubsub push"]({ headers: good, body }, 1);
const kcat = envelopeForms.kafka({ headers: good, body }, 1);

/** [name, { line, envelope, want: the field and words of the expected fault }] */
const broken: [string, { line: unknown; envelope: EnvelopeChoice; field: string; expected: RegExp }][] = [
  [
    "SNS without Message",
    {
      line: { ...sns, Message: undefined },
      envelope: "auto",
      field: "/Message",
      expected: /payload as a JSON string/,
    },
  ],
  [
    "SNS subscription confirmation",
    {
      line: { ...sns, Type: "SubscriptionConfirmation" },
      envelope: "auto",
      field: "/Type",
      expected: /confirm the subscription/,
    },
  ],
  [
    "SNS Number attribute that is no number",
    {
      line: { ...sns, MessageAttributes: { objectVersion: { Type: "Number", Value: "seven" } } },
      envelope: "sns",
      field: "/MessageAttributes/objectVersion/Value",
      expected: /a number/,
    },
  ],
  [
    "SNS attribute of an unknown Type",
    {
      line: { ...sns, MessageAttributes: { tenantId: { Type: "Text", Value: "acme" } } },
      envelope: "sns",
      field: "/MessageAttributes/tenantId/Type",
      expected: /String, String.Array, Number or Binary/,
    },
  ],
  [
    "SQS Body changed after receipt",
    {
      line: { ...sqs, Body: `${sqs.Body} ` },
      envelope: "auto",
      field: "/MD5OfBody",
      expected: /MD5 of Body/,
    },
  ],
  [
    "SQS attribute without StringValue",
    {
      line: { ...sqs, MessageAttributes: { tenantId: { DataType: "String" } } },
      envelope: "sqs",
      field: "/MessageAttributes/tenantId/StringValue",
      expected: /value as a string/,
    },
  ],
  [
    "SQS Body that is no string",
    {
      line: { Messages: [{ MessageId: "m", Body: { type: "X" } }] },
      envelope: "auto",
      field: "/Messages/0/Body",
      expected: /body as a string/,
    },
  ],
  [
    "SQS-wrapped SNS without Message",
    {
      line: { Messages: [{ MessageId: "m", Body: JSON.stringify({ ...sns, Message: 3 }) }] },
      envelope: "sqs",
      field: "/Messages/0/Body/Message",
      expected: /payload as a JSON string/,
    },
  ],
  [
    "Pub/Sub data that is not base64",
    {
      line: { ...push, message: { ...push.message, data: "not base64!" } },
      envelope: "auto",
      field: "/message/data",
      expected: /base64/,
    },
  ],
  [
    "Pub/Sub message with attributes only",
    {
      line: { ...push, message: { ...push.message, data: undefined } },
      envelope: "pubsub",
      field: "/message/data",
      expected: /attributes only/,
    },
  ],
  [
    "Pub/Sub attribute that is no text",
    {
      line: { ...push, message: { ...push.message, attributes: { objectVersion: 3 } } },
      envelope: "pubsub",
      field: "/message/attributes/objectVersion",
      expected: /text/,
    },
  ],
  [
    "kcat tombstone",
    { line: { ...kcat, payload: null }, envelope: "auto", field: "/payload", expected: /tombstone/ },
  ],
  [
    "kcat headers of odd length",
    {
      line: { ...kcat, headers: ["tenantId"] },
      envelope: "kafka",
      field: "/headers",
      expected: /alternating/,
    },
  ],
  [
    "a truncated document read as SNS",
    { line: '{"Type":"Notification","Message":', envelope: "sns", field: "", expected: /one JSON document/ },
  ],
  [
    "an NDJSON line read as Kafka",
    {
      line: { headers: good, payload: JSON.parse(body) },
      envelope: "kafka",
      field: "/headers",
      expected: /alternating/,
    },
  ],
];

describe("a broken envelope", () => {
  it.each(broken)(
    "%s is reported for its line, and the run goes on",
    async (_name, { line, envelope, field, expected }) => {
      const text = typeof line === "string" ? line : JSON.stringify(line);
      const fine = JSON.stringify(
        envelope === "auto" || envelope === "sns"
          ? sns
          : envelope === "sqs"
            ? sqs
            : envelope === "pubsub"
              ? push
              : kcat,
      );
      const result = await checkFile(`broken-${envelope}.jsonl`, [fine, text, fine], envelope);
      expect({ total: result.total, valid: result.valid, invalid: result.invalid }).toEqual({
        total: 3,
        valid: 2,
        invalid: 1,
      });
      expect(result.problems).toHaveLength(1);
      const [problem] = result.problems;
      expect(problem).toMatchObject({
        rule: "events/event-delivery-01",
        requirement: "EVENT-DELIVERY-01",
        evidence: { position: "line 2", instancePath: field, keyword: "envelope", severity: "error" },
      });
      expect(problem?.message).toMatch(expected);
    },
  );
});

describe("headers from attributes", () => {
  it.each([
    ["SNS typed attributes", envelopeForms.sns({ headers: { ...good, objectVersion: 4 }, body }, 0)],
    [
      "SQS typed attributes",
      envelopeForms["sqs one message"]({ headers: { ...good, objectVersion: 4 }, body }, 0),
    ],
    [
      "Pub/Sub text attributes",
      envelopeForms["pubsub push"]({ headers: { ...good, objectVersion: 4 }, body }, 0),
    ],
    ["kcat text headers", envelopeForms.kafka({ headers: { ...good, objectVersion: 4 }, body }, 0)],
  ])("%s become the document's headers, objectVersion an integer", (_name, line) => {
    const items = unwrapLine(JSON.stringify(line), "auto");
    expect(items).toEqual([{ headers: { ...good, objectVersion: 4 }, body }]);
  });

  it("reads a kcat value printed as JSON (a deserializer's output) as the payload", () => {
    const line = { ...kcat, payload: JSON.parse(body) };
    expect(unwrapLine(JSON.stringify(line), "auto")).toEqual([{ headers: good, body }]);
  });

  it("reads Pub/Sub data a tool printed decoded (JSON text) as the payload", () => {
    const line = { ...push, message: { ...push.message, data: body } };
    expect(unwrapLine(JSON.stringify(line), "auto")).toEqual([{ headers: good, body }]);
  });

  it("leaves objectVersion text that is no integer as text, so the header rule still reports it", () => {
    const items = unwrapLine(
      JSON.stringify(envelopeForms.kafka({ headers: { ...good, objectVersion: "4.5" }, body }, 0)),
      "kafka",
    );
    expect(items).toEqual([{ headers: { ...good, objectVersion: "4.5" }, body }]);
  });

  it("decodes SNS Binary and String.Array attributes and SQS Binary attributes", () => {
    const line = {
      ...sns,
      MessageAttributes: {
        blob: { Type: "Binary", Value: Buffer.from("héllo").toString("base64") },
        list: { Type: "String.Array", Value: '["a","b"]' },
      },
    };
    expect(unwrapLine(JSON.stringify(line), "auto")).toEqual([
      { headers: { blob: "héllo", list: ["a", "b"] }, body },
    ]);
    const sqsLine = {
      ...sqs,
      MessageAttributes: {
        blob: { DataType: "Binary.gzip", BinaryValue: Buffer.from("x").toString("base64") },
        n: { DataType: "Number.int", StringValue: "12" },
      },
    };
    expect(unwrapLine(JSON.stringify(sqsLine), "auto")).toEqual([{ headers: { blob: "x", n: 12 }, body }]);
  });

  it("an envelope without attributes gives empty headers: the header rules report what the service lost", async () => {
    const result = await checkFile("no-attributes.jsonl", [
      JSON.stringify({ ...sns, MessageAttributes: undefined }),
    ]);
    expect(result.byRule).toEqual({ "EVENT-HEADERS-01": 3 });
  });

  it("leaves the kit's own NDJSON lines and lines of other shapes to the checker", () => {
    expect(unwrapLine(JSON.stringify({ headers: good, payload: {} }), "auto")).toBeUndefined();
    expect(unwrapLine(JSON.stringify({ object: {}, type: "ENTITY_CREATED" }), "auto")).toBeUndefined();
    expect(unwrapLine("not json", "auto")).toBeUndefined();
    expect(unwrapLine(JSON.stringify(sns), "none")).toBeUndefined();
  });
});

describe("fixtures after each service's documented format", () => {
  const fixtures = join(import.meta.dirname, "..", "..", "fixtures", "envelopes");
  const config = parseStreamingConfig(
    readFileSync(join(fixtures, "streaming-config.json"), "utf8"),
    "streaming-config.json",
  );
  const files = readdirSync(fixtures).filter((name) => name.endsWith(".jsonl"));
  it.each(files)("%s conforms, with the headers the service carried", async (name) => {
    const open = () => openSource(join(fixtures, name));
    const result = await checkStream(await open(), { config });
    expect({ total: result.total, invalid: result.invalid, problems: result.problems }).toEqual({
      total: 6,
      invalid: 0,
      problems: [],
    });
    // The headers did arrive: a configuration without objectVersion makes every objectVersion header wrong.
    const without = {
      ...config,
      JMSEventsFilteringFields: (config.JMSEventsFilteringFields ?? []).filter((f) => f !== "objectVersion"),
    };
    const strict = await checkStream(await open(), { config: without });
    expect(strict.byRule).toEqual({ "EVENT-HEADERS-02": 6 });
  });
});

describe("pretty-printed documents (aws and gcloud print them so)", () => {
  it("joins a document's lines and reads it as one line would be read", async () => {
    const { messages, manifest } = generateStream({ seed: 12, count: 40, invalid: { count: 5 } });
    const compact: string[] = [];
    const pretty: string[] = [];
    for (let i = 0; i < messages.length; i += 4) {
      const part = messages.slice(i, i + 4);
      const output =
        i % 8 === 0
          ? { Messages: part.map((m, k) => envelopeForms["sqs one message"](m, i + k)) }
          : part.map((m, k) => envelopeForms["pubsub gcloud"](m, i + k)[0]);
      compact.push(JSON.stringify(output));
      pretty.push(JSON.stringify(output, null, 4));
    }
    const one = await checkFile("compact.jsonl", compact, "auto", manifest.streamingConfig);
    const many = await checkStream(
      await openSource("-", { stdin: Readable.from([`${pretty.join("\n")}\n`]) }),
      {
        config: manifest.streamingConfig,
      },
    );
    const byMessage = (result: EventCheckResult) =>
      result.problems.map((p) => ({
        ...p,
        where: p.where.replace(/^line \d+/, ""),
        evidence: { ...p.evidence, position: p.evidence.position.replace(/^line \d+/, "") },
      }));
    expect(many.total).toBe(40);
    expect(many.invalid).toBe(manifest.invalid);
    expect(byMessage(many)).toEqual(byMessage(one));
  });

  it("hands an unclosed document over as it is: reported as no JSON, the run goes on", async () => {
    const good = JSON.stringify(envelopeForms.kafka({ headers: { tenantId: "a" }, body: "{}" }, 0));
    const result = await checkFile("unclosed.jsonl", [good, "{", '  "Type": "Notification",']);
    expect(result.total).toBe(2);
    expect(result.problems.filter((p) => p.evidence.position === "line 2").map((p) => p.requirement)).toEqual(
      ["EVENT-DELIVERY-01"],
    );
  });
});
