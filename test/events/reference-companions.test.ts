// The reference-companion rules (EVENT-TYPES-04, EVENT-STREAM-02) over hand-built streams: each faulty
// stream caught by its rule only, each legal one (reordered, repeated, just inside the window) accepted,
// and what the end of the stream or the memory bound leaves open reported as undecided, never failed.
import { describe, expect, it } from "vitest";
import { generateStream } from "../../src/events/generate/index.ts";
import { type CheckStreamOptions, checkStream } from "../../src/events/judge/event-stream.ts";
import { eventRunResult } from "../../src/events/judge/run-result.ts";
import type { StreamingConfig } from "../../src/events/streaming-config.ts";
import { ndjsonLine } from "../../src/events/transport/sinks/file.ts";
import { linesAsMessages, memorySource } from "../../src/events/transport/sources/index.ts";

const base = "2026-01-05T09:00:00Z";
const t0 = Date.parse(base);

interface At {
  /** Event time, seconds after t0. */
  at?: number;
}

function rel(
  start: string,
  end: string,
  options: At & { type?: string; event?: string; ends?: boolean; uri?: string } = {},
): string {
  const object: Record<string, unknown> = {
    uri: options.uri ?? `relations/${start}-${end}`,
    type: `configuration/relationTypes/${options.type ?? "HasAddress"}`,
    updatedTime: t0 + (options.at ?? 0) * 1000,
  };
  if (options.ends !== false) {
    object.startObject = { objectURI: `entities/${start}` };
    object.endObject = { objectURI: `entities/${end}` };
  }
  return JSON.stringify({ type: options.event ?? "RELATIONSHIP_CREATED", object });
}

function changed(
  entity: string,
  ovChanged: boolean | undefined,
  options: At & { attributes?: object } = {},
): string {
  const object: Record<string, unknown> = {
    uri: `entities/${entity}`,
    type: "configuration/entityTypes/HCP",
    updatedTime: t0 + (options.at ?? 0) * 1000,
  };
  if (options.attributes) object.attributes = options.attributes;
  return JSON.stringify({
    type: "ENTITY_CHANGED",
    object,
    ...(ovChanged === undefined ? {} : { ovChanged }),
  });
}

function removed(entity: string): string {
  return JSON.stringify({
    type: "ENTITY_REMOVED",
    object: { uri: `entities/${entity}`, type: "configuration/entityTypes/HCP" },
  });
}

let fillerCount = 0;
/** Valid messages about other objects, at event time `at` when given. */
function fillers(count: number, at?: number): string[] {
  return Array.from({ length: count }, () => {
    fillerCount += 1;
    const object: Record<string, unknown> = {
      uri: `interactions/f${fillerCount}`,
      type: "configuration/interactionTypes/Email",
    };
    if (at !== undefined) object.updatedTime = t0 + at * 1000;
    return JSON.stringify({ type: "INTERACTION_CHANGED", object });
  });
}

function config(extra: Partial<StreamingConfig> = {}): StreamingConfig {
  return {
    JMSEventsFilteringFields: ["uri", "type", "updatedTime", "attributes"],
    RelationEventsFilteringFields: ["uri", "type", "updatedTime", "startObject", "endObject"],
    referenceRelationTypes: ["HasAddress"],
    companionWindow: { messages: 3, seconds: 0 },
    ...extra,
  };
}

async function check(lines: string[], options: CheckStreamOptions = { config: config() }) {
  const result = await checkStream(memorySource(linesAsMessages(lines)), { maxProblems: 50, ...options });
  const errors = result.problems
    .filter((p) => p.evidence.severity === "error")
    .map((p) => `${p.requirement}@${p.evidence.position}`);
  return { result, errors };
}

