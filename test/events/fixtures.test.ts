// The fixtures: every valid file conforms (under its sibling .config.json when present); every line of
// invalid.ndjson named in invalid.expected.json fails with exactly its rule, and the other lines conform.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkMessage } from "../../src/events/check/event-message.ts";
import { checkStream } from "../../src/events/check/event-stream.ts";
import { eventSchemas } from "../../src/events/event-schemas.ts";
import { parseStreamingConfig, type StreamingConfig } from "../../src/events/streaming-config.ts";
import { openFileSource } from "../../src/events/transport/sources/file.ts";

const dir = join(import.meta.dirname, "..", "..", "fixtures", "events");
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
    expect(result.problems.filter((p) => p.severity === "error")).toEqual([]);
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

  it("hold at least 40 rejected messages covering every rule the checker enforces", () => {
    expect(rejected).toBeGreaterThanOrEqual(40);
    const rules = new Set(
      Object.values(expected).map((entry) => (typeof entry === "string" ? entry : entry.rule)),
    );
    const enforced = [
      ...[
        "EVENT-DELIVERY-01",
        "EVENT-HEADERS-01",
        "EVENT-HEADERS-02",
        "EVENT-HEADERS-03",
        "EVENT-HEADERS-04",
      ],
      ...["EVENT-PAYLOAD-01", "EVENT-PAYLOAD-02", "EVENT-PAYLOAD-03", "EVENT-PAYLOAD-04", "EVENT-PAYLOAD-05"],
      ...["EVENT-PAYLOAD-06", "EVENT-PAYLOAD-07", "EVENT-PAYLOAD-08", "EVENT-OBJECT-01", "EVENT-OBJECT-02"],
      ...["EVENT-OBJECT-03", "EVENT-OBJECT-04", "EVENT-OBJECT-05", "EVENT-FILTER-01", "EVENT-FILTER-02"],
      ...["EVENT-FILTER-03", "EVENT-FILTER-04", "EVENT-FILTER-05", "EVENT-DELTA-01", "EVENT-DELTA-02"],
      ...["EVENT-DELTA-03", "EVENT-TYPES-01", "EVENT-TYPES-02", "EVENT-STREAM-01", "EVENT-STREAM-03"],
    ];
    expect(enforced.filter((id) => !rules.has(id))).toEqual([]);
    // The kit's SHOULD-level preferences (the document leaves these open) are warnings, never errors.
    const warned = Object.values(expected).flatMap((entry) =>
      typeof entry !== "string" && "severity" in entry ? [entry.rule] : [],
    );
    expect([...new Set(warned)].sort()).toEqual(["EVENT-DELTA-01", "EVENT-DELTA-02", "EVENT-TYPES-06"]);
  });

  it("as one stream without configuration: each named line fails with exactly its rule, the rest conform", async () => {
    const result = await checkStream(await openFileSource(join(dir, "invalid.ndjson")), {
      maxProblems: 10_000,
    });
    const byLine = new Map<string, Set<string>>();
    for (const problem of result.problems) {
      const line = problem.position.replace(/^line /, "");
      byLine.set(line, (byLine.get(line) ?? new Set()).add(`${problem.rule}/${problem.severity}`));
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
    expect([...new Set(problems.map((p) => p.rule))]).toEqual([ruleId]);
  });
});
