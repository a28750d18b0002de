// `lckit events` through main() with a captured CliIo: exit codes, line numbers, malformed lines, formats.
import { generateKeyPairSync } from "node:crypto";
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { captureIo } from "../cli/capture-io.ts";

const fixtures = join(import.meta.dirname, "..", "..", "fixtures", "events");
const tmp = mkdtempSync(join(tmpdir(), "lckit-events-"));

const good = JSON.stringify({
  headers: { tenantId: "acme", eventType: "ENTITY_CREATED", sourceObjectUri: "entities/E1" },
  payload: { type: "ENTITY_CREATED", object: { uri: "entities/E1", type: "configuration/entityTypes/HCP" } },
});
const mixed = join(tmp, "mixed.ndjson");
writeFileSync(
  mixed,
  [
    good,
    "{not json",
    "",
    JSON.stringify({ type: "ENTITY_CREATED", object: {} }),
    good,
    JSON.stringify({ type: "ACTIVITY_REMOVED" }),
  ].join("\n"),
);
const badConfig = join(tmp, "bad-config.json");
writeFileSync(badConfig, '{"JMSEventsFilteringFields": "uri"}');

async function run(args: string[], stdin?: string) {
  const io = captureIo();
  const withStdin = stdin === undefined ? io : Object.assign(io, { stdin: Readable.from([stdin]) });
  const code = await main(["events", ...args], withStdin);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe("lckit events check", () => {
  it("exits 0 when every message conforms", async () => {
    const { code, out } = await run(["check", join(fixtures, "valid", "entity.ndjson")]);
    expect(code).toBe(0);
    expect(out).toContain("8 message(s), 8 valid, 0 invalid");
    expect(out).toContain("every message conforms");
  });

  it("accepts a RELATIONSHIP_CREATED shaped as the vendor's sample (analyticsAttributes in a relationship) with a SHOULD warning, and refuses it at MUST under a configuration that lists the relationship fields", async () => {
    const sample = join(fixtures, "valid", "vendor-relationship.ndjson");
    const loose = await run(["check", sample]);
    expect(loose.code).toBe(0);
    expect(loose.out).toContain("EVENT-FILTER-07 at /payload/object/analyticsAttributes");
    expect(loose.out).not.toMatch(/EVENT-FILTER-0[1-6]/);
    const listed = join(tmp, "relation-fields.json");
    writeFileSync(
      listed,
      JSON.stringify({
        RelationEventsFilteringFields: [
          "uri",
          "type",
          "createdBy",
          "createdTime",
          "updatedBy",
          "updatedTime",
          "startRefPinned",
          "startRefIgnored",
          "endRefPinned",
          "endRefIgnored",
          "attributes",
          "crosswalks",
        ],
      }),
    );
    const strict = await run(["check", sample, "--config", listed]);
    expect(strict.code).toBe(1);
    expect(strict.out).toContain("EVENT-FILTER-05 at /payload/object/analyticsAttributes");
    expect(strict.out).toContain("EVENT-FILTER-03 at /payload/object/analyticsAttributes");
  });

  it("reports line, path, rule and message, continues past malformed lines, exits 1", async () => {
    const { code, out } = await run(["check", mixed]);
    expect(code).toBe(1);
    const lines = out.split("\n").filter((l) => l.startsWith("line "));
    expect(lines.map((l) => l.split(":").slice(0, 2).join(":"))).toEqual([
      "line 2: EVENT-DELIVERY-01 at message",
      "line 4: EVENT-OBJECT-01 at /payload/object",
      "line 6: EVENT-TYPES-02 at /payload/type",
    ]);
    expect(out).toContain("5 message(s), 2 valid, 3 invalid");
  });

  it("prints the result object with --format json", async () => {
    const { code, out } = await run(["check", mixed, "--format", "json"]);
    expect(code).toBe(1);
    const result = JSON.parse(out) as { total: number; invalid: number; byRule: Record<string, number> };
    expect([result.total, result.invalid]).toEqual([5, 3]);
    expect(result.byRule).toEqual({ "EVENT-DELIVERY-01": 1, "EVENT-OBJECT-01": 1, "EVENT-TYPES-02": 1 });
  });

  it("lists at most --max-problems problems and says how many more there are", async () => {
    const { out } = await run(["check", mixed, "--max-problems", "1"]);
    expect(out.split("\n").filter((l) => l.startsWith("line "))).toHaveLength(1);
    expect(out).toContain("2 more problem(s) counted but not listed");
  });

  it("reads stdin for -; a type in neither of the document's lists is a warning", async () => {
    const { code, out } = await run(["check", "-"], `${good}\n{"type":"ENTITY_EXPLODED"}\n{"object":{}}\n`);
    expect(code).toBe(1);
    expect(out).toContain("line 2: warning EVENT-TYPES-06 at /payload/type");
    expect(out).toContain("line 3: EVENT-TYPES-01 at /payload");
    expect(out).toContain("stdin: 3 message(s), 2 valid, 1 invalid (1 valid with warnings)");
  });

  it("groups repeated findings of one rule with the same message in the text; --format json keeps every one", async () => {
    const unlisted = Array.from({ length: 22 }, () => '{"type":"ENTITY_MERGE_FAILED","uri":"entities/E9"}');
    const input = `${good}\n${unlisted.join("\n")}\n`;
    const text = await run(["check", "-"], input);
    expect(text.code).toBe(0);
    expect(text.out.split("\n").filter((l) => l.startsWith("line "))).toHaveLength(1);
    expect(text.out).toMatch(
      /^22 messages with the warning EVENT-TYPES-06 "event type "ENTITY_MERGE_FAILED".*": first at line 2; also line 3, .*, line 11 and 12 more$/m,
    );
    const json = await run(["check", "-", "--format", "json"], input);
    const result = JSON.parse(json.out) as { problems: { evidence: { position: string } }[] };
    expect(result.problems.map((p) => p.evidence.position)).toEqual(unlisted.map((_, i) => `line ${i + 2}`));
  });

  it("applies --config", async () => {
    const config = join(fixtures, "streaming-config.example.json");
    expect((await run(["check", join(fixtures, "valid", "filtered.ndjson"), "--config", config])).code).toBe(
      0,
    );
    const entity = await run(["check", join(fixtures, "valid", "entity.ndjson"), "--config", config]);
    expect(entity.code).toBe(1);
    expect(entity.out).toContain("EVENT-FILTER-01");
  });

  it("writes the run report with --report-dir", async () => {
    const dir = join(tmp, "reports");
    const { code, err } = await run(["check", mixed, "--report-dir", dir]);
    expect(code).toBe(1);
    expect(err).toContain("report written to");
    const [runId] = readdirSync(dir);
    const files = readdirSync(join(dir, runId ?? "")).sort();
    // The evidence bundle: the messages read (events.ndjson) and the manifest beside the four reports.
    expect(files).toEqual([
      "ctrf.json",
      "events.ndjson",
      "junit.xml",
      "manifest.json",
      "report.html",
      "report.json",
      "summary.md",
    ]);
    const report = JSON.parse(readFileSync(join(dir, runId ?? "", "report.json"), "utf8"));
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(ajv);
    const schema = JSON.parse(
      readFileSync(join(import.meta.dirname, "..", "..", "src", "report", "report.schema.json"), "utf8"),
    );
    expect(ajv.validate(schema, report) ? [] : ajv.errors).toEqual([]);
    expect(report.verdict).toBe("NOT CONFORMANT");
    const failed = report.checks
      .filter((c: { status: string }) => c.status === "failed")
      .map((c: { id: string }) => c.id);
    expect(failed.sort()).toEqual([
      "events/event-delivery-01",
      "events/event-object-01",
      "events/event-types-02",
    ]);
    // Coverage claims only what some check proves: every event requirement has a check of this run, an HTTP
    // requirement is "checked by lckit run" only when an HTTP check traces it, else untested.
    const coverage = new Map(
      report.coverage.requirements.map((r: { id: string; status: string; checkedBy?: string }) => [r.id, r]),
    );
    const statusOf = (id: string) => (coverage.get(id) as { status: string } | undefined)?.status;
    for (const id of [
      "EVENT-TYPES-04",
      "EVENT-STREAM-02",
      "EVENT-FILTER-05",
      "EVENT-FILTER-06",
      "EVENT-TYPES-05",
      "EVENT-DELIVERY-02",
    ])
      expect({ id, status: statusOf(id) }).not.toEqual({ id, status: "untested" });
    expect(statusOf("SCAN-03")).toBe("elsewhere");
    expect((coverage.get("SCAN-03") as { checkedBy?: string }).checkedBy).toBe("lckit run");
    for (const id of ["TOKEN-QUOTA-05", "CONFIG-CLIENT-05", "BLOCKED-06"])
      expect(statusOf(id)).toBe("untested");
    // Every format says where each failed check's messages are in events.ndjson.
    const objectCheck = report.checks.find((c: { id: string }) => c.id === "events/event-object-01");
    const where = `events.ndjson line ${objectCheck.eventLines.join(", ")}`;
    expect(objectCheck.eventLines).toHaveLength(1);
    for (const file of ["summary.md", "report.html", "junit.xml"])
      expect({ file, cites: readFileSync(join(dir, runId ?? "", file), "utf8").includes(where) }).toEqual({
        file,
        cites: true,
      });
  });

  it("signs the manifest with --sign-key; lckit report verify accepts it and names events.ndjson once a byte changed", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const key = join(tmp, "events-sign.pem");
    const pub = join(tmp, "events-sign.pub.pem");
    writeFileSync(key, privateKey.export({ type: "pkcs8", format: "pem" }));
    writeFileSync(pub, publicKey.export({ type: "spki", format: "pem" }));
    const dir = join(tmp, "signed-reports");
    expect((await run(["check", mixed, "--report-dir", dir, "--sign-key", key])).code).toBe(1);
    const folder = join(dir, readdirSync(dir)[0] ?? "");
    expect(readdirSync(folder)).toContain("manifest.sig");
    const verify = async (path: string) => {
      const io = captureIo();
      const code = await main(["report", "verify", path, "--public-key", pub], io);
      return { code, out: io.stdout() };
    };
    const signed = await verify(folder);
    expect(signed.code, signed.out).toBe(0);
    expect(signed.out).toMatch(/ok {3}signature: Ed25519 over manifest\.json by the given public key/);

    const spoilt = join(tmp, "signed-spoilt");
    cpSync(folder, spoilt, { recursive: true });
    const events = readFileSync(join(spoilt, "events.ndjson"));
    events[1] = (events[1] as number) ^ 0x01;
    writeFileSync(join(spoilt, "events.ndjson"), events);
    const refused = await verify(spoilt);
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(/^FAIL .*events\.ndjson: sha256 differs/m);
  });

  it.each([
    ["a --sign-key that is no key", ["check", mixed, "--report-dir", join(tmp, "r"), "--sign-key", mixed]],
    ["a --sign-key without --report-dir", ["check", mixed, "--sign-key", mixed]],
  ])("exits 2 on %s, saying what to do", async (_name, args) => {
    const { code, err } = await run(args);
    expect(code).toBe(2);
    expect(err).toMatch(/--sign-key .*(openssl genpkey|add --report-dir)/);
  });

  it.each([
    ["no source", ["check"]],
    ["two sources", ["check", mixed, mixed]],
    ["a missing file", ["check", join(tmp, "missing.ndjson")]],
    ["an unknown option", ["check", mixed, "--colour"]],
    ["a bad format", ["check", mixed, "--format", "xml"]],
    ["a bad --max-problems", ["check", mixed, "--max-problems", "0"]],
    ["a bad --max-depth", ["check", mixed, "--max-depth", "deep"]],
    ["a --max-depth past the ceiling", ["check", mixed, "--max-depth", "100000"]],
    ["a bad duration", ["check", "amqp://127.0.0.1:1", "--idle-timeout", "soon"]],
    ["an invalid configuration", ["check", mixed, "--config", badConfig]],
    ["a missing configuration", ["check", mixed, "--config", join(tmp, "nope.json")]],
    ["an unsupported URL scheme", ["check", "kafka://broker:9092/events"]],
    ["no subcommand", []],
    ["an unknown subcommand", ["verify"]],
  ])("exits 2 on %s", async (_name, args) => {
    const { code, err } = await run(args);
    expect(code).toBe(2);
    expect(err).toMatch(/^lckit events: /);
  });

  it.each([[["--help"]], [["check", "--help"]]])("prints help for %j and exits 0", async (args) => {
    const { code, out } = await run(args);
    expect(code).toBe(0);
    expect(out).toContain("Usage: lckit events");
  });
});

