// The fixtures: every valid file conforms (under its sibling .config.json when present); every line of
// invalid.ndjson named in invalid.expected.json fails with exactly its rule, and the other lines conform.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eventSchemas } from "../../src/events/event-schemas.ts";
import { checkMessage } from "../../src/events/judge/event-message.ts";
import { checkStream } from "../../src/events/judge/event-stream.ts";
import { EVENT_RULES } from "../../src/events/rules/index.ts";
import { parseStreamingConfig, type StreamingConfig } from "../../src/events/streaming-config.ts";
import { openFileSource } from "../../src/events/transport/sources/file.ts";

const dir = join(import.meta.dirname, "..", "..", "fixtures", "events");

/** The event rules invalid.ndjson has no line for, each with where it is proven instead; every other
 *  declared event rule must have a line there (a new rule gets one, or a reason here). */
const provenElsewhere: Record<string, string> = {
  "EVENT-DELIVERY-02": "a tolerance, never a finding: its report in test/events/cli.test.ts",
  "EVENT-TYPES-03": "valid/group.ndjson: GROUP_* messages conform with a warning each (below)",
  "EVENT-TYPES-04": "a stream rule over several messages: test/events/reference-companions.test.ts",
  "EVENT-STREAM-02": "test/events/reference-companions.test.ts and reference-changes.test.ts",
  "EVENT-FILTER-06": "per-kind fields on each kind of object: test/events/filtering.test.ts",
  "EVENT-FILTER-07": "per-kind fields without configuration: test/events/filtering.test.ts",
};
const validDir = join(dir, "valid");
const validFiles = readdirSync(validDir).filter((name) => name.endsWith(".ndjson"));

/** A plain id: an error; {rule, config}: an error under that configuration; {rule, severity}: a warning. */
type Expected = Record<
  string,
  string | { rule: string; config: StreamingConfig } | { rule: string; severity: "warning" }
>;
const expected = JSON.parse(readFileSync(join(dir, "invalid.expected.json"), "utf8")) as Expected;
const invalidLines = readFileSync(join(dir, "invalid.ndjson"), "utf8").split("\n");

function configFor(name: string): StreamingConfig | undefined {
  const path = join(validDir, name.replace(/\.ndjson$/, ".config.json"));
  return existsSync(path) ? parseStreamingConfig(readFileSync(path, "utf8"), path) : undefined;
}

describe("valid fixtures", () => {
  it.each(validFiles)("%s conforms", async (name) => {
    const result = await checkStream(await openFileSource(join(validDir, name)), { config: configFor(name) });
    expect(result.problems.filter((p) => p.evidence.severity === "error")).toEqual([]);
    expect(result.total).toBeGreaterThan(0);
    expect(result.invalid).toBe(0);
  });

  it("cover every event type and payload kind", async () => {
    const seen = new Set<string>();
    for (const name of validFiles) {
      for (const line of readFileSync(join(validDir, name), "utf8").split("\n")) {
        if (line.trim() === "") continue;
        const parsed = JSON.parse(line) as Record<string, unknown>;
        const payload = ("payload" in parsed ? parsed.payload : parsed) as Record<string, unknown>;
        const kind =
          "object" in payload
            ? "snapshot"
            : "deltas" in payload
              ? "deltas"
              : "uri" in payload
                ? "large-object"
                : "name";
        seen.add(`${String(payload.type)} ${kind}`);
      }
    }
    const missing: string[] = [];
    for (const info of eventSchemas().types.values()) {
      const kinds =
        info.objectKind === "change-request" ? ["name", "snapshot"] : ["snapshot", "deltas", "large-object"];
      for (const kind of kinds) if (!seen.has(`${info.type} ${kind}`)) missing.push(`${info.type} ${kind}`);
    }
    expect(missing).toEqual([]);
  });

  it("GROUP_* messages conform with a warning each", async () => {
    const result = await checkStream(await openFileSource(join(validDir, "group.ndjson")));
    expect(result.warnings).toBe(result.total);
    expect(Object.keys(result.byRule)).toEqual(["EVENT-TYPES-03"]);
  });

  it("the example streaming configuration parses and fits the filtered fixture", async () => {
    const config = parseStreamingConfig(readFileSync(join(dir, "streaming-config.example.json"), "utf8"));
    const result = await checkStream(await openFileSource(join(validDir, "filtered.ndjson")), { config });
    expect(result.invalid).toBe(0);
  });
});

describe("invalid fixtures", () => {
  const rejected = Object.keys(expected).length;

  it("hold at least 40 rejected messages covering every event rule not proven elsewhere", () => {
    expect(rejected).toBeGreaterThanOrEqual(40);
    const rules = new Set(
      Object.values(expected).map((entry) => (typeof entry === "string" ? entry : entry.rule)),
    );
    // Every declared event rule (src/events/rules/), by the requirement its findings carry.
    const declared = EVENT_RULES.map((r) => r.requirements[0] as string);
    expect(Object.keys(provenElsewhere).filter((id) => !declared.includes(id))).toEqual([]);
    const enforced = declared.filter((id) => !(id in provenElsewhere));
    expect(enforced.filter((id) => !rules.has(id))).toEqual([]);
    // The kit's SHOULD-level preferences (the document leaves these open) are warnings, never errors.
    const warned = Object.values(expected).flatMap((entry) =>
      typeof entry !== "string" && "severity" in entry ? [entry.rule] : [],
    );
    const should = new Set(EVENT_RULES.filter((r) => r.level === "SHOULD").map((r) => r.requirements[0]));
    expect([...new Set(warned)].filter((id) => !should.has(id))).toEqual([]);
    expect([...should].filter((id) => rules.has(id as string) && !warned.includes(id as string))).toEqual([]);
  });

  it("as one stream without configuration: each named line fails with exactly its rule, the rest conform", async () => {
    const result = await checkStream(await openFileSource(join(dir, "invalid.ndjson")), {
      maxProblems: 10_000,
    });
    const byLine = new Map<string, Set<string>>();
    for (const problem of result.problems) {
      const line = problem.evidence.position.replace(/^line /, "");
      byLine.set(
        line,
        (byLine.get(line) ?? new Set()).add(`${problem.requirement}/${problem.evidence.severity}`),
      );
    }
    const want = new Map<string, string[]>();
    for (const [line, entry] of Object.entries(expected)) {
      if (typeof entry === "string") want.set(line, [`${entry}/error`]);
      else if ("severity" in entry) want.set(line, [`${entry.rule}/warning`]);
    }
    expect(Object.fromEntries([...byLine].map(([line, rules]) => [line, [...rules]]))).toEqual(
      Object.fromEntries(want),
    );
  });

  const configured = Object.entries(expected).flatMap(([line, entry]) =>
    typeof entry === "string" || !("config" in entry) ? [] : [[line, entry.rule, entry.config] as const],
  );

  it.each(configured)("line %s under its configuration fails with %s only", (line, ruleId, config) => {
    const body = invalidLines[Number(line) - 1] ?? "";
    const problems = checkMessage({ position: `line ${line}`, body }, { config });
    expect(problems.length).toBeGreaterThan(0);
    expect([...new Set(problems.map((p) => p.requirement))]).toEqual([ruleId]);
  });
});