describe("reference companions: faults are caught by their rule only", () => {
  it.each<[string, string[], string[], CheckStreamOptions?]>([
    ["no companion within the window", [rel("a", "b"), ...fillers(4)], ["EVENT-TYPES-04@line 1"]],
    [
      "the companion one message past the window",
      [rel("a", "b"), ...fillers(3), changed("a", true)],
      ["EVENT-TYPES-04@line 1"],
    ],
    [
      "the only companion carries ovChanged false",
      [rel("a", "b"), changed("a", false), ...fillers(4)],
      ["EVENT-STREAM-02@line 2"],
    ],
    [
      "a companion of a reference type learned from refRelation is missing",
      [
        changed("c", true, {
          attributes: {
            Workplace: [
              {
                type: "x",
                ov: true,
                value: {},
                refRelation: { type: "configuration/relationTypes/Workplace" },
              },
            ],
          },
        }),
        ...fillers(4),
        rel("a", "b", { type: "Workplace" }),
        ...fillers(4),
      ],
      ["EVENT-TYPES-04@line 6"],
      { config: config({ referenceRelationTypes: [] }) },
    ],
    [
      "the configured end's entity gets no companion (the other end's does not count)",
      [rel("a", "b"), changed("b", true), ...fillers(4)],
      ["EVENT-TYPES-04@line 1"],
      {
        config: config({
          referenceRelationTypes: [{ type: "configuration/relationTypes/HasAddress", entity: "start" }],
        }),
      },
    ],
    [
      "the time window passed as well as the message window",
      [rel("a", "b", { at: 0 }), ...fillers(3, 120), changed("a", true, { at: 121 })],
      ["EVENT-TYPES-04@line 1"],
      { config: config({ companionWindow: { messages: 1, seconds: 60 } }) },
    ],
    [
      "every relationship event type of the document's table",
      [
        rel("a", "b", { event: "RELATIONSHIP_REMOVED" }),
        rel("c", "d", { event: "RELATIONSHIP_CHANGED" }),
        ...fillers(5),
      ],
      ["EVENT-TYPES-04@line 1", "EVENT-TYPES-04@line 2"],
    ],
  ])("%s", async (_name, lines, want, options) => {
    const { errors, result } = await check(lines, options);
    expect(errors).toEqual(want);
    expect(result.invalid).toBe(want.length);
  });
});

describe("reference companions: legal streams are accepted", () => {
  it.each<[string, string[], CheckStreamOptions?]>([
    ["the companion right after", [rel("a", "b"), changed("a", true), ...fillers(4)]],
    ["the companion before (reordered)", [changed("a", true), rel("a", "b"), ...fillers(4)]],
    ["the companion repeated", [rel("a", "b"), changed("a", true), changed("a", true), ...fillers(4)]],
    ["the relationship event repeated", [rel("a", "b"), rel("a", "b"), changed("a", true), ...fillers(4)]],
    [
      "the companion just inside the window after",
      [rel("a", "b"), ...fillers(2), changed("a", true), ...fillers(4)],
    ],
    [
      "the companion just inside the window before",
      [changed("a", true), ...fillers(2), rel("a", "b"), ...fillers(4)],
    ],
    [
      "a companion without ovChanged (analyzeOvChanges false)",
      [rel("a", "b"), changed("a", undefined), ...fillers(4)],
    ],
    [
      "a plain change first, then the companion",
      [rel("a", "b"), changed("a", false), changed("a", true), ...fillers(4)],
    ],
    [
      "the other end's entity gets it (either end by default)",
      [rel("a", "b"), changed("b", true), ...fillers(4)],
    ],
    [
      "a relation type that backs no reference attribute",
      [rel("a", "b", { type: "Employment" }), ...fillers(4)],
    ],
    ["the entity was removed meanwhile", [removed("a"), rel("a", "b"), ...fillers(4)]],
    [
      // The periodic sweep (every 1,024 new entities) once dropped the entity it was run for.
      "more than a sweep's worth of entities, each companion before its relationship event",
      [
        ...Array.from({ length: 1100 }, (_, i) => [changed(`s${i}`, true), rel(`s${i}`, `e${i}`)]).flat(),
        ...fillers(4),
      ],
    ],
    [
      "beyond the messages but within the time window",
      [rel("a", "b", { at: 0 }), ...fillers(3, 1), changed("a", true, { at: 2 }), ...fillers(2, 200)],
      { config: config({ companionWindow: { messages: 1, seconds: 60 } }) },
    ],
  ])("%s", async (_name, lines, options) => {
    const { errors, result } = await check(lines, options);
    expect(errors).toEqual([]);
    expect(result.companions.undecided).toEqual([]);
  });
});

