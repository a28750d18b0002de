// Both autopilot scans (AUTOPILOT-*): all types, one type, tenant isolation, optional fields.
import { describe, expect, it } from "vitest";
import type { Statistic } from "../../src/reference/index.ts";
import { setup } from "./harness.ts";

const key = (s: Statistic) => `${s.lookupType}|${s.source}|${s.unmappedValue}`;

describe("autopilot statistics scan, all lookup types", () => {
  it.each([["acme"], ["globex"]])(
    "returns every statistic of tenant %s once, in identity order",
    async (tenant) => {
      const h = setup();
      const token = await h.token(`${tenant}-viewer`);
      const { values } = await h.scanAll(`/configuration/${tenant}/autopilot/stats/_scan?limit=30`, token);
      const want = h.ref.state.statistics.get(tenant) ?? [];
      expect(want.length).toBeGreaterThan(30);
      expect((values as Statistic[]).map(key)).toEqual(want.map(key));
      expect((values as Statistic[]).every((s) => s.tenantId === tenant)).toBe(true);
    },
  );

  it("has records without the optional candidate fields, records with dcrId, and several types and statuses", async () => {
    const h = setup();
    const { values } = await h.scanAll(
      "/configuration/acme/autopilot/stats/_scan",
      await h.token("acme-viewer"),
    );
    const stats = values as Statistic[];
    expect(stats.some((s) => !("candidateLookupCode" in s) && !("candidateValue" in s))).toBe(true);
    expect(stats.some((s) => !("mappedAt" in s) && !("mappedBy" in s))).toBe(true);
    expect(stats.some((s) => typeof s.dcrId === "string")).toBe(true);
    expect(new Set(stats.map((s) => s.lookupType)).size).toBeGreaterThanOrEqual(3);
    expect(new Set(stats.map((s) => s.status))).toEqual(
      new Set(["LOOKUP_CREATED", "MISSPELLED", "AUTOMAPPED", "MANUALLY_MAPPED", "TRACKING", "REJECTED"]),
    );
  });

  it("sorts by semanticScore desc with identity tie-break", async () => {
    const h = setup();
    const { values } = await h.scanAll(
      "/configuration/acme/autopilot/stats/_scan?sort=semanticScore&order=desc&limit=45",
      await h.token("acme-viewer"),
    );
    const want = [...(h.ref.state.statistics.get("acme") ?? [])]
      .sort((a, b) => a.semanticScore - b.semanticScore)
      .reverse();
    expect((values as Statistic[]).map(key)).toEqual(want.map(key));
  });

  it.each([["0"], ["101"]])("refuses limit=%s with 400 invalid_limit", async (limit) => {
    const h = setup();
    const a = await h.call("POST", `/configuration/acme/autopilot/stats/_scan?limit=${limit}`, {
      token: await h.token("acme-viewer"),
    });
    expect(a.status).toBe(400);
    expect(a.body).toMatchObject({ error: "invalid_limit" });
  });

  it("defaults the page size to 100", async () => {
    const h = setup();
    const a = await h.call("POST", "/configuration/acme/autopilot/stats/_scan", {
      token: await h.token("acme-viewer"),
      body: "null",
      headers: { "content-type": "application/json" },
    });
    expect((a.body as { values: unknown[] }).values).toHaveLength(100);
  });
});

describe("autopilot statistics scan, one lookup type", () => {
  it.each([
    ["Country", "Country"],
    ["Gender", "Gender"],
    ["the URI form, percent-encoded", encodeURIComponent("rdm/lookupTypes/Currency")],
  ])("returns only the statistics of %s", async (_name, segment) => {
    const h = setup();
    const type = decodeURIComponent(segment).replace("rdm/lookupTypes/", "");
    const { values } = await h.scanAll(
      `/configuration/acme/autopilot/stats/${segment}/_scan?limit=25`,
      await h.token("acme-viewer"),
    );
    const want = (h.ref.state.statistics.get("acme") ?? []).filter((s) => s.lookupType === type);
    expect(want.length).toBeGreaterThan(0);
    expect((values as Statistic[]).map(key)).toEqual(want.map(key));
  });

  it("answers an empty scan for a type without statistics", async () => {
    const h = setup();
    const a = await h.call("POST", "/configuration/acme/autopilot/stats/NoSuchType/_scan", {
      token: await h.token("acme-viewer"),
    });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ values: [] });
  });

  it("does not accept the scroll id of another type", async () => {
    const h = setup();
    const token = await h.token("acme-viewer");
    const first = await h.call("POST", "/configuration/acme/autopilot/stats/Country/_scan?limit=5", {
      token,
    });
    const id = (first.body as { scrollId: string }).scrollId;
    const other = await h.call("POST", "/configuration/acme/autopilot/stats/Gender/_scan", {
      token,
      body: { scrollId: id },
    });
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({ error: "invalid_scroll_id" });
  });
});
