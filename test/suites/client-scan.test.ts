// The client's full scan always ends and says why: a table of scripted targets, one per way a scan ends.
import { describe, expect, it } from "vitest";
import { type ScanEnd, scanAll, scrollBody } from "../../src/client/index.ts";

type Page = { status?: number; body: unknown };

/** A fetch that answers the scripted pages in order (the last one forever) and records request bodies;
 *  a function scripts page i itself. */
function scripted(pages: Page[] | ((i: number) => Page)) {
  const bodies: (string | undefined)[] = [];
  let index = 0;
  const fetch = (async (_url: string | URL | Request, init?: RequestInit) => {
    bodies.push(init?.body === undefined ? undefined : String(init.body));
    const i = index++;
    const page = typeof pages === "function" ? pages(i) : (pages[Math.min(i, pages.length - 1)] as Page);
    return new Response(JSON.stringify(page.body), {
      status: page.status ?? 200,
      headers: { "content-type": "application/json" },
    });
  }) as typeof globalThis.fetch;
  return { fetch, bodies };
}

const config = (fetch: typeof globalThis.fetch) => ({ fetch, baseUrl: "http://t", rdmUrl: "http://t" });
const endpoint = { kind: "lookups", tenantId: "acme" } as const;

const cases: [
  string,
  { pages: Page[] | ((i: number) => Page); maxPages?: number; want: { end: ScanEnd; records: number } },
][] = [
  [
    "ends on a page without scrollId",
    {
      pages: [{ body: { scrollId: "a", values: [1, 2] } }, { body: { values: [3] } }],
      want: { end: "no-scroll-id", records: 3 },
    },
  ],
  [
    "ends on an empty page that still carries a scrollId",
    {
      pages: [{ body: { scrollId: "a", values: [1] } }, { body: { scrollId: "a", values: [] } }],
      want: { end: "empty-page", records: 1 },
    },
  ],
  [
    "stops when the same scrollId brings the same page again",
    {
      pages: [{ body: { scrollId: "a", values: [1] } }, { body: { scrollId: "a", values: [1] } }],
      want: { end: "repeated-scroll-id", records: 1 },
    },
  ],
  [
    "keeps going while a constant scrollId brings new pages",
    {
      pages: [
        { body: { scrollId: "a", values: [1] } },
        { body: { scrollId: "a", values: [2] } },
        { body: { values: [3] } },
      ],
      want: { end: "no-scroll-id", records: 3 },
    },
  ],
  [
    "stops at the page cap when new scroll ids keep coming",
    {
      pages: (i) => ({ body: { scrollId: `s${i}`, values: [i] } }),
      maxPages: 5,
      want: { end: "page-cap", records: 5 },
    },
  ],
  [
    "reports a refused page as error",
    {
      pages: [
        { body: { scrollId: "a", values: [1] } },
        { status: 400, body: { error: "invalid_scroll_id" } },
      ],
      want: { end: "error", records: 1 },
    },
  ],
  [
    "reports a 2xx answer without values as malformed",
    { pages: [{ body: { items: [] } }], want: { end: "malformed", records: 0 } },
  ],
];

describe("scanAll", () => {
  it.each(cases)("%s", async (_, { pages, maxPages, want }) => {
    const { fetch } = scripted(pages);
    const result = await scanAll(
      config(fetch),
      "token",
      endpoint,
      maxPages === undefined ? {} : { maxPages },
    );
    expect({ end: result.end, records: result.records.length }).toEqual(want);
  });

  it.each([
    ["object", '{"scrollId":"s-1"}'],
    ["raw-text", "s-1"],
    ["json-string", '"s-1"'],
  ] as const)("sends the scroll id as %s", async (encoding, want) => {
    const { fetch, bodies } = scripted([
      { body: { scrollId: "s-1", values: [1] } },
      { body: { values: [2] } },
    ]);
    await scanAll(config(fetch), "token", endpoint, { encoding });
    expect(bodies).toEqual([undefined, want]);
    expect(scrollBody("s-1", encoding)).toBeDefined();
  });
});