describe("reference companions: what cannot be decided is said", () => {
  it("a relationship event near the end of the stream is undecided, not failed", async () => {
    const { errors, result } = await check([...fillers(4), rel("a", "b"), ...fillers(1)]);
    expect(errors).toEqual([]);
    expect(result.companions.undecided).toEqual([
      expect.objectContaining({ rule: "EVENT-TYPES-04", reason: "stream-ended", count: 1, first: "line 5" }),
    ]);
    const run = eventRunResult(result, { command: "lckit events check", config: true });
    const check04 = run.checks.find((c) => c.id === "events/event-types-04");
    expect(check04?.status).toBe("inconclusive");
    expect(check04?.undecided?.saw).toMatch(/^1 relationship event of a reference relation type \(line 5\)/);
    expect(run.verdict).toBe("INCOMPLETE");
  });

  it("only a companion with ovChanged false before the end is undecided under EVENT-STREAM-02", async () => {
    const { errors, result } = await check([rel("a", "b"), changed("a", false)]);
    expect(errors).toEqual([]);
    expect(result.companions.undecided.map((u) => [u.rule, u.reason])).toEqual([
      ["EVENT-STREAM-02", "stream-ended"],
    ]);
  });

  it("a relationship event that names no end is undecided", async () => {
    const { errors, result } = await check([rel("a", "b", { ends: false }), ...fillers(4)]);
    expect(errors).toEqual([]);
    expect(result.companions.undecided.map((u) => u.reason)).toEqual(["ends-unknown"]);
    // Not possible to decide from such a stream at all: skipped with the reason, never inconclusive.
    expect(result.inconclusive).toEqual([]);
    const run = eventRunResult(result, { command: "lckit events check", config: true });
    const check04 = run.checks.find((c) => c.id === "events/event-types-04");
    expect(check04?.status).toBe("skipped");
    expect(check04?.reason).toMatch(/^not possible: 1 .*does not name the entities it connects/);
  });

  it("memory stays bounded by --max-tracked: the oldest waiting events are left undecided", async () => {
    const lines = [...Array.from({ length: 6 }, (_, i) => rel(`s${i}`, `e${i}`)), ...fillers(4)];
    const { errors, result } = await check(lines, {
      config: config({ companionWindow: { messages: 100, seconds: 0 } }),
      maxTrackedVersions: 2,
    });
    expect(errors).toEqual([]);
    const reasons = Object.fromEntries(result.companions.undecided.map((u) => [u.reason, u.count]));
    expect(reasons).toEqual({ "memory-bound": 4, "stream-ended": 2 });
  });

  it("without a known reference relation type the rules are skipped, naming the key to set", async () => {
    const { result } = await check([rel("a", "b"), ...fillers(4)], {
      config: config({ referenceRelationTypes: [] }),
    });
    const run = eventRunResult(result, { command: "lckit events check", config: true });
    const skipped = run.checks.filter(
      (c) => c.id === "events/event-types-04" || c.id === "events/event-stream-02",
    );
    expect(skipped.map((c) => c.status)).toEqual(["skipped", "skipped"]);
    expect(skipped[0]?.reason).toMatch(/referenceRelationTypes/);
  });

  it("a decided stream passes with what was paired, and the coverage is proven", async () => {
    const { result } = await check([rel("a", "b"), changed("a", true), ...fillers(4)]);
    const run = eventRunResult(result, { command: "lckit events check", config: true });
    const passed = run.checks.find((c) => c.id === "events/event-types-04");
    expect(passed?.status).toBe("passed");
    expect(passed?.message).toMatch(/^1 relationship event\(s\) of HasAddress paired/);
    expect(run.coverage.requirements.find((r) => r.id === "EVENT-TYPES-04")?.status).toBe("proven");
  });
});