describe("lckit events check on hostile or empty input", () => {
  const deep = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

  it("reports a line nested 5,000 levels deep, a 200 KB nested array too, and checks the lines after them", async () => {
    const path = join(tmp, "deep.ndjson");
    const nestedPayload = JSON.stringify({
      headers: { tenantId: "acme", eventType: "ENTITY_CREATED", sourceObjectUri: "entities/E1" },
      payload: { type: "ENTITY_CREATED", object: { uri: "entities/E1", tags: [] } },
    }).replace('"tags":[]', `"tags":${deep(5000)}`);
    writeFileSync(
      path,
      [nestedPayload, good, deep(100_000), JSON.stringify({ type: "ENTITY_CREATED", object: {} })].join("\n"),
    );
    const { code, out } = await run(["check", path]);
    expect(code).toBe(1);
    const reported = out.split("\n").filter((l) => l.startsWith("line "));
    // Lines 1 and 3 break the nesting limit with the same message: shown once, then grouped.
    expect(reported.map((l) => l.split(":").slice(0, 2).join(":"))).toEqual([
      "line 1: EVENT-DELIVERY-01 at message",
      "line 4: EVENT-OBJECT-01 at /payload/object",
    ]);
    expect(reported[0]).toContain("more than 512 levels deep");
    expect(out).toMatch(/^2 messages with the error EVENT-DELIVERY-01 ".*": first at line 1; also line 3$/m);
    expect(out).toContain("4 message(s), 1 valid, 3 invalid");
  });

  it("--max-depth moves the limit", async () => {
    const path = join(tmp, "twenty.ndjson");
    writeFileSync(path, `${good.replace('"uri":"entities/E1"', `"uri":"entities/E1","tags":${deep(20)}`)}\n`);
    expect((await run(["check", path])).out).not.toContain("levels deep");
    const limited = await run(["check", path, "--max-depth", "10"]);
    expect(limited.code).toBe(1);
    expect(limited.out).toContain("more than 10 levels deep");
  });

  it("escapes control characters from the input in text and JSON output", async () => {
    const path = join(tmp, "controls.ndjson");
    writeFileSync(
      path,
      [
        JSON.stringify({ type: "ENTITY_\u001b[2J\u0007\u009b31m\u202eEXPLODED" }),
        "{\u001b[2J\u0007 not json",
        JSON.stringify({
          headers: {
            tenantId: "acme",
            eventType: "ENTITY_\u001b]0;owned\u0007",
            sourceObjectUri: "entities/E1",
          },
          payload: { type: "ENTITY_CREATED", object: { uri: "entities/E1" } },
        }),
      ].join("\n"),
    );
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the bytes that must never reach the output
    const raw = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;
    for (const format of ["text", "json"]) {
      const { code, out, err } = await run(["check", path, "--format", format]);
      expect(code).toBe(1);
      expect(raw.test(out)).toBe(false);
      expect(raw.test(err)).toBe(false);
    }
    const reports = join(tmp, "control-reports");
    await run(["check", path, "--report-dir", reports]);
    const [runId] = readdirSync(reports);
    for (const file of ["report.json", "report.html", "junit.xml", "summary.md"]) {
      const text = readFileSync(join(reports, runId ?? "", file), "utf8");
      expect({ file, raw: raw.test(text) }).toEqual({ file, raw: false });
      // The reports that list problems show the escapes (summary.md lists no problem text).
      if (file !== "summary.md") expect(text).toContain("x1b[2J");
    }
    const { out } = await run(["check", path]);
    expect(out).toContain("\\x1b[2J\\x07\\x9b31m\\u202eEXPLODED");
    expect(out).toContain("header eventType is ENTITY_\\x1b]0;owned\\x07");
  });

  it.each([
    ["an empty file", "file"],
    ["empty stdin", "stdin"],
  ])("says so on %s: no messages, not conforming, exit 2 (0 with --allow-empty)", async (_name, kind) => {
    const path = join(tmp, "empty.ndjson");
    writeFileSync(path, "\n\n");
    const source = kind === "file" ? path : "-";
    const { code, out, err } = await run(["check", source], kind === "file" ? undefined : "");
    expect(code).toBe(2);
    expect(out).toContain("0 message(s)");
    expect(out).toContain("result: NO MESSAGES");
    expect(out).not.toContain("conforms\n");
    expect(err).toContain("nothing was checked");
    const allowed = await run(["check", source, "--allow-empty"], kind === "file" ? undefined : "");
    expect(allowed.code).toBe(0);
    expect(allowed.out).toContain("result: NO MESSAGES");
  });

  it("writes an INCOMPLETE report for empty input, never CONFORMANT", async () => {
    const path = join(tmp, "empty-report.ndjson");
    writeFileSync(path, "");
    const dir = join(tmp, "empty-reports");
    expect((await run(["check", path, "--report-dir", dir])).code).toBe(2);
    const [runId] = readdirSync(dir);
    const report = JSON.parse(readFileSync(join(dir, runId ?? "", "report.json"), "utf8"));
    expect(report.verdict).toBe("INCOMPLETE");
    expect(report.verdictReason).toContain("no message was read");
  });
});
