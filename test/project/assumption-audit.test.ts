// The assumption audit: every MUST-level assertion of the kit (a check, an event-checker error, a schema
// keyword MUST-level validation relies on) traces to a MUST entry whose words the document states, and no
// kit assumption decides a MUST verdict. Each audit is also shown to catch a planted violation.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { loadContract } from "../../src/contract/index.ts";
import { rule } from "../../src/events/document/requirements.ts";
import { mutations } from "../../src/events/generate/mutations.ts";
import { checkStream, openSource } from "../../src/events/index.ts";
import {
  assumptionEnforcement,
  catalogueAuditProblems,
  checkAuditProblems,
  eventSchemaProblems,
  markerProblems,
  openapiAssumptionNodes,
  reachableEventSchemaNodes,
  renderEnforcementSection,
  requestSideProblems,
  ruleAuditProblems,
  withEnforcementSection,
} from "../../src/requirements/assumption-audit.ts";
import { type Catalogue, loadCatalogue } from "../../src/requirements/catalogue.ts";
import { planRun, runPlan, startEmbeddedTarget } from "../../src/runner/index.ts";
import { allChecks } from "../../suites/index.ts";

const root = join(new URL(".", import.meta.url).pathname, "..", "..");
const catalogue = loadCatalogue();

/** The catalogue with one entry changed, for the planted cases. */
function withEntry(id: string, change: Record<string, unknown>): Catalogue {
  return {
    ...catalogue,
    requirements: catalogue.requirements.map((entry) => (entry.id === id ? { ...entry, ...change } : entry)),
  };
}

describe("catalogue: MUST entries rest on the document's words", () => {
  it("every MUST entry has a basis quote, is no assumption and rests on no 'not shown'", () => {
    expect(catalogueAuditProblems(catalogue)).toEqual([]);
    expect(catalogue.requirements.filter((entry) => entry.level === "MUST").length).toBeGreaterThan(60);
  });

  it.each([
    ["an empty basis", { basis: " " }, /needs a basis/],
    ["a 'not shown' basis", { basis: "Response body: not shown." }, /is a "not shown"/],
    ["an assumption", { assumption: true }, /cannot be MUST/],
  ])("catches a MUST entry with %s", (_name, change, want) => {
    expect(catalogueAuditProblems(withEntry("SCAN-01", change)).join("\n")).toMatch(want);
  });
});

describe("checks: a MUST check rests on a MUST entry, never on an assumption", () => {
  it("holds for every check of suites/index.ts", () => {
    expect(checkAuditProblems(allChecks, catalogue)).toEqual([]);
  });

  it.each([
    ["only an assumption", ["SCAN-08"], /rests only on SCAN-08/],
    ["only a SHOULD entry", ["EVENT-TYPES-03"], /rests only on EVENT-TYPES-03/],
    ["a MUST entry and an assumption", ["SCAN-03", "SCAN-08"], /cites the assumption\(s\) SCAN-08/],
    ["an unknown id", ["SCAN-99"], /SCAN-99 are not in requirements/],
  ])("catches a MUST check citing %s", (_name, requirements, want) => {
    const planted = { id: "planted/check", level: "MUST" as const, requirements };
    expect(checkAuditProblems([planted], catalogue).join("\n")).toMatch(want);
  });

  it("catches a MUST check once its only MUST entry becomes an assumption", () => {
    const scroll = allChecks.filter(
      (check) => check.level === "MUST" && check.requirements.includes("SCAN-03"),
    );
    expect(scroll.length).toBeGreaterThan(0);
    const demoted = withEntry("SCAN-03", { level: "SHOULD", assumption: true });
    expect(checkAuditProblems(allChecks, demoted).join("\n")).toMatch(/SCAN-03/);
  });
});

describe("event checker: errors trace to MUST entries, warnings to SHOULD entries", () => {
  it("every rule id of src/events/rules.ts is a catalogue entry", () => {
    const ids = new Set(catalogue.requirements.map((entry) => entry.id));
    expect(Object.entries(rule).filter(([, id]) => !ids.has(id))).toEqual([]);
  });

  it("every rule-breaking mutation reports with the severity its entry's level demands", () => {
    expect(mutations.length).toBeGreaterThan(20);
    expect(ruleAuditProblems(mutations, catalogue)).toEqual([]);
  });

  it("every problem found in the invalid fixture stream has the severity its entry's level demands", async () => {
    const result = await checkStream(await openSource(join(root, "fixtures/events/invalid.ndjson")));
    expect(result.problems.filter((problem) => problem.evidence.severity === "error").length).toBeGreaterThan(
      20,
    );
    const audited = result.problems.map((problem) => ({
      name: `invalid.ndjson:${problem.evidence.position ?? "?"}`,
      rule: problem.requirement,
      severity: problem.evidence.severity,
    }));
    expect(ruleAuditProblems(audited, catalogue)).toEqual([]);
  });

  it.each([
    [
      "an error under a SHOULD entry",
      { name: "x", rule: "EVENT-TYPES-06", severity: "error" as const },
      /error/,
    ],
    [
      "a warning under a MUST entry",
      { name: "x", rule: "EVENT-TYPES-01", severity: "warning" as const },
      /warning/,
    ],
  ])("catches %s", (_name, planted, want) => {
    expect(ruleAuditProblems([planted], catalogue).join("\n")).toMatch(want);
  });
});

