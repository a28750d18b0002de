// Sources that can read a message again (files, lists of lines) let the stream rules keep a ref instead of
// fingerprinting every payload. The verdict must not depend on it: a file, a list and a source that cannot
// recall (a broker, stdin) give the same problems, counts and duplicates on the same lines, redeliveries
// serialized again with other key order and spacing included; and a file that changes under the checker
// is reported, never judged from the changed text.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { rule } from "../../src/events/document/requirements.ts";
import { generateStream, type PayloadType } from "../../src/events/generate/index.ts";
import { checkStream, type EventCheckResult } from "../../src/events/judge/event-stream.ts";
import type { StreamingConfig } from "../../src/events/streaming-config.ts";
import { ndjsonLine } from "../../src/events/transport/sinks/file.ts";
import { openFileSource } from "../../src/events/transport/sources/file.ts";
import { linesAsMessages, memorySource } from "../../src/events/transport/sources/index.ts";
import type { MessageSource, RawMessage } from "../../src/events/transport/transport.ts";

const seed = Number(process.env.FC_SEED ?? 20_261_123);
const folder = mkdtempSync(join(tmpdir(), "lckit-recall-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** What a verdict consists of; durations and the source's name aside. */
function verdict(result: EventCheckResult) {
  return {
    total: result.total,
    valid: result.valid,
    invalid: result.invalid,
    warned: result.warned,
    duplicates: result.duplicates,
    byRule: result.byRule,
    problems: result.problems.map(
      (p) => `${p.evidence.position} ${p.requirement} ${p.evidence.instancePath} ${p.message}`,
    ),
    notices: result.notices.map((n) => n.message),
  };
}

/** The same lines from a source that cannot read a message twice (as a broker or stdin). */
function withoutRecall(lines: string[]): MessageSource {
  const messages: RawMessage[] = [];
  lines.forEach((body, index) => {
    if (body.trim() !== "") messages.push({ position: `line ${index + 1}`, body });
  });
  const source = memorySource(messages);
  expect(source.recall).toBeUndefined();
  return source;
}

let files = 0;
async function fromFile(lines: string[]): Promise<MessageSource> {
  files += 1;
  const path = join(folder, `stream-${files}.ndjson`);
  writeFileSync(path, `${lines.join("\n")}\n`);
  const source = await openFileSource(path);
  expect(source.recall).toBeTypeOf("function");
  return source;
}

async function threeWays(lines: string[], config?: StreamingConfig) {
  const options = { ...(config ? { config } : {}), maxProblems: 10_000 };
  const listed = memorySource(linesAsMessages(lines));
  expect(listed.recall).toBeTypeOf("function");
  return {
    list: verdict(await checkStream(listed, options)),
    eager: verdict(await checkStream(withoutRecall(lines), options)),
    file: verdict(await checkStream(await fromFile(lines), options)),
  };
}

function envelope(payload: Record<string, unknown>, version: number, uri = "entities/E1"): string {
  const headers = { tenantId: "acme", eventType: payload.type, sourceObjectUri: uri, objectVersion: version };
  return JSON.stringify({ headers, payload });
}

const changed = (label: string) => ({
  type: "ENTITY_CHANGED",
  object: { uri: "entities/E1", type: "configuration/entityTypes/Person", label, attributes: {} },
});

describe("recalling messages instead of fingerprinting each", () => {
  it("a redelivery serialized again (other key order, spacing, headers) is a duplicate, however the source reads", async () => {
    const payload = changed("Ann");
    const again = JSON.stringify(
      {
        payload: {
          object: { attributes: {}, label: "Ann", type: payload.object.type, uri: "entities/E1" },
          type: payload.type,
        },
        headers: {
          objectVersion: 2,
          sourceObjectUri: "entities/E1",
          eventType: payload.type,
          tenantId: "acme",
        },
      },
      null,
      1,
    ).replaceAll("\n", " ");
    const lines = [envelope(payload, 2), envelope(changed("Bob"), 3), again, envelope(payload, 2)];
    const { list, eager, file } = await threeWays(lines);
    expect(list.duplicates).toBe(2);
    expect(list.byRule).toEqual({});
    expect(eager).toEqual(list);
    expect(file).toEqual(list);
  });

  it("another message under the same objectVersion is reported at the later one, however the source reads", async () => {
    const lines = [envelope(changed("Ann"), 2), envelope(changed("Ann"), 2), envelope(changed("Eve"), 2)];
    const { list, eager, file } = await threeWays(lines);
    expect(list.duplicates).toBe(1);
    expect(list.problems).toHaveLength(1);
    expect(list.problems[0]).toMatch(new RegExp(`^line 3 ${rule.versionReuse} `));
    expect(eager).toEqual(list);
    expect(file).toEqual(list);
  });

  it("recalls a line longer than one read block, with CRLF line ends", async () => {
    const long = changed("x".repeat(200_000));
    const lines = [
      `${envelope(long, 5)}\r`,
      "",
      `${envelope(long, 5)}\r`,
      envelope({ ...long, object: { ...long.object, label: "y" } }, 5),
    ];
    const { list, eager, file } = await threeWays(lines);
    expect(list.duplicates).toBe(1);
    expect(list.problems.map((p) => p.split(" ").slice(0, 3).join(" "))).toEqual([
      `line 4 ${rule.versionReuse}`,
    ]);
    expect(eager).toEqual(list);
    expect(file).toEqual(list);
  });

  it("gives the same verdict on generated streams with re-sends, reordering and objectVersion faults", async () => {
    const payloadTypes: PayloadType[] = ["snapshot", "deltas", "mixed"];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.constantFrom(...payloadTypes),
        fc.integer({ min: 0, max: 6 }),
        async (streamSeed, payloadType, faults) => {
          const { messages, manifest } = generateStream({
            seed: streamSeed,
            count: 240,
            payloadType,
            duplicates: 0.15,
            reorderWindow: 6,
            invalid: { count: faults, rules: [rule.versionReuse, rule.gdpr] },
          });
          const lines = messages.map(ndjsonLine);
          const { list, eager, file } = await threeWays(lines, manifest.streamingConfig);
          expect(list.duplicates).toBeGreaterThan(0);
          // Every injected fault is found (by the rules it breaks), not merely the same nothing three times.
          for (const [id, injected] of Object.entries(manifest.byRule))
            expect(list.byRule[id] ?? 0).toBeGreaterThanOrEqual(injected);
          expect(eager).toEqual(list);
          expect(file).toEqual(list);
        },
      ),
      { seed, numRuns: 12 },
    );
  });

  it("judges nesting on the message, not the text: a repeated key's deep earlier value is gone", async () => {
    const deep = `${"[".repeat(600)}1${"]".repeat(600)}`;
    const body = (version?: number) => {
      const headers = `{"tenantId":"acme","eventType":"ENTITY_CHANGED","sourceObjectUri":"entities/E1"${version === undefined ? "" : `,"objectVersion":${version}`}}`;
      return `{"headers":${headers},"payload":{"type":"ENTITY_CHANGED","object":{"uri":"entities/E1","label":${deep},"label":"x"}}}`;
    };
    const { list, eager, file } = await threeWays([body(2), body(), `{"a":${deep}}`]);
    expect(list.problems.map((p) => p.split(" ").slice(0, 3).join(" "))).toEqual([`line 3 ${rule.json}`]);
    expect(eager).toEqual(list);
    expect(file).toEqual(list);
  });

  it("does not read a line again from a file rewritten since it was read (rotated, copied over)", async () => {
    const path = join(folder, "rotated.ndjson");
    const lines = [envelope(changed("Ann"), 2), envelope(changed("Bob"), 3), envelope(changed("Ann"), 2)];
    writeFileSync(path, `${lines.join("\n")}\n`);
    const source = await openFileSource(path);
    const recall = source.recall?.bind(source);
    // Rewritten in place with lines of the same length: only the file's state tells.
    source.recall = (ref) => {
      writeFileSync(path, `${[envelope(changed("Eve"), 2), lines[1], lines[2]].join("\n")}\n`);
      return recall?.(ref);
    };
    const result = await checkStream(source);
    expect(result.problems).toEqual([]);
    expect(result.notices.map((n) => n.kind)).toEqual(["gap"]);
  });

  it("fingerprints a message at once when its ref is too large to keep beside its type", async () => {
    const line = envelope(changed("Ann"), 2);
    const huge = 2 ** 50;
    // Another type first, so that ENTITY_CHANGED's type index is not 0 (which rounding would keep).
    const other = envelope(
      { type: "ENTITY_CREATED", object: { uri: "entities/E0", label: "x" } },
      1,
      "entities/E0",
    );
    const source = memorySource([
      { position: "line 1", body: other, ref: 0 },
      { position: "line 2", body: line, ref: huge },
      { position: "line 3", body: line, ref: huge + 7 },
    ]);
    // A recall that would answer for any ref: the rules must not need it for the large ones.
    source.recall = (ref) => (ref === 0 ? other : line);
    const result = await checkStream(source);
    expect(result.problems).toEqual([]);
    expect(result.duplicates).toBe(1);
  });

  it("reports a file that changed under the checker instead of judging the changed text", async () => {
    const path = join(folder, "changing.ndjson");
    const first = envelope(changed("Ann"), 2);
    writeFileSync(path, `${first}\n${envelope(changed("Bob"), 3)}\n${envelope(changed("Ann"), 2)}\n`);
    const source = await openFileSource(path);
    const recall = source.recall?.bind(source);
    expect(recall).toBeTypeOf("function");
    // The file is cut to nothing after it was read and before the third line is compared with the first.
    source.recall = (ref) => {
      writeFileSync(path, "");
      return recall?.(ref);
    };
    const result = await checkStream(source);
    expect(result.problems).toEqual([]);
    expect(result.duplicates).toBe(0);
    expect(result.notices.map((n) => n.kind)).toEqual(["gap"]);
    expect(result.notices[0]?.message).toContain("1 message was not compared");
  });
});

