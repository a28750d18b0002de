// Read once, judge many: a recorded scroll answers any shorter read without a request, a longer one goes on
// where the recording stopped, and what comes back is what a read of its own would have given.
import { describe, expect, it } from "vitest";
import type { CheckContext } from "../../src/check/index.ts";
import { createClient, type FullScanResult } from "../../src/client/index.ts";
import { readPages, type ScrollRead } from "../../suites/support/recorded-scrolls.ts";

/** A target holding `total` records, paged by the limit of each request; scroll ids name the offset and a
 *  generation, and `forget()` makes every scroll id issued so far unknown (400), as an expired scroll. */
function target(total: number) {
  let requests = 0;
  let generation = 0;
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    requests++;
    const url = new URL(String(input));
    const limit = Number(url.searchParams.get("limit") ?? 100);
    let offset = 0;
    if (init?.body !== undefined) {
      const [gen, at] = String((JSON.parse(String(init.body)) as { scrollId: string }).scrollId).split("-");
      if (Number(gen) !== generation) return new Response('{"error":"unknown scroll id"}', { status: 400 });
      offset = Number(at);
    }
    const values = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => ({
      code: `c${offset + i}`,
    }));
    const next = offset + values.length;
    const body = next < total ? { scrollId: `${generation}-${next}`, values } : { values };
    return new Response(JSON.stringify(body), {
      status: 200,
      headers: { "content-type": "application/json" },
    });
  }) as typeof globalThis.fetch;
  const ctx = (recordings?: Map<string, Promise<unknown>>) =>
    ({
      fetch,
      target: { baseUrl: "http://t", rdmUrl: "http://t" },
      token: async () => "token",
      ...(recordings ? { recordings } : {}),
    }) as unknown as CheckContext;
  return {
    ctx,
    fetch,
    requests: () => requests,
    forget: () => {
      generation++;
    },
  };
}

const read: ScrollRead = {
  role: "admin",
  endpoint: { kind: "lookups", tenantId: "acme" },
  query: { limit: 10 },
  encoding: "object",
};

/** What a read of its own gives: the client's scanAll with the same page cap. */
async function alone(total: number, maxPages: number): Promise<FullScanResult<unknown>> {
  const t = target(total);
  const client = createClient({ fetch: t.fetch, baseUrl: "http://t", rdmUrl: "http://t" });
  return client.scanAll("token", read.endpoint, { query: read.query, encoding: read.encoding, maxPages });
}

const shape = (r: FullScanResult<unknown>) => ({
  pages: r.pages.map((p) => p.values),
  end: r.end,
  capped: r.capped,
});

describe("recorded scrolls", () => {
  it.each([
    ["a shorter read after a longer one", [5, 2], 5],
    ["a longer read after a shorter one goes on where it stopped", [2, 5], 5],
    ["a read to the end after a prefix", [3, 1000], 6],
    ["the same prefix twice", [3, 3], 3],
    ["a prefix after the whole scroll", [1000, 4], 6],
  ] as const)("%s: answers as a read of its own, each page asked once", async (_, caps, want) => {
    const t = target(55);
    const ctx = t.ctx(new Map());
    for (const maxPages of caps)
      expect(shape(await readPages(ctx, read, maxPages))).toEqual(shape(await alone(55, maxPages)));
    expect(t.requests()).toBe(want);
  });

  it("reads every time without recordings (a check that may change data)", async () => {
    const t = target(55);
    const ctx = t.ctx();
    await readPages(ctx, read, 3);
    await readPages(ctx, read, 3);
    expect(t.requests()).toBe(6);
  });

  it("keeps scrolls of other queries apart", async () => {
    const t = target(55);
    const ctx = t.ctx(new Map());
    await readPages(ctx, read, 1000);
    const other = await readPages(ctx, { ...read, query: { limit: 20 } }, 1000);
    expect(other.records).toHaveLength(55);
    expect(other.pages).toHaveLength(3);
    expect(t.requests()).toBe(6 + 3);
  });

  it("reads a scroll anew when its recorded scroll id no longer answers", async () => {
    const t = target(55);
    const ctx = t.ctx(new Map());
    await readPages(ctx, read, 2);
    t.forget();
    const whole = await readPages(ctx, read, 1000);
    expect(shape(whole)).toEqual(shape(await alone(55, 1000)));
    // Two pages, one refused continuation, then the whole scroll of six pages.
    expect(t.requests()).toBe(2 + 1 + 6);
  });

  it("sends one scroll for two checks asking at once", async () => {
    const t = target(55);
    const ctx = t.ctx(new Map());
    const [a, b] = await Promise.all([readPages(ctx, read, 1000), readPages(ctx, read, 1000)]);
    expect(a.records).toHaveLength(55);
    expect(b.records).toEqual(a.records);
    expect(t.requests()).toBe(6);
  });
});
