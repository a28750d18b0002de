// The HAR writer keeps at most HAR_BODY_LIMIT bytes of an answer and says when it cut one: an answer over
// the limit, and one that broke off while arriving (its entry is still written).
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HAR_BODY_LIMIT, HarWriter } from "../../src/evidence/har.ts";

interface Content {
  text: string;
  comment?: string;
}

/** The response contents the writer records for these answers, in order. */
async function recorded(answers: (() => Response)[]): Promise<Content[]> {
  const file = join(mkdtempSync(join(tmpdir(), "lckit-har-")), "evidence.har");
  const har = new HarWriter(file, { name: "lckit", version: "test" }, []);
  let next = 0;
  const fetch = har.wrap(async () => (answers[next++] as () => Response)());
  for (const _ of answers) {
    // The caller reads the answer, as the runner does: the writer's copy of the body flows with it.
    const response = await fetch(new Request("http://target.test/x"));
    await response.arrayBuffer().catch(() => undefined);
  }
  await har.close();
  const log = JSON.parse(readFileSync(file, "utf8")) as {
    log: { entries: { response: { content: Content } }[] };
  };
  return log.log.entries.map((entry) => entry.response.content);
}

/** A body that sends `bytes` bytes of "a" and then breaks off. */
function brokenBody(bytes: number): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream({
    pull(controller) {
      if (sent) return controller.error(new Error("connection reset"));
      controller.enqueue(new TextEncoder().encode("a".repeat(bytes)));
      sent = true;
    },
  });
}

describe("the HAR writer's answer bodies", () => {
  it("keeps a body within the limit whole, cuts one over it at the limit and says so", async () => {
    const [small, large] = await recorded([
      () => new Response("small body"),
      () => new Response("b".repeat(HAR_BODY_LIMIT + 10)),
    ]);
    expect(small).toEqual({ size: 10, mimeType: "text/plain;charset=UTF-8", text: "small body" });
    expect(large?.text).toBe("b".repeat(HAR_BODY_LIMIT));
    expect(large?.comment).toContain(`cut at ${HAR_BODY_LIMIT} bytes`);
  });

  it("still writes the entry of a body that broke off, marked cut", async () => {
    const [broken] = await recorded([() => new Response(brokenBody(5))]);
    // What came before the break may be dropped with it (a stream's error discards what it queued).
    expect("aaaaa".startsWith(broken?.text ?? "x")).toBe(true);
    expect(broken?.comment).toContain("cut at");
  });
});
