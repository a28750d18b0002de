// A line longer than the reader holds (--max-line-bytes, default 64 MiB) is measured, not held: it is
// reported for its own line and the check goes on. Before, a 600 MB line made the run break with
// "Cannot create a string longer than 0x1fffffe8 characters" and every other result was lost.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { rule } from "../../src/events/document/requirements.ts";
import { checkStream } from "../../src/events/judge/event-stream.ts";
import { openFileSource } from "../../src/events/transport/sources/file.ts";
import type { RawMessage } from "../../src/events/transport/transport.ts";
import { captureIo } from "../cli/capture-io.ts";

const folder = mkdtempSync(join(tmpdir(), "lckit-line-limit-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const good = (uri: string) => JSON.stringify({ type: "ENTITY_CREATED", object: { uri } });
/** A valid message of exactly `bytes` bytes (the label fills it up). */
function sized(bytes: number): string {
  const empty = JSON.stringify({ type: "ENTITY_CREATED", object: { uri: "entities/L", label: "" } });
  return JSON.stringify({
    type: "ENTITY_CREATED",
    object: { uri: "entities/L", label: "x".repeat(bytes - empty.length) },
  });
}

async function read(chunks: (string | Buffer)[], maxLineBytes: number): Promise<RawMessage[]> {
  const source = await openFileSource("-", { stdin: Readable.from(chunks), maxLineBytes });
  const out: RawMessage[] = [];
  for await (const message of source.messages()) out.push(message);
  await source.close();
  return out;
}

describe("the longest line read", () => {
  it("holds a line of exactly the limit and measures one byte more, in one chunk or many", async () => {
    const limit = 200;
    const text = `${good("entities/1")}\n${sized(limit)}\n${sized(limit + 1)}\n${good("entities/2")}\n${sized(limit + 50)}`;
    const bytes = Buffer.from(text);
    const expected = [
      { position: "line 1", body: good("entities/1") },
      { position: "line 2", body: sized(limit) },
      { position: "line 3", body: "", tooLarge: { bytes: limit + 1, limit } },
      { position: "line 4", body: good("entities/2") },
      { position: "line 5", body: "", tooLarge: { bytes: limit + 50, limit } },
    ];
    expect(await read([bytes], limit)).toEqual(expected);
    // Seven bytes at a time: each long line ends in a later chunk than it starts.
    const pieces: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += 7) pieces.push(bytes.subarray(at, at + 7));
    expect(await read(pieces, limit)).toEqual(expected);
  });

  it("reports a longer line for its position and checks the others", async () => {
    const path = join(folder, "long.ndjson");
    writeFileSync(path, `${good("entities/1")}\n${sized(5000)}\n${good("entities/2")}\n`);
    const result = await checkStream(await openFileSource(path, { maxLineBytes: 4096 }));
    expect([result.total, result.valid, result.invalid]).toEqual([3, 2, 1]);
    expect(result.problems.map((p) => [p.evidence.position, p.requirement, p.evidence.keyword])).toEqual([
      ["line 2", rule.json, "maxLength"],
    ]);
    expect(result.problems[0]?.message).toContain("message is 5000 bytes, more than the 4096 bytes");
    expect(result.problems[0]?.message).toContain("--max-line-bytes");
    // The default limit reads it.
    const whole = await checkStream(await openFileSource(path));
    expect([whole.total, whole.valid, whole.invalid]).toEqual([3, 3, 0]);
  });

  it("is set by lckit events check --max-line-bytes, which refuses a value it cannot honour", async () => {
    const path = join(folder, "cli.ndjson");
    writeFileSync(path, `${good("entities/1")}\n${sized(3000)}\n`);
    const checked = captureIo();
    expect(await main(["events", "check", path, "--max-line-bytes", "2048"], checked)).toBe(1);
    expect(checked.stdout()).toContain("line 2: EVENT-DELIVERY-01");
    expect(checked.stdout()).toContain("2 message(s), 1 valid, 1 invalid");
    // With --report-dir the evidence keeps a line saying what was not kept, and the report verifies.
    const reports = join(folder, "reports");
    const reported = captureIo();
    expect(
      await main(["events", "check", path, "--max-line-bytes", "2048", "--report-dir", reports], reported),
    ).toBe(1);
    const runDir = join(reports, readdirSync(reports)[0] ?? "");
    const evidence = readFileSync(join(runDir, "events.ndjson"), "utf8").split("\n");
    expect(evidence[1]).toBe(JSON.stringify("message of 3000 bytes, not kept: longer than 2048"));
    const verified = captureIo();
    expect(await main(["report", "verify", runDir], verified)).toBe(0);
    for (const bad of ["0", "268435457", "lots"]) {
      const refused = captureIo();
      expect(await main(["events", "check", path, "--max-line-bytes", bad], refused)).toBe(2);
      expect(refused.stderr()).toContain("--max-line-bytes expects an integer from 1 to 268435456");
    }
  });
});
