// The filter grammar of docs/assumptions.md through the scans (SCAN-07, SCAN-11).
import { describe, expect, it } from "vitest";
import type { Lookup, Statistic } from "../../src/reference/index.ts";
import { type Harness, setup } from "./harness.ts";

const lower = (s: string) => s.toLowerCase();
const mappedValues = (l: Lookup) => l.sourceMappings.flatMap((m) => m.values.map((v) => v.value));

// [filter, oracle over the acme lookups]
const LOOKUP_CASES: [string, (l: Lookup) => boolean][] = [
  ["equals(type,'rdm/lookupTypes/Country')", (l) => l.type === "rdm/lookupTypes/Country"],
  ["equals(type,'Currency')", (l) => l.type === "rdm/lookupTypes/Currency"],
  ["equals(code,'de')", (l) => l.code === "DE"],
  ["EQUALS(code,'de')", (l) => l.code === "DE"],
  ["startsWith(code,'u')", (l) => lower(l.code).startsWith("u")],
  [
    "contains(sourceMappings.values.value,'LAND')",
    (l) => mappedValues(l).some((v) => lower(v).includes("land")),
  ],
  [
    "equals(sourceMappings.source,'salesforce')",
    (l) => l.sourceMappings.some((m) => m.source === "Salesforce"),
  ],
  ["equals(attributes.name,'iso4217')", (l) => l.attributes.some((a) => a.name === "iso4217")],
  ["exists(endDate)", (l) => l.endDate !== undefined],
  ["missing(endDate)", (l) => l.endDate === undefined],
  ["exists(parents)", (l) => l.parents.length > 0],
  ["missing(localizations)", () => true],
  ["equals(enabled,false)", (l) => !l.enabled],
  ["equals(version,3)", (l) => l.version === 3],
  ["gt(version,4)", (l) => l.version > 4],
  ["gte(version,4)", (l) => l.version >= 4],
  ["lt(version,2)", (l) => l.version < 2],
  ["lte(version,2)", (l) => l.version <= 2],
  ["gte(code,'X')", (l) => l.code >= "X"],
  ["lt(updateDate,1741400000000)", (l) => l.updateDate < 1741400000000],
  [
    "equals(type,'Country') and startsWith(code,'a')",
    (l) => l.type.endsWith("/Country") && lower(l.code).startsWith("a"),
  ],
  [
    "equals(code,'DE') or equals(code,'FR') or equals(code,'usd')",
    (l) => ["DE", "FR", "USD"].includes(l.code),
  ],
  ["not equals(type,'Country')", (l) => !l.type.endsWith("/Country")],
  ["not(equals(type,'Country'))", (l) => !l.type.endsWith("/Country")],
  [
    "equals(type,'Gender') or equals(type,'Currency') and startsWith(code,'E')",
    (l) => l.type.endsWith("/Gender") || (l.type.endsWith("/Currency") && lower(l.code).startsWith("e")),
  ],
  [
    "(equals(type,'Gender') or equals(type,'Currency')) and startsWith(code,'E')",
    (l) => (l.type.endsWith("/Gender") || l.type.endsWith("/Currency")) && lower(l.code).startsWith("e"),
  ],
  ["not (exists(endDate) or equals(enabled,false))", (l) => !(l.endDate !== undefined || !l.enabled)],
  ["  equals( code , 'DE' )  ", (l) => l.code === "DE"],
  ["", () => true],
];

async function scanValues<T>(h: Harness, path: string, filter: string): Promise<T[]> {
  const { values } = await h.scanAll(
    `${path}?limit=100&filter=${encodeURIComponent(filter)}`,
    await h.token("acme-viewer"),
  );
  return values as T[];
}

describe("filter grammar on the lookups scan", () => {
  const h = setup();
  const all = [...(h.ref.state.lookups.get("acme")?.inIdentityOrder() ?? [])];

  it.each(LOOKUP_CASES)("%s", async (filter, oracle) => {
    const got = await scanValues<Lookup>(h, "/lookups/acme/_scan", filter);
    const want = all.filter(oracle);
    expect(got.map((l) => `${l.type}/${l.code}`)).toEqual(want.map((l) => `${l.type}/${l.code}`));
  });

  it("has cases that select something and cases that leave something out", () => {
    const sizes = LOOKUP_CASES.map(([, oracle]) => all.filter(oracle).length);
    expect(sizes.filter((n) => n > 0 && n < all.length).length).toBeGreaterThan(20);
  });
});

describe("filter grammar on the autopilot scan", () => {
  const h = setup();
  const all = [...(h.ref.state.statistics.get("acme") ?? [])];
  const quoted = all.find((s) => s.aiReasoning.includes("'")) ?? all[0];

  it.each([
    ["equals(status,'tracking')", (s: Statistic) => s.status === "TRACKING"],
    ["missing(candidateLookupCode)", (s: Statistic) => s.candidateLookupCode === undefined],
    ["exists(dcrId)", (s: Statistic) => s.dcrId !== undefined],
    ["gt(sourceFrequency.totalCount,50)", (s: Statistic) => s.sourceFrequency.totalCount > 50],
    ["equals(lookupType,'rdm/lookupTypes/Gender')", (s: Statistic) => s.lookupType === "Gender"],
    [
      "equals(mappedBy,'SYSTEM') and gte(semanticScore,0.9)",
      (s: Statistic) => s.mappedBy === "SYSTEM" && s.semanticScore >= 0.9,
    ],
    ["equals(centroidMatch,true)", (s: Statistic) => s.centroidMatch],
  ])("%s", async (filter, oracle) => {
    const got = await scanValues<Statistic>(h, "/configuration/acme/autopilot/stats/_scan", filter);
    expect(got.map((s) => s.unmappedValue)).toEqual(all.filter(oracle).map((s) => s.unmappedValue));
  });

  it("reads '' as a quote inside a string", async () => {
    const value = quoted?.unmappedValue.replace(/'/g, "''") ?? "";
    const got = await scanValues<Statistic>(
      h,
      "/configuration/acme/autopilot/stats/_scan",
      `equals(unmappedValue,'${value}')`,
    );
    expect(got.map((s) => s.unmappedValue)).toContain(quoted?.unmappedValue);
  });
});

describe("bad filters", () => {
  it.each([
    ["fullText(code,'x')", ["fullText"]],
    ["like(code,'x')", ["like"]],
    ["equals(code", ["end"]],
    ["equals(code,DE)", ["DE", "character 13"]],
    ["equals(code,'DE'", ["end"]],
    ["equals(code,'DE') equals(code,'FR')", ["equals", "character 19"]],
    ["exists(code,'x')", ["exists"]],
    ["equals('code','x')", ["field path"]],
    ["(equals(code,'DE')", ['")"']],
    ["equals(code,'unterminated)", ["unterminated"]],
    ["equals(code,'x') and", ["end"]],
    ["%", ["%"]],
    [`${"(".repeat(100)}equals(code,'x')${")".repeat(100)}`, ["nested"]],
  ])("%s is a 400 invalid_filter naming %j", async (filter, mentions) => {
    const h = setup();
    const a = await h.call("POST", `/lookups/acme/_scan?filter=${encodeURIComponent(filter)}`, {
      token: await h.token("acme-viewer"),
    });
    expect(a.status).toBe(400);
    expect(a.body).toMatchObject({ error: "invalid_filter" });
    for (const m of mentions)
      expect((a.body as { error_description: string }).error_description).toContain(m);
  });
});