describe("reference companions in generated streams", () => {
  const { messages, manifest } = generateStream({
    seed: 11,
    count: 3000,
    duplicates: 0.03,
    reorderWindow: 5,
  });
  const lines = messages.map(ndjsonLine);
  const parsed = lines.map(
    (line) => JSON.parse(line) as { headers: Record<string, unknown>; payload: Record<string, unknown> },
  );
  /** Indexes of ENTITY_CHANGED snapshots with ovChanged true that follow a relationship event (companions). */
  const companions = parsed.flatMap((message, index) =>
    message.payload.type === "ENTITY_CHANGED" &&
    message.payload.ovChanged === true &&
    "object" in message.payload
      ? [index]
      : [],
  );
  /** Every message with the same (uri, objectVersion) as the one at `index` (its re-sends). */
  const copiesOf = (index: number) => {
    const { sourceObjectUri, objectVersion } = parsed[index]?.headers ?? {};
    return parsed.flatMap((m, i) =>
      m.headers.sourceObjectUri === sourceObjectUri && m.headers.objectVersion === objectVersion ? [i] : [],
    );
  };

  // A window of 20 messages: wide enough for the stream's reordering (5 places), narrow enough that another
  // change of the same entity does not stand in for a dropped companion.
  const narrow = { config: { ...manifest.streamingConfig, companionWindow: { messages: 20, seconds: 0 } } };

  it("are valid, with companions paired (re-sent and reordered ones included)", async () => {
    expect((await check(lines, { config: manifest.streamingConfig })).errors).toEqual([]);
    const { errors, result } = await check(lines, narrow);
    expect(errors).toEqual([]);
    expect(result.companions.paired).toBeGreaterThan(50);
    expect(result.duplicates).toBeGreaterThan(0);
    expect(result.reordered).toBeGreaterThan(0);
    // EVENT-DELIVERY-02, a tolerance: its check says what the stream had of both and never fails.
    const run = eventRunResult(result, { command: "lckit events check", config: true });
    const delivery = run.checks.find((c) => c.id === "events/event-delivery-02");
    expect(delivery?.status).toBe("passed");
    expect(delivery?.message).toContain(
      `tolerated ${result.duplicates} redelivered message(s) and ${result.reordered} message(s)`,
    );
    expect(run.checks.find((c) => c.id === "events/event-payload-08")?.requirements).toEqual([
      "EVENT-PAYLOAD-08",
      "EVENT-TYPES-05",
    ]);
  });

  it("a dropped companion is caught by EVENT-TYPES-04 only; one with ovChanged false by EVENT-STREAM-02 only", async () => {
    expect(companions.length).toBeGreaterThan(20);
    // The first companion in the middle of the stream (decided before the end) whose removal is seen.
    const caught = { dropped: 0, flipped: 0 };
    for (const index of companions.slice(companions.length / 3)) {
      const copies = new Set(copiesOf(index));
      const dropped = await check(
        lines.filter((_, i) => !copies.has(i)),
        narrow,
      );
      if (dropped.errors.length === 0) continue;
      expect(new Set(dropped.errors.map((e) => e.split("@")[0]))).toEqual(new Set(["EVENT-TYPES-04"]));
      const flippedLines = lines.map((line, i) => {
        if (!copies.has(i)) return line;
        const message = JSON.parse(line) as { payload: Record<string, unknown> };
        message.payload.ovChanged = false;
        return JSON.stringify(message);
      });
      const flipped = await check(flippedLines, narrow);
      expect(new Set(flipped.errors.map((e) => e.split("@")[0]))).toEqual(new Set(["EVENT-STREAM-02"]));
      caught.dropped += 1;
      caught.flipped += 1;
      break;
    }
    expect(caught).toEqual({ dropped: 1, flipped: 1 });
  });
});
