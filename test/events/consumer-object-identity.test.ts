// The object a message is about is named by its sourceObjectUri header ("Headers: tenantId, eventType,
// sourceObjectUri"); a snapshot's object holds only the fields the filtering properties list, and uri is
// one of them ("For entities, object holds only the fields listed in the streaming property
// JMSEventsFilteringFields"). The producer choice uri-filtered-out lists every field but uri. The views here
// are made by small consumers of the test's own, judged in memory: one names the object by the header
// (correct), one by object.uri whenever an object is there (faulty: it drops every such snapshot).
import { describe, expect, it } from "vitest";
import { judgeView } from "../../src/events/consumer/consumer-judge.ts";
import type { ConsumerStream } from "../../src/events/consumer/consumer-stream.ts";
import type { ConsumerView } from "../../src/events/consumer/consumer-view.ts";
import { choiceStream, foldInArrivalOrder } from "./test-consumers.ts";

const stream = (name: string, seed = 1) => choiceStream(name, seed);

type NamedBy = "header" | "object-uri";

/** Arrival order with an objectVersion guard; removals marked; attributes of snapshots kept. */
function consume(s: ConsumerStream, namedBy: NamedBy): ConsumerView {
  return foldInArrivalOrder(
    s,
    (m, known) => {
      const object = m.payload.object as Record<string, unknown> | undefined;
      const fallback = m.payload.exceededQueueSizeLimit === true;
      return !fallback && object && "attributes" in object ? object.attributes : known;
    },
    (m) => {
      const object = m.payload.object as Record<string, unknown> | undefined;
      return namedBy === "header" || !object ? m.headers.sourceObjectUri : object.uri;
    },
  );
}

const mustFailures = (s: ConsumerStream, view: ConsumerView) =>
  judgeView(s, view).verdicts.filter((v) => v.status === "failed" && v.rule.level === "MUST");

describe("the producer choice uri-filtered-out", () => {
  it("sends snapshot objects without uri, each still not empty, each message named by its header", () => {
    const s = stream("uri-filtered-out");
    const objects = s.messages.map((m) => m.payload.object as Record<string, unknown> | undefined);
    const snapshots = objects.filter((o) => o !== undefined);
    expect(snapshots.length).toBeGreaterThan(100);
    for (const object of snapshots) {
      expect(object).not.toHaveProperty("uri");
      expect(Object.keys(object as object).length).toBeGreaterThan(0);
    }
    for (const m of s.messages) expect(typeof m.headers.sourceObjectUri).toBe("string");
  });

  it("passes a consumer that names each object by the sourceObjectUri header", () => {
    const s = stream("uri-filtered-out");
    expect(mustFailures(s, consume(s, "header"))).toEqual([]);
  });

  it("fails a consumer that names the object by object.uri, the cause named in the finding", () => {
    const s = stream("uri-filtered-out");
    const failed = mustFailures(s, consume(s, "object-uri"));
    expect(failed.map((v) => v.rule.id)).toContain("consumer/removal-not-live");
    const messages = failed.flatMap((v) => ("findings" in v ? v.findings.map((f) => f.message) : []));
    expect(
      messages.some((m) => /its object carries no uri.*sourceObjectUri header names the object/.test(m)),
    ).toBe(true);
  });

  it("the same faulty consumer passes where every object names itself: the choice is what exercises it", () => {
    const s = stream("snapshot");
    expect(mustFailures(s, consume(s, "object-uri"))).toEqual([]);
  });
});
