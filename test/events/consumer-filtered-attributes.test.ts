// A member the filtering fields leave out is not removed: "For entities, object holds only the fields
// listed in the streaming property JMSEventsFilteringFields." Under the producer choice
// attributes-filtered-out the configuration leaves attributes out from the stream's middle on. The views
// here are made by small consumers of the test's own (arrival order with an objectVersion guard), judged in
// memory: those that keep what earlier snapshots gave (or hold nothing where nothing was given) pass; one
// that replaces it with an empty set (each snapshot taken as the whole state, which the document does not
// rule out) passes the attributes rule (MUST) and is consumer/filtered-attributes-kept's finding (SHOULD,
// CONSUMER-FILTER-01); attributes no snapshot gave stay the attributes rule's.
import { describe, expect, it } from "vitest";
import { type ConsumerFinding, judgeView } from "../../src/events/consumer/consumer-judge.ts";
import type { ConsumerStream } from "../../src/events/consumer/consumer-stream.ts";
import { type ConsumerView, parseViewLine } from "../../src/events/consumer/consumer-view.ts";
import { choiceStream, foldInArrivalOrder, REMOVALS } from "./test-consumers.ts";

const RULE = "consumer/attributes-of-the-latest-state";
const stream = (name: string, seed = 1) => choiceStream(name, seed);

/** What a test consumer writes after a snapshot whose object has no attributes member. */
type OnFilteredOut =
  | "keep" // keeps what it held (correct)
  | "empty" // writes {}: the member taken as removed (faulty)
  | "keep-or-empty"; // keeps what it held, {} where it held nothing (correct)

/** A consumer of the test's own: arrival order, a message of an objectVersion not above the held one
 *  skipped, removals marked, a fallback keeps the attributes held. */
function consume(s: ConsumerStream, onFilteredOut: OnFilteredOut): ConsumerView {
  return foldInArrivalOrder(s, (m, known) => {
    const object = m.payload.object as Record<string, unknown> | undefined;
    if (m.payload.exceededQueueSizeLimit === true || !object) return known;
    if ("attributes" in object) return object.attributes;
    if (onFilteredOut === "empty") return {};
    return onFilteredOut === "keep-or-empty" ? (known ?? {}) : known;
  });
}

const verdictOf = (s: ConsumerStream, view: ConsumerView) => {
  const judgement = judgeView(s, view);
  return {
    failed: judgement.verdicts.filter((v) => v.status === "failed").map((v) => v.rule.id),
    // Read as the union's members: each test's status expectation says which one it is.
    rule: judgement.verdicts.find((v) => v.rule.id === RULE) as
      | { status: string; opportunities?: number; findings: ConsumerFinding[]; reason?: string }
      | undefined,
  };
};

describe("the producer choice attributes-filtered-out", () => {
  it("leaves attributes out of entity snapshots from the stream's middle on, the rest of the object kept", () => {
    const s = stream("attributes-filtered-out");
    const half = Math.floor(s.messageCount / 2);
    // First sendings only: a re-send is a copy of what was sent, before the configuration changed too.
    const sent = new Set<string>();
    const entitySnapshots = s.messages
      .map((m, at) => {
        const key = `${String(m.headers.sourceObjectUri)} ${String(m.headers.objectVersion)}`;
        const again = sent.has(key);
        sent.add(key);
        return { at, again, object: m.payload.object as Record<string, unknown> | undefined };
      })
      .filter((e) => !e.again && e.object && String(e.object.uri).startsWith("entities/"))
      // A removal's object has no attributes of its own.
      .filter((e) => !REMOVALS.test(String(s.messages[e.at]?.headers.eventType)));
    const before = entitySnapshots.filter((e) => e.at < half - 20);
    const after = entitySnapshots.filter((e) => e.at >= half + 20);
    expect(before.length).toBeGreaterThan(50);
    expect(after.length).toBeGreaterThan(50);
    expect(before.every((e) => e.object && "attributes" in e.object)).toBe(true);
    // "The object cannot be empty": uri and type stay.
    expect(after.every((e) => e.object && !("attributes" in e.object) && e.object.uri && e.object.type)).toBe(
      true,
    );
  });
});

