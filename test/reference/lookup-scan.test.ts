// The scroll protocol on the lookups scan (SCAN-*, LOOKUP-SCAN-*); autopilot scans share the same code.
import { describe, expect, it } from "vitest";
import type { Lookup } from "../../src/reference/index.ts";
import { type Harness, setup } from "./harness.ts";

const identity = (l: Lookup) => `${l.type}|${l.code}`;
const fixtureLookups = (h: Harness, tenant = "acme") => [
  ...(h.ref.state.lookups.get(tenant)?.inIdentityOrder() ?? []),
];

async function firstPage(h: Harness, query: string, body?: unknown, headers?: Record<string, string>) {
  const token = await h.token("acme-viewer");
  return h.call("POST", `/lookups/acme/_scan${query}`, { token, body, headers });
}

describe("lookups scan: paging", () => {
  it("returns every record exactly once, in identity order, and ends with a page without scrollId", async () => {
    const h = setup();
    const all = fixtureLookups(h);
    const { pages, values } = await h.scanAll("/lookups/acme/_scan?limit=37", await h.token("acme-viewer"));
    expect(pages.length).toBe(Math.ceil(all.length / 37));
    for (const page of pages.slice(0, -1)) expect(page).toHaveLength(37);
    expect((values as Lookup[]).map(identity)).toEqual(all.map(identity));
    expect(all.length).toBeGreaterThanOrEqual(250);
  });

  it("defaults the limit to 100", async () => {
    const h = setup();
    const a = await firstPage(h, "");
    expect((a.body as { values: unknown[] }).values).toHaveLength(100);
    expect(a.body).toHaveProperty("scrollId", expect.any(String));
  });

  it.each([["1"], ["100"]])("accepts limit=%s", async (limit) => {
    const h = setup();
    const a = await firstPage(h, `?limit=${limit}`);
    expect(a.status).toBe(200);
    expect((a.body as { values: unknown[] }).values).toHaveLength(Number(limit));
  });

  it.each([["0"], ["101"], ["-1"], ["abc"], ["1.5"], [""], ["1e2"]])(
    "refuses limit=%s with 400 invalid_limit",
    async (limit) => {
      const h = setup();
      const a = await firstPage(h, `?limit=${limit}`);
      expect(a.status).toBe(400);
      expect(a.body).toMatchObject({
        error: "invalid_limit",
        error_description: expect.stringContaining("limit"),
      });
    },
  );

  it.each([
    ["no body", undefined, {}],
    ["a null JSON body", "null", { "content-type": "application/json" }],
    ["an empty JSON object", "{}", { "content-type": "application/json" }],
  ])("opens a scroll with %s", async (_name, body, headers) => {
    const h = setup();
    const a = await firstPage(h, "?limit=5", body, headers);
    expect(a.status).toBe(200);
    expect((a.body as { values: Lookup[] }).values.map(identity)).toEqual(
      fixtureLookups(h).slice(0, 5).map(identity),
    );
  });

  it.each([
    [
      "a JSON object",
      (id: string) => ({
        body: JSON.stringify({ scrollId: id }),
        headers: { "content-type": "application/json" },
      }),
    ],
    ["the raw id as text/plain", (id: string) => ({ body: id, headers: { "content-type": "text/plain" } })],
    ["the raw id without a Content-Type", (id: string) => ({ body: id, headers: {} })],
    [
      "a JSON string",
      (id: string) => ({ body: JSON.stringify(id), headers: { "content-type": "application/json" } }),
    ],
  ])("takes the next-page scroll id as %s", async (_name, encode) => {
    const h = setup();
    const token = await h.token("acme-viewer");
    const first = await h.call("POST", "/lookups/acme/_scan?limit=5", { token });
    const id = (first.body as { scrollId: string }).scrollId;
    const second = await h.call("POST", "/lookups/acme/_scan", { token, ...encode(id) });
    expect(second.status).toBe(200);
    expect((second.body as { values: Lookup[] }).values.map(identity)).toEqual(
      fixtureLookups(h).slice(5, 10).map(identity),
    );
  });

  it("ignores the query parameters of later pages", async () => {
    const h = setup();
    const token = await h.token("acme-viewer");
    const first = await h.call("POST", "/lookups/acme/_scan?limit=5", { token });
    const id = (first.body as { scrollId: string }).scrollId;
    const second = await h.call("POST", "/lookups/acme/_scan?limit=50&order=desc&filter=bogus(", {
      token,
      body: { scrollId: id },
    });
    expect((second.body as { values: Lookup[] }).values.map(identity)).toEqual(
      fixtureLookups(h).slice(5, 10).map(identity),
    );
  });

  it("answers an empty page without scrollId when nothing matches", async () => {
    const h = setup();
    const a = await firstPage(h, `?filter=${encodeURIComponent("equals(code,'no-such-code')")}`);
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ values: [] });
  });

  it("keeps the snapshot: lookups deleted while the scroll is open are still served once", async () => {
    const h = setup();
    const token = await h.token("acme-viewer");
    const editor = await h.token("acme-editor");
    const before = fixtureLookups(h).map(identity);
    const first = await h.call("POST", "/lookups/acme/_scan?limit=50", { token });
    let id = (first.body as { scrollId: string }).scrollId;
    const seen = (first.body as { values: Lookup[] }).values.map(identity);
    expect((await h.call("POST", "/tasks/acme", { token: editor, body: { type: "delete" } })).status).toBe(
      202,
    );
    await h.until(async () => fixtureLookups(h).length === 0);
    for (;;) {
      const a = await h.call("POST", "/lookups/acme/_scan", { token, body: { scrollId: id } });
      const page = a.body as { scrollId?: string; values: Lookup[] };
      seen.push(...page.values.map(identity));
      if (!page.scrollId) break;
      id = page.scrollId;
    }
    expect(seen).toEqual(before);
    const fresh = await h.call("POST", "/lookups/acme/_scan", { token });
    expect(fresh.body).toEqual({ values: [] });
  });
});