describe("event schemas: what MUST-level validation compiles cites MUST entries and refuses no assumption", () => {
  const nodes = reachableEventSchemaNodes();

  it("follows $ref from message and payload into the per-type schemas", () => {
    const files = new Set(nodes.map((node) => node.file));
    expect([...files].filter((file) => file.startsWith("event-schemas/types/")).length).toBeGreaterThan(15);
  });

  it("every reachable x-requirements cites a MUST entry; no reachable x-kit-assumption node refuses values", () => {
    expect(eventSchemaProblems(nodes, catalogue)).toEqual([]);
  });

  it.each([
    ["a node citing only a SHOULD entry", { "x-requirements": ["EVENT-TYPES-03"] }, /cite no MUST entry/],
    [
      "an assumption with a bound",
      { "x-kit-assumption": "EVENT-TYPES-06", maxLength: 5 },
      /enforces maxLength/,
    ],
  ])("catches %s", (_name, node, want) => {
    const planted = [{ file: "event-schemas/planted.json", pointer: "/", node }];
    expect(eventSchemaProblems(planted, catalogue).join("\n")).toMatch(want);
  });
});

describe("OpenAPI: kit assumptions are marked and never refuse what the document allows", () => {
  const temp = mkdtempSync(join(tmpdir(), "lckit-audit-"));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  it("every x-kit-assumption names a catalogue assumption", () => {
    const nodes = openapiAssumptionNodes();
    expect(nodes.length).toBeGreaterThan(30);
    expect(markerProblems(nodes, catalogue)).toEqual([]);
  });

  it("no request-side node marked x-kit-assumption carries a refusing keyword (the lookups scan limit has no maximum)", () => {
    const contract = loadContract();
    expect(requestSideProblems(contract.operations)).toEqual([]);
    const limit = contract
      .operation("scanLookups")
      .parameters.find((parameter) => parameter.name === "limit");
    expect(limit?.schema.maximum).toBeUndefined();
  });

  it("catches a kit bound put back as a validation keyword", () => {
    const dir = join(temp, "openapi");
    cpSync(join(root, "openapi"), dir, { recursive: true });
    const file = join(dir, "components", "parameters.yaml");
    const text = readFileSync(file, "utf8");
    const planted = text.replace(
      /(LookupScanLimit:[\s\S]*? {2}schema:\n {4}type: integer\n)/,
      "$1    maximum: 100\n",
    );
    expect(planted).not.toBe(text);
    writeFileSync(file, planted);
    expect(requestSideProblems(loadContract(dir).operations).join("\n")).toMatch(
      /scanLookups\/parameters\/\d+: marked x-kit-assumption LOOKUP-SCAN-04 but refuses values with schema\.maximum/,
    );
  });

  it("catches a marker that names a MUST entry or no entry", () => {
    const planted = [
      { file: "openapi/x.yaml", pointer: "/a", node: { "x-kit-assumption": "SCAN-01" } },
      { file: "openapi/x.yaml", pointer: "/b", node: { "x-kit-assumption": "NOPE-01" } },
    ];
    const problems = markerProblems(planted, catalogue).join("\n");
    expect(problems).toMatch(/SCAN-01 is a MUST entry/);
    expect(problems).toMatch(/NOPE-01 is not a catalogue entry/);
  });

  it("MUST-level checks never validate against the contract (only SHOULD checks consult its assumptions)", async () => {
    const contract = loadContract();
    const responses = vi.spyOn(contract, "validateResponse");
    const requests = vi.spyOn(contract, "validateRequest");
    try {
      const run = async (level: "MUST" | "SHOULD", ids?: string[]) => {
        const embedded = await startEmbeddedTarget();
        const plan = planRun(allChecks, {
          target: embedded.target,
          drivableClock: true,
          level,
          ...(ids ? { ids } : {}),
        });
        const checks = plan.entries.filter((entry) => entry.action === "run").map((entry) => entry.check);
        if (level === "MUST") expect(checks.every((check) => check.level === "MUST")).toBe(true);
        return runPlan(plan, { fetch: embedded.fetch, clock: embedded.clock, seed: 3, runs: 1 });
      };
      const must = await run("MUST");
      expect(must.checks.filter((check) => check.status === "passed").length).toBeGreaterThan(40);
      expect(responses).not.toHaveBeenCalled();
      expect(requests).not.toHaveBeenCalled();
      // The spy sees validation when it happens: the SHOULD-level schema check validates through it.
      await run("SHOULD", ["schema/getVersion"]);
      expect(responses).toHaveBeenCalled();
    } finally {
      responses.mockRestore();
      requests.mockRestore();
    }
  }, 120_000);
});

describe("docs/assumptions.md: where each assumption is enforced", () => {
  const rows = assumptionEnforcement(catalogue, allChecks, openapiAssumptionNodes(), rule);

  it("lists every assumption of the catalogue, generated from it (npm run generate)", () => {
    const page = readFileSync(join(root, "docs", "assumptions.md"), "utf8");
    expect(withEnforcementSection(page, renderEnforcementSection(rows))).toBe(page);
    for (const entry of catalogue.requirements.filter((r) => r.assumption && !r.retired))
      expect(page, entry.id).toContain(`| ${entry.id} |`);
  });

  it("enforces every assumption somewhere, and at SHOULD level or below only", () => {
    for (const { entry, checks, contract, eventRules } of rows) {
      expect(checks.length + contract.length + eventRules.length, entry.id).toBeGreaterThan(0);
      expect(
        checks.filter((check) => check.level === "MUST").map((check) => check.id),
        entry.id,
      ).toEqual([]);
    }
  });
});
