// The consumer rules judge what a view holds, not how the consumer got there: an older objectVersion whose
// content is the latest's is the latest state; a fallback that is an object's first message may leave no
// attributes; after a GDPR removal only values of the object's messages count as data kept; without
// objectVersion any state a consumer may hold last is accepted; an ignored removal is the removal rule's.
// Views are made from the stream's truth, one object changed at a time, and judged in memory.
import { describe, expect, it } from "vitest";
import { judgeView } from "../../src/events/consumer/consumer-judge.ts";
import type { ConsumerStream, TruthEntry, TruthObject } from "../../src/events/consumer/consumer-stream.ts";
import { type ConsumerView, parseViewLine } from "../../src/events/consumer/consumer-view.ts";
import { contentGap, fallbackLosesAttributes, firstWinner } from "../../src/events/consumer/object-state.ts";
import { verdictFindings } from "../../src/rules/judge.ts";
import { choiceStream } from "./test-consumers.ts";

const LATEST = "consumer/latest-by-object-version";
const REMOVAL = "consumer/removal-not-live";
const GDPR = "consumer/gdpr-removal-leaves-no-data";
const FALLBACK = "consumer/fallback-is-not-an-empty-object";

const stream = (name: string, seed = 1) => choiceStream(name, seed);

type Line = Record<string, unknown>;

/** The latest snapshot of the object at or below `version` (by objectVersion). */
const snapshotAtOrBelow = (object: TruthObject, version: number): TruthEntry | undefined =>
  object.entries
    .filter((e) => e.kind === "snapshot" && e.version <= version)
    .sort((a, b) => b.version - a.version)[0];

/** The line a correct consumer writes for the object's state after `entry`. */
function lineOf(s: ConsumerStream, object: TruthObject, entry: TruthEntry): Line {
  const line: Line = { uri: object.uri, removed: entry.removes };
  if (s.choice.objectVersion !== "absent") line.objectVersion = entry.version;
  const snapshot = snapshotAtOrBelow(object, entry.version);
  if (!entry.removes && snapshot?.attributesText) line.attributes = JSON.parse(snapshot.attributesText);
  return line;
}

/** The true view, with the lines of `picked` objects replaced by `edit`. */
function viewWith(
  s: ConsumerStream,
  picked: TruthObject[],
  edit: (object: TruthObject, line: Line) => Line,
): ConsumerView {
  const records = new Map();
  const changed = new Set(picked);
  for (const object of s.objects.values()) {
    const line = lineOf(s, object, object.winner);
    const text = JSON.stringify(changed.has(object) ? edit(object, line) : line);
    records.set(object.uri, parseViewLine(text, records.size + 1));
  }
  return { records, lines: records.size };
}

const failed = (s: ConsumerStream, view: ConsumerView) =>
  judgeView(s, view)
    .verdicts.filter((v) => v.status === "failed")
    .map((v) => v.rule.id);

/** The listed message of the object just below the latest objectVersion. */
const previous = (object: TruthObject) =>
  object.entries
    .filter((e) => e.listed && e.version < object.winner.version)
    .sort((a, b) => b.version - a.version)[0];

const NEUTRAL = ["ENTITY_BUSINESS_PROCESS_CHANGED", "ENTITIES_MATCHES_CHANGED"];

describe("an older objectVersion whose content is the latest's", () => {
  it.each(["snapshot", "deltas"])(
    "is the latest state when the consumer skipped a workflow or potential-matches message (%s), with a note naming the types",
    (name) => {
      const s = stream(name);
      const skippers = [...s.objects.values()].filter(
        (o) => NEUTRAL.includes(o.winner.type) && previous(o) && !previous(o)?.removes,
      );
      expect(skippers.length).toBeGreaterThan(0);
      const view = viewWith(s, skippers, (o, line) => ({
        ...line,
        objectVersion: previous(o)?.version,
      }));
      expect(failed(s, view)).toEqual([]);
      const latest = judgeView(s, view).verdicts.find((v) => v.rule.id === LATEST);
      expect(latest?.status === "passed" ? latest.note : undefined).toMatch(
        new RegExp(
          `^${skippers.length} object\\(s\\) hold an older objectVersion .*skipped (ENTITY_BUSINESS_PROCESS_CHANGED|ENTITIES_MATCHES_CHANGED)`,
        ),
      );
    },
  );

  it.each(["snapshot", "deltas"])(
    "is not when a message after it changed the object (%s): the order rule fails, the view's line holding the older state",
    (name) => {
      const s = stream(name);
      const behind = [...s.objects.values()].filter(
        (o) =>
          o.winner.type === "ENTITY_CHANGED" &&
          !o.winner.unknownFields &&
          o.winner.kind === (name === "snapshot" ? "snapshot" : "deltas") &&
          // Across a gap the stream leaves (a fallback, deltas of another structure) the older state is legal.
          contentGap(o, { stream: s, versioned: true, judgesAttributes: name === "snapshot" }) ===
            undefined &&
          previous(o) &&
          !previous(o)?.removes &&
          (name !== "snapshot" ||
            snapshotAtOrBelow(o, (previous(o) as TruthEntry).version)?.attributesText !==
              o.winner.attributesText),
      );
      expect(behind.length).toBeGreaterThan(0);
      const view = viewWith(s, behind, (o) => lineOf(s, o, previous(o) as TruthEntry));
      expect(failed(s, view)).toEqual([LATEST]);
      const latest = judgeView(s, view).verdicts.find((v) => v.rule.id === LATEST);
      expect(verdictFindings(latest).length).toBe(behind.length);
    },
  );
});