describe("the NDJSON reader", () => {
  /** The messages of stdin fed in the given chunks. */
  async function stdinMessages(chunks: (string | Buffer)[]): Promise<RawMessage[]> {
    const source = await openFileSource("-", { stdin: Readable.from(chunks) });
    expect(source.recall).toBeUndefined();
    const messages: RawMessage[] = [];
    for await (const message of source.messages()) messages.push(message);
    await source.close();
    return messages;
  }

  it("joins lines split across chunks, a UTF-8 character split in two included, and numbers every line", async () => {
    const text = Buffer.from('\ufeff{"a":"é€😀"}\r\n\n  \n{"b":\n[1]}', "utf8");
    // One byte at a time: every line and every multi-byte character is split.
    const bytes = [...text].map((byte) => Buffer.from([byte]));
    const messages = await stdinMessages(bytes);
    expect(messages).toEqual([
      { position: "line 1", body: '{"a":"é€😀"}' },
      { position: "line 4", body: '{"b":' },
      { position: "line 5", body: "[1]}" },
    ]);
    expect(await stdinMessages([text])).toEqual(messages);
    expect(await stdinMessages([text.toString("utf8")])).toEqual(messages);
  });

  it("reads a file whose lines cross its read blocks, a UTF-8 character split by a block's end", async () => {
    const path = join(folder, "blocks.ndjson");
    // 1 MiB blocks: the odd prefix puts a block's end inside a two-byte character of the first line.
    const lines = [`{"a":"x${"é".repeat(700_000)}"}`, '{"b":1}', `{"c":"${"€".repeat(500_000)}"}`];
    writeFileSync(path, `${lines.join("\n")}\n`);
    const source = await openFileSource(path);
    const read: RawMessage[] = [];
    for await (const message of source.messages()) read.push(message);
    expect(read.map((m) => m.body)).toEqual(lines);
    for (const message of read) expect(source.recall?.(message.ref ?? -1)).toBe(message.body);
    await source.close();
  });

  it("gives each line of a file its byte offset, which reads it again", async () => {
    const path = join(folder, "offsets.ndjson");
    const lines = ['{"a":"é"}', "", '{"b":2}', '{"c":"😀"}'];
    writeFileSync(path, `\ufeff${lines.join("\r\n")}`);
    const source = await openFileSource(path);
    const read: RawMessage[] = [];
    for await (const message of source.messages()) read.push(message);
    expect(read.map((m) => [m.position, m.body])).toEqual([
      ["line 1", '{"a":"é"}'],
      ["line 3", '{"b":2}'],
      ["line 4", '{"c":"😀"}'],
    ]);
    const third = 3 + Buffer.byteLength(lines[0] ?? "") + 2 + 2;
    expect(read.map((m) => m.ref)).toEqual([3, third, third + Buffer.byteLength(lines[2] ?? "") + 2]);
    for (const message of read) expect(source.recall?.(message.ref ?? -1)).toBe(message.body);
    await source.close();
  });
});
