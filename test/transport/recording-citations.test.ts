// A check that judges a recording another check made cites the exchanges the recording was made of, and
// shows them as its evidence; a recording read further by a second check is made of both checks' pages.
import { describe, expect, it } from "vitest";
import { Redactor } from "../../src/redaction/redact.ts";
import { citedRecordings } from "../../src/transport/recording-citations.ts";
import { CheckScope, CITED_EXCHANGES, TargetTransport } from "../../src/transport/transport.ts";
import { fakeFetch } from "../runner/fake-target.ts";

const URL_ = "http://127.0.0.1:9";

function setup() {
  const transport = new TargetTransport({ fetch: fakeFetch, redactor: new Redactor(), timeoutMs: 1000 });
  const shared = new Map<string, Promise<unknown>>();
  const check = (id: string) => {
    const scope = new CheckScope(id);
    return { scope, fetch: transport.bind(scope), recordings: citedRecordings(shared, scope) };
  };
  return { check, shared };
}

/** What readPages does: the first asker records, later askers get the same promise. */
async function recorded(
  recordings: Map<string, Promise<unknown>>,
  key: string,
  read: () => Promise<unknown>,
) {
  const known = recordings.get(key);
  if (known) return known;
  const reading = read();
  recordings.set(key, reading);
  return reading;
}

describe("citedRecordings", () => {
  it("a check judging another check's recording cites its exchanges and shows them as evidence", async () => {
    const { check } = setup();
    const a = check("scan/a");
    const b = check("scan/b");
    await a.fetch(`${URL_}/healthcheck`); // not part of the recording
    await recorded(a.recordings, "scroll", async () => {
      await a.fetch(`${URL_}/page1`);
      await a.fetch(`${URL_}/page2`);
    });
    await recorded(b.recordings, "scroll", async () => {
      throw new Error("b must not read: the recording is there");
    });
    expect(b.scope.requests).toBe(0);
    expect(b.scope.citations()).toEqual([1, 2]);
    expect(b.scope.exchanges.map((x) => new URL(x.request.url).pathname)).toEqual(["/page1", "/page2"]);
    expect(a.scope.citations()).toEqual([0, 1, 2]);
  });

  it("a recording read further by another check is made of both checks' pages", async () => {
    const { check } = setup();
    const a = check("scan/a");
    const b = check("scan/b");
    const c = check("scan/c");
    await recorded(a.recordings, "scroll", () => a.fetch(`${URL_}/page1`));
    // b goes on with the scroll where a stopped and records the longer one under the same key.
    await b.recordings.get("scroll");
    const further = b.fetch(`${URL_}/page2`);
    b.recordings.set("scroll", further);
    await further;
    await c.recordings.get("scroll");
    await Promise.resolve();
    expect(c.scope.citations()).toEqual([0, 1]);
    expect(b.scope.citations()).toEqual([0, 1]);
  });

  it("a failed recording is gone for the next asker, who reads anew", async () => {
    const { check, shared } = setup();
    const a = check("scan/a");
    const failing = Promise.reject(new Error("refused"));
    failing.catch(() => undefined);
    a.recordings.set("scroll", failing);
    a.recordings.delete("scroll");
    expect(shared.has("scroll")).toBe(false);
    expect(check("scan/b").recordings.get("scroll")).toBeUndefined();
  });
});

describe("CheckScope citations", () => {
  it("past the cap, the exchanges held as evidence are still cited", () => {
    const scope = new CheckScope("sample/many");
    const exchange = (id: number) => ({
      id,
      request: { method: "GET", url: `${URL_}/healthcheck`, headers: {} },
      durationMs: 0,
    });
    for (let id = 0; id < CITED_EXCHANGES + 20; id++) scope.remember(exchange(id));
    const cited = scope.citations();
    expect(cited.slice(0, 3)).toEqual([0, 1, 2]);
    for (const x of scope.exchanges) expect(cited).toContain(x.id);
    expect(cited.length).toBe(CITED_EXCHANGES + scope.exchanges.length);
  });
});
