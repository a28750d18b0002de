// Undecided is not a pass: a stream cut just after a relationship event of a reference relation type leaves
// its ENTITY_CHANGED companion open. `lckit events check` reports that rule as inconclusive in every report
// (report.json, junit.xml, ctrf.json, summary.md, report.html, the terminal, --format json) and exits 1,
// unless --pass-inconclusive; the same stream with its companion passes.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { captureIo } from "../cli/capture-io.ts";
import { reportValidator } from "../report/report-schema.ts";

const tmp = mkdtempSync(join(tmpdir(), "lckit-events-undecided-"));
const t0 = Date.parse("2026-01-05T09:00:00Z");

const config = join(tmp, "streaming.json");
writeFileSync(
  config,
  JSON.stringify({
    JMSEventsFilteringFields: ["uri", "type", "updatedTime", "attributes"],
    RelationEventsFilteringFields: ["uri", "type", "updatedTime", "startObject", "endObject"],
    referenceRelationTypes: ["HasAddress"],
    companionWindow: { messages: 3, seconds: 0 },
  }),
);

const filler = (n: number) =>
  JSON.stringify({
    type: "INTERACTION_CHANGED",
    object: { uri: `interactions/f${n}`, type: "configuration/interactionTypes/Email" },
  });
const relation = JSON.stringify({
  type: "RELATIONSHIP_CREATED",
  object: {
    uri: "relations/r1",
    type: "configuration/relationTypes/HasAddress",
    updatedTime: t0,
    startObject: { objectURI: "entities/a" },
    endObject: { objectURI: "entities/b" },
  },
});
const companion = JSON.stringify({
  type: "ENTITY_CHANGED",
  ovChanged: true,
  object: { uri: "entities/a", type: "configuration/entityTypes/HCP", updatedTime: t0 },
});

function stream(name: string, lines: string[]): string {
  const file = join(tmp, name);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}
/** Cut one message after the relationship event: its companion may still come. */
const cut = stream("cut.ndjson", [filler(1), filler(2), relation, filler(3)]);
const complete = stream("complete.ndjson", [filler(1), filler(2), relation, companion, filler(3)]);

async function run(args: string[]) {
  const io = captureIo();
  const code = await main(["events", "check", "--config", config, ...args], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

function reportOf(dir: string): { folder: string; read: (file: string) => string } {
  const [runId] = readdirSync(dir);
  const folder = join(dir, runId ?? "");
  return { folder, read: (file) => readFileSync(join(folder, file), "utf8") };
}

describe("lckit events check: a companion the end of the stream cut off", () => {
  it("is inconclusive in every report and exits 1", async () => {
    const dir = join(tmp, "cut-reports");
    const { code, out } = await run([cut, "--report-dir", dir]);
    expect(code).toBe(1);
    expect(out).toContain("4 message(s), 4 valid, 0 invalid");
    expect(out).toMatch(
      /UNDECIDED EVENT-TYPES-04: could not decide: 1 relationship event of a reference relation type \(line 3\) had no ENTITY_CHANGED companion yet/,
    );
    expect(out).toContain("To decide: check a stream that goes on at least 3 messages past line 3");
    expect(out).toContain(
      "result: INCOMPLETE: every message read conforms, but EVENT-TYPES-04 could not decide",
    );
    expect(out).not.toContain("every message conforms\n");

    const { read } = reportOf(dir);
    const report = JSON.parse(read("report.json"));
    const validate = reportValidator();
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    expect(report.verdict).toBe("INCOMPLETE");
    const check04 = report.checks.find((c: { id: string }) => c.id === "events/event-types-04");
    expect(check04.status).toBe("inconclusive");
    expect(check04.undecided.readings).toEqual([
      "the ENTITY_CHANGED companion comes after the last message read",
      "the platform sends no ENTITY_CHANGED companion for the reference attribute",
    ]);
    expect(check04.undecided.decideBy).toMatch(/past line 3/);
    // Nothing else is undecided: EVENT-STREAM-02 saw no companion with ovChanged false.
    expect(
      report.checks
        .filter((c: { status: string }) => c.status === "inconclusive")
        .map((c: { id: string }) => c.id),
    ).toEqual(["events/event-types-04"]);
    expect(report.coverage.requirements.find((r: { id: string }) => r.id === "EVENT-TYPES-04").status).toBe(
      "undecided",
    );

    expect(read("junit.xml")).toMatch(
      /<testcase name="events\/event-types-04"[^>]*>\s*<failure message="could not decide: [^"]*" type="inconclusive">/,
    );
    const ctrf = JSON.parse(read("ctrf.json"));
    const ctrfTest = ctrf.results.tests.find((t: { name: string }) => t.name === "events/event-types-04");
    expect(ctrfTest.status).toBe("failed");
    expect(ctrfTest.message).toMatch(/could not decide/);
    const md = read("summary.md");
    expect(md).toContain("### Checks that could not decide (1)");
    expect(md).toContain("past line 3");
    expect(read("report.html")).toContain(
      "could not decide: 1 relationship event of a reference relation type",
    );
  });

  it("--format json carries the undecided rule with its readings", async () => {
    const { code, out } = await run([cut, "--format", "json"]);
    expect(code).toBe(1);
    const result = JSON.parse(out) as { inconclusive: { rule: string; count: number; decideBy: string }[] };
    expect(result.inconclusive.map((r) => [r.rule, r.count])).toEqual([["EVENT-TYPES-04", 1]]);
  });

  it("--pass-inconclusive exits 0 and still says it could not decide", async () => {
    const dir = join(tmp, "pass-reports");
    const { code, out } = await run([cut, "--pass-inconclusive", "--report-dir", dir]);
    expect(code).toBe(0);
    expect(out).toContain("UNDECIDED EVENT-TYPES-04");
    expect(out).toContain("(--pass-inconclusive: does not fail the job)");
    const report = JSON.parse(reportOf(dir).read("report.json"));
    expect(report.verdict).toBe("INCOMPLETE");
  });

  it("the stream with its companion passes and exits 0", async () => {
    const dir = join(tmp, "complete-reports");
    const { code, out } = await run([complete, "--report-dir", dir]);
    expect(code).toBe(0);
    expect(out).toContain("result: every message conforms");
    expect(out).not.toContain("UNDECIDED");
    const report = JSON.parse(reportOf(dir).read("report.json"));
    const check04 = report.checks.find((c: { id: string }) => c.id === "events/event-types-04");
    expect(check04.status).toBe("passed");
    expect(report.checks.some((c: { status: string }) => c.status === "inconclusive")).toBe(false);
  });

  it("a companion with ovChanged false before the cut leaves EVENT-STREAM-02 undecided, not EVENT-TYPES-04", async () => {
    const falseCompanion = companion.replace('"ovChanged":true', '"ovChanged":false');
    const file = stream("cut-false.ndjson", [filler(1), relation, falseCompanion]);
    const { code, out } = await run([file, "--format", "json"]);
    expect(code).toBe(1);
    const result = JSON.parse(out) as {
      inconclusive: { rule: string; readings: string[] }[];
      invalid: number;
    };
    expect(result.invalid).toBe(0);
    expect(result.inconclusive.map((r) => r.rule)).toEqual(["EVENT-STREAM-02"]);
    expect(result.inconclusive[0]?.readings[1]).toBe(
      "the platform sends the companion with ovChanged false only",
    );
  });
});
