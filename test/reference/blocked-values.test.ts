// GET .../autopilot/{lookupType}/blockedValues with offset/limit (BLOCKED-*).
import { describe, expect, it } from "vitest";
import type { BlockedValue } from "../../src/reference/index.ts";
import { setup } from "./harness.ts";

const PATH = "/configuration/acme/autopilot/Country/blockedValues";

describe("blocked values", () => {
  it("lists every value once across pages, ordered by createdAt then value", async () => {
    const h = setup();
    const token = await h.token("acme-viewer");
    const all: BlockedValue[] = [];
    for (let offset = 0; ; offset += 50) {
      const a = await h.call("GET", `${PATH}?offset=${offset}&limit=50`, { token });
      expect(a.status).toBe(200);
      const page = a.body as BlockedValue[];
      all.push(...page);
      if (page.length < 50) break;
    }
    expect(all.length).toBeGreaterThanOrEqual(120);
    expect(new Set(all.map((v) => v.value)).size).toBe(all.length);
    const sorted = [...all].sort(
      (a, b) => a.createdAt - b.createdAt || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0),
    );
    expect(all).toEqual(sorted);
    for (const v of all) expect(v).toMatchObject({ tenantId: "acme", lookupType: "rdm/lookupTypes/Country" });
  });

  it.each([
    ["no parameters", "", 0, 100],
    ["offset 100", "?offset=100", 100, 100],
    ["limit 10", "?limit=10", 0, 10],
    ["offset 5, limit 1", "?offset=5&limit=1", 5, 1],
    ["offset past the end", "?offset=100000", 100000, 100],
  ])("%s", async (_name, query, offset, limit) => {
    const h = setup();
    const all = h.ref.state.blockedValues.get("acme")?.get("Country") ?? [];
    const a = await h.call("GET", `${PATH}${query}`, { token: await h.token("acme-viewer") });
    expect(a.status).toBe(200);
    expect(a.body).toEqual(all.slice(offset, offset + limit));
  });

  it.each([
    ["offset=-1", "invalid_offset"],
    ["offset=abc", "invalid_offset"],
    ["limit=0", "invalid_limit"],
    ["limit=101", "invalid_limit"],
    ["limit=1.5", "invalid_limit"],
  ])("refuses %s with 400", async (query, error) => {
    const h = setup();
    const a = await h.call("GET", `${PATH}?${query}`, { token: await h.token("acme-viewer") });
    expect(a.status).toBe(400);
    expect(a.body).toMatchObject({
      error,
      error_description: expect.stringContaining(query.split("=")[0] as string),
    });
  });

  it.each([
    [
      "the URI form of the type",
      `/configuration/acme/autopilot/${encodeURIComponent("rdm/lookupTypes/Gender")}/blockedValues`,
      6,
    ],
    ["a type without blocked values", "/configuration/acme/autopilot/NoSuchType/blockedValues", 0],
    ["another tenant's type", "/configuration/globex/autopilot/Country/blockedValues", 12],
  ])("answers %s", async (_name, path, count) => {
    const h = setup();
    const token = await h.token(path.includes("globex") ? "globex-viewer" : "acme-viewer");
    const a = await h.call("GET", path, { token });
    expect(a.status).toBe(200);
    expect(a.body).toHaveLength(count);
  });
});