describe("a large-object fallback", () => {
  const s = stream("fallback-uri-in-header");
  const fallbacks = [...s.objects.values()].filter((o) => o.winner.kind === "fallback" && !o.winner.removes);
  const first = fallbacks.filter((o) => !fallbackLosesAttributes(o, firstWinner(o)));
  const afterSnapshot = fallbacks.filter((o) => fallbackLosesAttributes(o, firstWinner(o)));

  it("that is the object's first message (no snapshot with attributes arrived before it): empty attributes or none lose nothing", () => {
    expect(first.length).toBeGreaterThan(0);
    for (const attributes of [{}, undefined]) {
      const view = viewWith(s, first, (_o, line) => ({ ...line, attributes }));
      expect(failed(s, view)).toEqual([]);
    }
  });

  it("after a snapshot that gave attributes: empty attributes are the fallback rule's finding, on those objects only", () => {
    expect(afterSnapshot.length).toBeGreaterThan(0);
    const view = viewWith(s, afterSnapshot, (_o, line) => ({ ...line, attributes: {} }));
    expect(failed(s, view)).toEqual([FALLBACK]);
    const verdict = judgeView(s, view).verdicts.find((v) => v.rule.id === FALLBACK);
    expect(
      verdictFindings(verdict)
        .map((f) => f.where)
        .sort(),
    ).toEqual(afterSnapshot.map((o) => o.uri).sort());
    expect(verdictFindings(verdict)[0]?.message).toMatch(/where an earlier snapshot gave attributes/);
  });

  it("the view holds the full state before it (that state's objectVersion and attributes): legal, the stream gives no content at the fallback", () => {
    const kept = fallbacks.filter((o) => previous(o) && !previous(o)?.removes);
    expect(kept.length).toBeGreaterThan(0);
    const view = viewWith(s, kept, (o) => lineOf(s, o, previous(o) as TruthEntry));
    expect(failed(s, view)).toEqual([]);
  });
});