describe("a snapshot that leaves attributes out removes none", () => {
  it.each<OnFilteredOut>(["keep", "keep-or-empty"])(
    "a consumer that keeps what earlier snapshots gave passes (%s), judged on objects whose latest snapshot left them out",
    (mode) => {
      const s = stream("attributes-filtered-out");
      const { failed, rule } = verdictOf(s, consume(s, mode));
      expect(failed).toEqual([]);
      expect(rule?.status).toBe("passed");
      // Objects whose latest message is a snapshot without attributes after one that gave them.
      const filtered = [...s.objects.values()].filter((o) => {
        const w = o.winner;
        return !w.removes && w.kind === "snapshot" && w.attributesText === null;
      });
      expect(filtered.length).toBeGreaterThan(10);
    },
  );

  it("replacing the attributes with an empty set is consumer/filtered-attributes-kept's finding alone (SHOULD), naming the filtering fields and the snapshot that gave them", () => {
    const s = stream("attributes-filtered-out");
    const judgement = judgeView(s, consume(s, "empty"));
    const failed = judgement.verdicts.filter((v) => v.status === "failed").map((v) => v.rule.id);
    expect(failed).toEqual(["consumer/filtered-attributes-kept"]);
    expect(judgement.verdicts.find((v) => v.rule.id === RULE)?.status).toBe("passed");
    const rule = judgement.verdicts.find((v) => v.rule.id === "consumer/filtered-attributes-kept") as
      | { findings: ConsumerFinding[] }
      | undefined;
    expect(rule?.findings.length).toBeGreaterThan(5);
    for (const finding of rule?.findings ?? []) {
      expect(finding.message).toMatch(
        /carries an object without attributes: the streaming configuration \(JMSEventsFilteringFields\) left them out, which removes none of them, yet the view replaced the attributes message #\d+ \(\w+, objectVersion \d+\) gave with nothing/,
      );
      expect(finding.evidence.view.attributes).toBe("empty");
      expect(finding.evidence.alsoExplainedBy).toBeUndefined();
    }
  });

  it("an object re-created after a removal by a snapshot without attributes has nothing to keep: an empty set passes", () => {
    const s = stream("attributes-filtered-out");
    const recreated = [...s.objects.values()].filter((o) => {
      const w = o.winner;
      const removedBefore = o.entries.some((e) => e.removes && e.version < w.version);
      return !w.removes && w.kind === "snapshot" && w.attributesText === null && removedBefore;
    });
    expect(recreated.length).toBeGreaterThan(0);
    const view = consume(s, "keep-or-empty");
    const judgement = judgeView(s, view);
    const failedUris = judgement.verdicts.flatMap((v) =>
      v.status === "failed" ? v.findings.map((f) => f.where) : [],
    );
    for (const o of recreated) expect(failedUris).not.toContain(o.uri);
  });

  it("attributes that no earlier snapshot gave are a finding too", () => {
    const s = stream("attributes-filtered-out");
    const view = consume(s, "keep");
    const records = new Map(view.records);
    let changed = 0;
    for (const object of s.objects.values()) {
      const w = object.winner;
      const r = records.get(object.uri);
      if (changed >= 3 || !r || r.removed || w.kind !== "snapshot" || w.attributesText !== null) continue;
      if (r.attributes === undefined || r.attributesEmpty) continue;
      const line = {
        uri: r.uri,
        removed: false,
        objectVersion: r.objectVersion,
        attributes: { Made: [{ value: "up" }] },
      };
      records.set(r.uri, parseViewLine(JSON.stringify(line), r.line));
      changed += 1;
    }
    expect(changed).toBe(3);
    const { failed, rule } = verdictOf(s, { records, lines: records.size });
    expect(failed).toEqual([RULE]);
    expect(rule?.findings).toHaveLength(3);
    expect(rule?.findings[0]?.message).toMatch(
      /yet the view holds attributes that no snapshot before it gave/,
    );
  });

  it("under the default producer choice nothing is left out: both consumers make the same view, and both pass", () => {
    const s = stream("snapshot");
    expect(verdictOf(s, consume(s, "empty")).failed).toEqual([]);
    expect(verdictOf(s, consume(s, "keep")).failed).toEqual([]);
  });
});
