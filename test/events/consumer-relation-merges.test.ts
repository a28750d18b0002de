// "RELATION_LOST_MERGE | generated when merging relationships, for loser relations": a loser relation is
// merged away, a removal (CONSUMER-REMOVAL-01, judged by consumer/removal-not-live). The consumer streams
// merge an entity's live relations away with it. The views here are made by small consumers of the test's
// own, judged in memory: one knows every removal type of the document (correct), one misses
// RELATION_LOST_MERGE and ignores it, as a type it does not know (faulty).
import { describe, expect, it } from "vitest";
import { judgeView } from "../../src/events/consumer/consumer-judge.ts";
import type { ConsumerStream } from "../../src/events/consumer/consumer-stream.ts";
import type { ConsumerView } from "../../src/events/consumer/consumer-view.ts";
import { generateStream } from "../../src/events/generate/index.ts";
import { REMOVALS as ALL_REMOVALS, choiceStream, type Held, isUnlisted, viewOf } from "./test-consumers.ts";

const WITHOUT_RELATION_MERGES = /_REMOVED(_GDPR)?$|^ENTITY_LOST_MERGE$/;

const stream = choiceStream;

/** Arrival order with an objectVersion guard; a type it does not take for a removal is a change. */
function consume(s: ConsumerStream, removals: RegExp): ConsumerView {
  const held = new Map<string, Held>();
  for (const m of s.messages) {
    const uri = String(m.headers.sourceObjectUri);
    const type = String(m.headers.eventType);
    const version = Number(m.headers.objectVersion);
    if (isUnlisted(type) || type.startsWith("ACTIVITY_")) continue;
    if (type === "RELATION_LOST_MERGE" && !removals.test(type)) continue; // unknown to it: skipped
    const current = held.get(uri);
    if (current && version <= current.version) continue;
    held.set(uri, { version, removed: removals.test(type) });
  }
  return viewOf(held);
}

const mustFailures = (s: ConsumerStream, view: ConsumerView) =>
  judgeView(s, view)
    .verdicts.filter((v) => v.status === "failed" && v.rule.level === "MUST")
    .map((v) => v.rule.id);

describe("loser relations of an entity merge (RELATION_LOST_MERGE)", () => {
  it("come in the consumer streams, each the last message of its relation", () => {
    const s = stream();
    const lost = [...s.objects.values()].filter((o) =>
      o.entries.some((e) => e.type === "RELATION_LOST_MERGE"),
    );
    expect(lost.length).toBeGreaterThan(5);
    for (const object of lost) {
      expect(object.uri).toMatch(/^relations\//);
      expect(object.winner.type).toBe("RELATION_LOST_MERGE");
      expect(object.winner.removes).toBe(true);
    }
  });

  it("are not in a generated stream unless asked for: recorded seeds keep their streams", () => {
    const plain = generateStream({ seed: 1, count: 1000 });
    expect(plain.messages.some((m) => m.headers.eventType === "RELATION_LOST_MERGE")).toBe(false);
    const asked = generateStream({ seed: 1, count: 1000, relationMerges: true });
    expect(asked.messages.some((m) => m.headers.eventType === "RELATION_LOST_MERGE")).toBe(true);
  });

  it.each(["snapshot", "deltas", "object-version-absent"])(
    "under %s: a consumer that ignores them fails consumer/removal-not-live only; one that knows them passes",
    (name) => {
      const s = stream(name);
      expect(mustFailures(s, consume(s, WITHOUT_RELATION_MERGES))).toEqual(["consumer/removal-not-live"]);
      expect(mustFailures(s, consume(s, ALL_REMOVALS))).toEqual([]);
    },
  );
});
