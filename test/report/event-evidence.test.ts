// events.ndjson in the evidence bundle of `lckit events check --report-dir`: every message read, one a
// line, redacted as the reports are; each failed event check cites the lines of its messages (and its log
// says so); the manifest covers the file and `lckit report verify` checks it: a changed byte is named, a
// citation of a line that is not there is refused. Checking events.ndjson again finds the same problems.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { EVENTS_FILE, ndjsonLineOf } from "../../src/evidence/event-evidence.ts";
import { writeManifest } from "../../src/report-folder/manifest.ts";
import type { RunResult } from "../../src/result/model.ts";
import { captureIo } from "../cli/capture-io.ts";

const dir = mkdtempSync(join(tmpdir(), "lckit-event-evidence-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = "s3cr3t-inside-an-event-9731";
const fixture = readFileSync(new URL("../../fixtures/events/invalid.ndjson", import.meta.url), "utf8");
// Blank lines (not messages) make the input's line numbers differ from events.ndjson's; the last line
// carries a secret field, which the bundle must not keep.
const input = `\n${fixture.split("\n").join("\n\n")}\n${JSON.stringify({
  type: "ENTITY_CREATED",
  object: { uri: "entities/S1", type: "configuration/entityTypes/HCP", client_secret: SECRET },
})}\n`;
const inputLines = input.split("\n");

async function lckit(argv: string[]) {
  const io = captureIo();
  io.cwd = dir;
  const code = await main(argv, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

let folder: string;
let report: RunResult;
let events: string[];
let code: number;
beforeAll(async () => {
  writeFileSync(join(dir, "input.ndjson"), input);
  const reportDir = join(dir, "reports");
  ({ code } = await lckit(["events", "check", join(dir, "input.ndjson"), "--report-dir", reportDir]));
  folder = join(reportDir, readdirSync(reportDir)[0] as string);
  report = JSON.parse(readFileSync(join(folder, "report.json"), "utf8")) as RunResult;
  events = readFileSync(join(folder, EVENTS_FILE), "utf8").split("\n").slice(0, -1);
}, 60_000);

describe("events.ndjson beside report.json", () => {
  it("holds every message read, one a line, with no secret in it", () => {
    expect(code).toBe(1);
    const messages = inputLines.filter((l) => l.trim() !== "").length;
    expect(events).toHaveLength(messages);
    const text = events.join("\n");
    expect(text).not.toContain(SECRET);
    expect(events.at(-1)).toMatch(/"client_secret":\s*"\[redacted\]"/);
    expect(readFileSync(join(folder, "report.json"), "utf8")).not.toContain(SECRET);
  });

  it("each failed check cites the lines of the messages that broke its rule, and its log names them", () => {
    const failed = report.checks.filter((c) => c.status === "failed");
    expect(failed.length).toBeGreaterThan(3);
    for (const c of failed) {
      expect(c.eventLines?.length, c.id).toBeGreaterThan(0);
      for (const line of c.eventLines ?? []) {
        // The log line naming this line of events.ndjson starts with the input's position: same message.
        const entry = c.log?.find((l) => l.includes(`(${EVENTS_FILE} line ${line})`));
        expect(entry, `${c.id} line ${line}`).toBeDefined();
        const position = Number(/^line (\d+) /.exec(entry ?? "")?.[1]);
        expect(events[line - 1]).toBe(inputLines[position - 1]);
      }
    }
    for (const c of report.checks.filter((x) => x.status !== "failed")) expect(c.eventLines).toBeUndefined();
  });

  it("checked again, events.ndjson shows the same problems", async () => {
    const first = await lckit(["events", "check", join(dir, "input.ndjson"), "--format", "json"]);
    const again = await lckit(["events", "check", join(folder, EVENTS_FILE), "--format", "json"]);
    expect(again.code).toBe(1);
    const rules = (out: string) => (JSON.parse(out) as { byRule: Record<string, number> }).byRule;
    expect(rules(again.out)).toEqual(rules(first.out));
  });

  it("is in the manifest, and the folder verifies", async () => {
    const manifest = JSON.parse(readFileSync(join(folder, "manifest.json"), "utf8")) as {
      files: { path: string }[];
    };
    expect(manifest.files.map((f) => f.path)).toContain(EVENTS_FILE);
    const { code: verified, out } = await lckit(["report", "verify", folder]);
    expect(verified, out).toBe(0);
    expect(out).toMatch(/ok {3}events\.ndjson: \d+ messages; all \d+ lines the checks cite exist/);
  });

  it("one changed byte in events.ndjson fails verification, naming the file", async () => {
    const spoilt = join(dir, "spoilt-byte");
    cpSync(folder, spoilt, { recursive: true });
    const text = readFileSync(join(spoilt, EVENTS_FILE), "utf8");
    const at = text.indexOf("acme");
    writeFileSync(join(spoilt, EVENTS_FILE), `${text.slice(0, at)}b${text.slice(at + 1)}`);
    const { code: verified, out } = await lckit(["report", "verify", spoilt]);
    expect(verified).toBe(1);
    expect(out).toMatch(/FAIL events\.ndjson: sha256 differs from manifest\.json/);
  });

  it("a citation of a line that is not there is refused, even under a freshly written manifest", async () => {
    const spoilt = join(dir, "spoilt-citation");
    cpSync(folder, spoilt, { recursive: true });
    const changed = structuredClone(report);
    const c = changed.checks.find((x) => x.eventLines !== undefined) as RunResult["checks"][number];
    c.eventLines = [events.length + 1];
    writeFileSync(join(spoilt, "report.json"), JSON.stringify(changed));
    writeManifest(spoilt, report.runId);
    const { code: verified, out } = await lckit(["report", "verify", spoilt]);
    expect(verified).toBe(1);
    expect(out).toContain(
      `events.ndjson: check ${c.id} cites line ${events.length + 1}, which does not exist (${events.length} lines)`,
    );
  });

  it("a report citing lines of a missing events.ndjson is refused", async () => {
    const spoilt = join(dir, "spoilt-missing");
    cpSync(folder, spoilt, { recursive: true });
    rmSync(join(spoilt, EVENTS_FILE));
    writeManifest(spoilt, report.runId);
    const { code: verified, out } = await lckit(["report", "verify", spoilt]);
    expect(verified).toBe(1);
    expect(out).toMatch(/FAIL events\.ndjson: missing, but \d+ checks of report\.json cite its lines/);
  });
});

describe("ndjsonLineOf: one message as one line the checker reads back alike", () => {
  it.each([
    ["an NDJSON line, as it came", { position: "line 3", body: '{"type":"X"}' }, '{"type":"X"}'],
    [
      "a broker message, as the envelope",
      { position: "amqp delivery 1", headers: { tenantId: "acme" }, body: '{"type":"X"}' },
      '{"headers":{"tenantId":"acme"},"payload":{"type":"X"}}',
    ],
    [
      "a broker body that is no JSON, as a JSON string (one line)",
      { position: "amqp delivery 2", headers: {}, body: "not\njson" },
      '"not\\njson"',
    ],
    [
      "an empty broker body, never a blank line",
      { position: "amqp delivery 3", headers: {}, body: "" },
      '""',
    ],
    [
      "an NDJSON line holding a carriage return (JSON whitespace), as it came",
      { position: "line 4", body: '{"headers":{"tenantId":"acme"},\r"payload":{"type":"X"}}' },
      '{"headers":{"tenantId":"acme"},\r"payload":{"type":"X"}}',
    ],
  ])("%s", (_, raw, want) => {
    expect(ndjsonLineOf(raw)).toBe(want);
  });
});
