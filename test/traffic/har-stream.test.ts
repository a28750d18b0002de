// The streamed reader of recorded traffic: entries found wherever chunks split them, strings holding
// braces and quotes, a gzip file by its magic bytes, NDJSON by line; truncated, malformed and foreign
// input refused with what is wrong and the fix.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { harEntries, ndjsonEntries, type RawEntry, rawEntries } from "../../src/traffic/har-stream.ts";
import { exchangeOfEntry } from "../../src/traffic/recorded-entry.ts";

async function* chunked(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

async function all(entries: AsyncIterable<RawEntry>): Promise<RawEntry[]> {
  const out: RawEntry[] = [];
  for await (const e of entries) out.push(e);
  return out;
}

const entry = (url: string, text = "") => ({
  startedDateTime: "2026-01-01T00:00:00.000Z",
  time: 3,
  request: { method: "GET", url, headers: [{ name: "Authorization", value: "Bearer abcdefgh1234" }] },
  response: {
    status: 200,
    headers: [{ name: "Content-Type", value: "application/json" }],
    content: { text },
  },
});

// Keys named like the outer ones inside an entry, braces and escaped quotes in strings.
const HAR = JSON.stringify(
  {
    log: {
      version: "1.2",
      pages: [{ entries: "not these" }],
      entries: [
        entry("https://a.example/status", '{"a":"}{\\"entries\\":[","b":[1,{"c":2}]}'),
        entry("https://a.example/version"),
      ],
      after: { entries: [entry("https://ignored.example/")] },
    },
  },
  null,
  1,
);

describe("harEntries", () => {
  it.each([1, 3, 7, 64, 100_000])("finds each of log.entries in chunks of %i characters", async (size) => {
    const found = await all(harEntries(chunked(HAR, size)));
    expect(
      found.map((e) => ("value" in e ? (e.value as ReturnType<typeof entry>).request.url : e.skipped)),
    ).toEqual(["https://a.example/status", "https://a.example/version"]);
  });

  it("refuses a truncated HAR, saying how many entries were complete", async () => {
    await expect(all(harEntries(chunked(HAR.slice(0, HAR.length - 40), 50)))).rejects.toThrow(
      /truncated HAR: the file ends inside its JSON after 2 complete entries/,
    );
  });

  it("refuses what is not a HAR: not JSON, or JSON without log.entries", async () => {
    await expect(all(harEntries(chunked("GET / HTTP/1.1", 5)))).rejects.toThrow(/not a HAR: it starts with/);
    await expect(all(harEntries(chunked('{"log":{"pages":[]}}', 5)))).rejects.toThrow(/no log.entries/);
    await expect(all(harEntries(chunked('{"log":{"entries":[{"request": }]}}', 5)))).rejects.toThrow(
      /entry 0 is not valid JSON/,
    );
  });
});

describe("ndjsonEntries", () => {
  it("reads one exchange a line, skipping blank lines, and names a bad line", async () => {
    const text = `${JSON.stringify(entry("https://a/1"))}\n\n${JSON.stringify(entry("https://a/2"))}`;
    expect((await all(ndjsonEntries(chunked(text, 9)))).length).toBe(2);
    await expect(all(ndjsonEntries(chunked(`${text}\n{oops`, 9)))).rejects.toThrow(/line 4 is not JSON/);
  });
});

describe("rawEntries", () => {
  it("reads a gzip file by its magic bytes, whatever its name, and stdin", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lckit-har-"));
    const file = join(dir, "traffic.har");
    writeFileSync(file, gzipSync(HAR));
    expect((await all(rawEntries(file))).length).toBe(2);
    expect((await all(rawEntries("-", { stdin: Readable.from([Buffer.from(HAR)]) }))).length).toBe(2);
  });

  it("names a file that cannot be read", () => {
    expect(() => rawEntries("/nonexistent/traffic.har")).toThrow(
      /cannot read \/nonexistent\/traffic.har: ENOENT/,
    );
  });
});

describe("exchangeOfEntry", () => {
  it("takes a HAR entry and the kit's Exchange alike, headers in lower case, times when given", () => {
    const har = exchangeOfEntry(entry("https://a/x", "{}"), 0);
    expect(har).toMatchObject({ method: "GET", at: Date.parse("2026-01-01T00:00:00.000Z"), status: 200 });
    expect(har).toHaveProperty("headers.authorization", "Bearer abcdefgh1234");
    const kit = exchangeOfEntry(
      {
        request: { method: "post", url: "https://a/y", headers: { A: "1" }, body: "b" },
        response: { status: 201, headers: {}, body: "" },
        durationMs: 2,
      },
      1,
    );
    expect(kit).toMatchObject({ method: "POST", body: "b", status: 201, at: undefined, headers: { a: "1" } });
    expect(exchangeOfEntry({ request: {} }, 2)).toEqual({
      notAnExchange: "entry 2 has no request method and URL",
    });
  });

  it("marks a body the recorder cut, or one it did not keep", () => {
    const cut = {
      ...entry("https://a/x", "{"),
      response: {
        status: 200,
        headers: [],
        content: { text: "{", comment: "cut at 65536 bytes by the kit" },
      },
    };
    expect(exchangeOfEntry(cut, 0)).toHaveProperty("responseCut", true);
    const notKept = {
      ...entry("https://a/x"),
      response: { status: 200, headers: [], content: { size: 900 } },
    };
    expect(exchangeOfEntry(notKept, 0)).toHaveProperty("responseCut", true);
  });
});