describe("after a GDPR removal", () => {
  const s = stream("snapshot");
  const removed = [...s.objects.values()].filter((o) => o.winner.gdpr);
  const attributesOf = (o: TruthObject) => {
    const snapshot = snapshotAtOrBelow(o, o.winner.version);
    return snapshot?.attributesText ? JSON.parse(snapshot.attributesText) : undefined;
  };

  it("members the consumer keeps for itself (a flag, the event type's name, a note) are no data of the object", () => {
    expect(removed.length).toBeGreaterThan(0);
    const view = viewWith(s, removed, (_o, line) => ({
      ...line,
      gdprRemoved: true,
      lastEventType: "ENTITY_REMOVED_GDPR",
      audit: { reason: "removed at the person's request", handled: true },
      attributes: {},
    }));
    expect(failed(s, view)).toEqual([]);
  });

  it("a member holding values of the object's messages (a copy of its attributes) is data kept: the GDPR rule's finding, naming the member", () => {
    const withData = removed.filter((o) => attributesOf(o) !== undefined);
    expect(withData.length).toBeGreaterThan(0);
    const view = viewWith(s, withData, (o, line) => ({
      ...line,
      lastEventType: "ENTITY_REMOVED_GDPR",
      lastKnownAttributes: attributesOf(o),
    }));
    expect(failed(s, view)).toEqual([GDPR]);
    const verdict = judgeView(s, view).verdicts.find((v) => v.rule.id === GDPR);
    expect(verdictFindings(verdict).length).toBe(withData.length);
    expect(verdictFindings(verdict)[0]?.message).toMatch(/still holds its lastKnownAttributes \(values/);
    expect(verdictFindings(verdict)[0]?.message).not.toMatch(/its lastEventType/);
  });
});

describe("a removal the view does not hold", () => {
  it("taken for a change (live, with the removal's objectVersion) is the removal rule's finding alone", () => {
    const s = stream("snapshot");
    const removedObjects = [...s.objects.values()].filter((o) => o.winner.removes);
    expect(removedObjects.length).toBeGreaterThan(0);
    const view = viewWith(s, removedObjects, (o, line) => ({
      ...line,
      removed: false,
      ...(previous(o) ? { attributes: lineOf(s, o, previous(o) as TruthEntry).attributes } : {}),
    }));
    expect(failed(s, view)).toEqual([REMOVAL]);
    const verdict = judgeView(s, view).verdicts.find((v) => v.rule.id === REMOVAL);
    expect(verdictFindings(verdict).length).toBe(removedObjects.length);
  });
});

describe("without objectVersion (object-version-absent)", () => {
  const s = stream("object-version-absent");
  const objects = [...s.objects.values()];

  it("every object is judged", () => {
    const judgement = judgeView(
      s,
      viewWith(s, [], (_o, line) => line),
    );
    expect(judgement.judged).toBe(judgement.objects);
  });

  it("a GDPR removal followed by a re-creation: holding the removal and holding the re-creation both pass", () => {
    const recreated = objects.filter(
      (o) => o.winner.type === "ENTITY_CREATED" && o.entries.some((e) => e.gdpr),
    );
    expect(recreated.length).toBeGreaterThan(0);
    const holdsRemoval = viewWith(s, recreated, (o) => ({ uri: o.uri, removed: true }));
    expect(failed(s, holdsRemoval)).toEqual([]);
    expect(
      failed(
        s,
        viewWith(s, recreated, (_o, line) => line),
      ),
    ).toEqual([]);
  });

  it("the state of a message that arrived after the latest one (arrival order) passes", () => {
    const late = objects.filter((o) =>
      o.entries.some((e) => e.listed && e.position > firstWinner(o).position && e.version < o.winner.version),
    );
    expect(late.length).toBeGreaterThan(0);
    const view = viewWith(s, late, (o) => {
      const arrivedLast = o.entries.filter((e) => e.listed).at(-1) as TruthEntry;
      return lineOf(s, o, arrivedLast);
    });
    expect(failed(s, view)).toEqual([]);
  });

  it("a live state whose timestamp ties the removal's (time order cannot tell them apart) passes; held live without a tie, the removal rule's finding", () => {
    const tiedLive = (o: TruthObject) =>
      o.entries.find(
        (e) =>
          e.listed && !e.removes && e.timestamp !== undefined && e.timestamp === firstWinner(o).timestamp,
      );
    // Where no message carries a later timestamp than the removal (a node's clock behind can give an
    // older version a later one): time order then cannot tell the tied state from the removal.
    const latestByTime = (o: TruthObject) =>
      o.entries.every((e) => e.timestamp === undefined || e.timestamp <= (firstWinner(o).timestamp ?? 0));
    const tied = objects.filter(
      (o) => firstWinner(o).removes && tiedLive(o) !== undefined && latestByTime(o),
    );
    expect(tied.length).toBeGreaterThan(0);
    expect(
      failed(
        s,
        viewWith(s, tied, (o) => lineOf(s, o, tiedLive(o) as TruthEntry)),
      ),
    ).toEqual([]);
    const untied = objects.filter(
      (o) =>
        o.winner.removes &&
        !o.entries.some((e) => e.gdpr && !o.winner.gdpr) &&
        o.entries.every((e) => !e.listed || e.position <= firstWinner(o).position || e.removes) &&
        tiedLive(o) === undefined,
    );
    expect(untied.length).toBeGreaterThan(0);
    expect(
      failed(
        s,
        viewWith(s, untied, (o) => ({ uri: o.uri, removed: false })),
      ),
    ).toEqual([REMOVAL]);
  });

  it("an object whose removal arrived after every other message of it, held live: the removal rule's finding", () => {
    const removedLast = objects.filter(
      (o) =>
        o.winner.removes &&
        !o.entries.some((e) => e.gdpr && !o.winner.gdpr) &&
        o.entries.every((e) => !e.listed || e.position <= firstWinner(o).position || e.removes),
    );
    expect(removedLast.length).toBeGreaterThan(0);
    const view = viewWith(s, removedLast, (o) => ({ uri: o.uri, removed: false }));
    expect(failed(s, view)).toEqual([REMOVAL]);
  });
});
