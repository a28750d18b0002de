// Generated data for large runs: deterministic per seed, unique identities, scannable to the end.
import { describe, expect, it } from "vitest";
import { generateLookups, generateStatistics } from "../../src/reference/generate.ts";
import { createReference } from "../../src/reference/index.ts";
import { setup } from "./harness.ts";

describe("generated data", () => {
  it.each([
    ["lookups", (seed: number) => generateLookups("acme", 500, seed)],
    ["statistics", (seed: number) => generateStatistics("acme", 500, seed)],
  ])("%s are the same for the same seed and differ for another", (_name, generate) => {
    expect(generate(7)).toEqual(generate(7));
    expect(generate(7)).not.toEqual(generate(8));
  });

  it("gives every generated lookup and statistic a unique identity", () => {
    const lookups = generateLookups("acme", 5000, 3);
    expect(new Set(lookups.map((l) => `${l.type}/${l.code}`)).size).toBe(5000);
    const stats = generateStatistics("acme", 5000, 3);
    expect(new Set(stats.map((s) => `${s.lookupType}/${s.source}/${s.unmappedValue}`)).size).toBe(5000);
  });

  it("adds the generated records to the tenant, and a scan reaches all of them", async () => {
    const h = setup({ generate: { tenant: "globex", lookups: 2500, statistics: 700, seed: 5 } });
    const token = await h.token("globex-viewer");
    const lookups = await h.scanAll("/lookups/globex/_scan", token);
    expect(lookups.values).toHaveLength(2555);
    const stats = await h.scanAll("/configuration/globex/autopilot/stats/_scan", token);
    expect(stats.values.length).toBe(740);
  });

  it.each([
    [{ tenant: "nowhere", lookups: 1 }, /unknown tenant "nowhere"/],
    [{ tenant: "acme", lookups: -1 }, /generate\.lookups/],
    [{ tenant: "acme", statistics: 1.5 }, /generate\.statistics/],
  ])("refuses %j", (generate, message) => {
    expect(() => createReference({ generate })).toThrow(message);
  });
});