describe("lookups scan: scroll ids", () => {
  it.each([["an unknown id", async () => "no-such-scroll"]])(
    "refuses %s with 400 invalid_scroll_id",
    async (_name, id) => {
      const h = setup();
      const a = await firstPage(h, "", { scrollId: await id() });
      expect(a.status).toBe(400);
      expect(a.body).toMatchObject({
        error: "invalid_scroll_id",
        error_description: expect.stringContaining("no-such-scroll"),
      });
    },
  );

  it("refuses the id of a finished scroll", async () => {
    const h = setup();
    const token = await h.token("acme-viewer");
    const first = await h.call("POST", "/lookups/acme/_scan?limit=60", { token, body: undefined });
    let id = (first.body as { scrollId: string }).scrollId;
    let last = id;
    while (id) {
      last = id;
      const a = await h.call("POST", "/lookups/acme/_scan", { token, body: { scrollId: id } });
      id = (a.body as { scrollId?: string }).scrollId as string;
    }
    const again = await h.call("POST", "/lookups/acme/_scan", { token, body: { scrollId: last } });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ error: "invalid_scroll_id" });
  });

  it("expires a scroll after 5 minutes without use, and not before", async () => {
    const h = setup();
    const token = await h.token("acme-viewer");
    const first = await h.call("POST", "/lookups/acme/_scan?limit=10", { token });
    const id = (first.body as { scrollId: string }).scrollId;
    h.clock.advance(4 * 60_000);
    expect((await h.call("POST", "/lookups/acme/_scan", { token, body: { scrollId: id } })).status).toBe(200);
    h.clock.advance(5 * 60_000 - 1);
    expect((await h.call("POST", "/lookups/acme/_scan", { token, body: { scrollId: id } })).status).toBe(200);
    h.clock.advance(5 * 60_000);
    const expired = await h.call("POST", "/lookups/acme/_scan", { token, body: { scrollId: id } });
    expect(expired.status).toBe(400);
    expect(expired.body).toMatchObject({
      error: "invalid_scroll_id",
      error_description: expect.stringContaining("expire"),
    });
  });

  it("does not accept a lookups scroll id on another tenant or another scan", async () => {
    const h = setup();
    const token = await h.token("acme-admin");
    const first = await h.call("POST", "/lookups/acme/_scan?limit=10", { token });
    const id = (first.body as { scrollId: string }).scrollId;
    const stats = await h.call("POST", "/configuration/acme/autopilot/stats/_scan", {
      token,
      body: { scrollId: id },
    });
    expect(stats.status).toBe(400);
    const globex = await h.call("POST", "/lookups/globex/_scan", {
      token: await h.token("globex-admin"),
      body: { scrollId: id },
    });
    expect(globex.status).toBe(400);
  });

  it.each([
    ["a scrollId that is a number", '{"scrollId": 5}', "invalid_scroll_id"],
    ["an array body", "[1]", "validation_error"],
    ["malformed JSON", '{"scrollId": ', "invalid_json"],
  ])("refuses %s with 400", async (_name, body, error) => {
    const h = setup();
    const a = await firstPage(h, "", body, { "content-type": "application/json" });
    expect(a.status).toBe(400);
    expect(a.body).toMatchObject({ error });
  });
});

describe("lookups scan: sort and order", () => {
  const byField = (field: keyof Lookup) => (a: Lookup, b: Lookup) => {
    const x = a[field];
    const y = b[field];
    if (x === undefined && y === undefined) return 0;
    if (x === undefined) return 1;
    if (y === undefined) return -1;
    return x < y ? -1 : x > y ? 1 : 0;
  };

  it.each([
    ["code", "asc"],
    ["code", "desc"],
    ["updateDate", "asc"],
    ["updateDate", "DESC"],
    ["enabled", "asc"],
    ["version", "desc"],
    ["endDate", "asc"],
    ["endDate", "desc"],
    ["noSuchField", "asc"],
  ] as const)(
    "sorts by %s %s across pages, ties by identity, missing values last in asc",
    async (field, order) => {
      const h = setup();
      const expected = fixtureLookups(h).sort(byField(field as keyof Lookup)); // stable: ties keep identity order
      if (order.toLowerCase() === "desc") expected.reverse();
      const { values } = await h.scanAll(
        `/lookups/acme/_scan?limit=70&sort=${field}&order=${order}`,
        await h.token("acme-viewer"),
      );
      expect((values as Lookup[]).map(identity)).toEqual(expected.map(identity));
    },
  );

  it.each([
    ["order=up", "?order=up", "invalid_order"],
    ["a dotted sort path", "?sort=sourceMappings.source", "invalid_sort"],
    ["a sort with spaces", `?sort=${encodeURIComponent("code desc")}`, "invalid_sort"],
  ])("refuses %s with 400", async (_name, query, error) => {
    const h = setup();
    const a = await firstPage(h, query);
    expect(a.status).toBe(400);
    expect(a.body).toMatchObject({ error });
  });
});
