// The seeded stream generator: deterministic per seed, realistic, and its manifest is exactly what the
// event checker finds (valid streams: nothing, even with re-sends and reordering; injected messages: the
// named rule at the named place). No broker needed.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { EventProblem } from "../../src/events/check/event-problem.ts";
import {
  generateStream,
  type PayloadType,
  type StreamManifest,
  type StreamMessage,
  type StreamOptions,
  streamMutations,
} from "../../src/events/generate/index.ts";
import { checkStream } from "../../src/events/judge/event-stream.ts";
import { openFileSink } from "../../src/events/transport/sinks/file.ts";
import { memorySource, openSource } from "../../src/events/transport/sources/index.ts";

const dir = mkdtempSync(join(tmpdir(), "lckit-stream-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function asSource(messages: StreamMessage[]) {
  return memorySource(
    messages.map((m, i) => ({ position: `message ${i + 1}`, headers: m.headers, body: m.body })),
  );
}

function rulesByPosition(problems: readonly EventProblem[]): Record<string, string[]> {
  const found: Record<string, Set<string>> = {};
  for (const problem of problems) {
    if (problem.evidence.severity !== "error") continue;
    const rules = found[problem.evidence.position] ?? new Set<string>();
    rules.add(problem.requirement);
    found[problem.evidence.position] = rules;
  }
  return Object.fromEntries(Object.entries(found).map(([position, rules]) => [position, [...rules].sort()]));
}

function expectedRules(manifest: StreamManifest, label = "message"): Record<string, string[]> {
  return Object.fromEntries(manifest.invalidMessages.map((e) => [`${label} ${e.index + 1}`, [e.rule]]));
}

const payloadType = fc.constantFrom<PayloadType>("snapshot", "deltas", "mixed");

/** SHOULD-level ids legal variety may warn about: a type in neither list, deltas in another shape. */
const varietyWarnings = new Set(["EVENT-TYPES-06", "EVENT-DELTA-01", "EVENT-DELTA-02"]);

function errorsByRule(byRule: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(byRule).filter(([id]) => !varietyWarnings.has(id)));
}

describe("generateStream", () => {
  it("gives the same stream for the same options and seed, another for another seed", () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: 20, max: 200 }),
        payloadType,
        fc.double({ min: 0, max: 0.4, noNaN: true }),
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: 0, max: 5 }),
        (seed, count, type, duplicates, reorderWindow, invalid) => {
          const options: StreamOptions = {
            seed,
            count,
            payloadType: type,
            duplicates,
            reorderWindow,
            invalid: { count: invalid },
          };
          const first = generateStream(options);
          expect(generateStream(options)).toEqual(first);
          expect(first.messages).toHaveLength(count);
          expect(generateStream({ ...options, seed: seed + 1 }).messages).not.toEqual(first.messages);
        },
      ),
      { numRuns: 25 },
    );
  });

  it("makes valid streams: re-sends and reordering give no false error, the re-sends are counted", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer(),
        fc.integer({ min: 50, max: 500 }),
        payloadType,
        fc.double({ min: 0, max: 0.3, noNaN: true }),
        fc.integer({ min: 0, max: 12 }),
        async (seed, count, type, duplicates, reorderWindow) => {
          const { messages, manifest } = generateStream({
            seed,
            count,
            payloadType: type,
            duplicates,
            reorderWindow,
          });
          const result = await checkStream(asSource(messages), { config: manifest.streamingConfig });
          // Legal variety is never an error; it may warn (SHOULD: the kit's preferred shapes).
          expect(result.problems.filter((p) => p.evidence.severity === "error")).toEqual([]);
          expect(result.problems.filter((p) => !varietyWarnings.has(p.requirement))).toEqual([]);
          expect({ total: result.total, valid: result.valid, duplicates: result.duplicates }).toEqual({
            total: count,
            valid: count,
            duplicates: manifest.duplicates,
          });
        },
      ),
      { numRuns: 30 },
    );
  });

  it("injects invalid messages exactly where and as the manifest says", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer(),
        fc.integer({ min: 100, max: 600 }),
        payloadType,
        fc.double({ min: 0, max: 0.2, noNaN: true }),
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: 0, max: 40 }),
        async (seed, count, type, duplicates, reorderWindow, invalid) => {
          const { messages, manifest } = generateStream({
            seed,
            count,
            payloadType: type,
            duplicates,
            reorderWindow,
            invalid: { count: invalid },
          });
          expect(manifest.invalid).toBe(invalid);
          const result = await checkStream(asSource(messages), { config: manifest.streamingConfig });
          expect(rulesByPosition(result.problems)).toEqual(expectedRules(manifest));
          expect({
            valid: result.valid,
            invalid: result.invalid,
            byRule: errorsByRule(result.byRule),
          }).toEqual({
            valid: manifest.valid,
            invalid: manifest.invalid,
            byRule: manifest.byRule,
          });
        },
      ),
      { numRuns: 30 },
    );
  });

  const cases = (["snapshot", "deltas"] as const).flatMap((type) =>
    [
      ...new Set(
        streamMutations()
          .filter((m) => m.streams.includes(type))
          .map((m) => m.rule),
      ),
    ].map((rule) => [`${rule} in a ${type} stream`, { type, rule }] as const),
  );
  it.each(cases)("breaks only the requested rule: %s", async (_name, { type, rule }) => {
    const { messages, manifest } = generateStream({
      seed: 11,
      count: 60,
      payloadType: type,
      invalid: { count: 6, rules: [rule] },
    });
    const result = await checkStream(asSource(messages), { config: manifest.streamingConfig });
    expect(errorsByRule(result.byRule)).toEqual({ [rule]: 6 });
    expect(rulesByPosition(result.problems)).toEqual(expectedRules(manifest));
  });

  it("emits every legal shape, and the checker accepts them all at MUST level", async () => {
    const shapes = (variety: boolean) => {
      const { messages, manifest } = generateStream({
        seed: 5,
        count: 4000,
        payloadType: "mixed",
        duplicates: 0.1,
        largeObjects: 0.1,
        variety,
      });
      const seen = {
        headerOnlyFallback: 0,
        deltaCollection: 0,
        otherDeltas: 0,
        referenceDeltaValue: 0,
        unlistedType: 0,
        reserializedResend: 0,
        deepNesting: 0,
      };
      const first = new Map<string, string>();
      for (const { headers, body } of messages) {
        const payload = JSON.parse(body) as Record<string, unknown>;
        const deltas = payload.deltas as Record<string, unknown> | undefined;
        if (payload.exceededQueueSizeLimit === true && !("uri" in payload)) seen.headerOnlyFallback += 1;
        if (deltas && Array.isArray(deltas.delta)) seen.deltaCollection += 1;
        if (deltas && !("delta" in deltas) && !("deltaCollection" in deltas)) seen.otherDeltas += 1;
        if (/"refEntity"/.test(body) && /"ATTRIBUTE_(ADDED|REMOVED)"/.test(body))
          seen.referenceDeltaValue += 1;
        if (payload.type === "ENTITY_MERGE_FAILED") seen.unlistedType += 1;
        if (/"Level9"/.test(body)) seen.deepNesting += 1;
        const key = `${String(headers.sourceObjectUri)} ${String(headers.objectVersion)}`;
        const earlier = first.get(key);
        if (earlier === undefined) first.set(key, body);
        else if (earlier !== body) seen.reserializedResend += 1;
      }
      return { messages, manifest, seen };
    };
    const { messages, manifest, seen } = shapes(true);
    for (const [shape, count] of Object.entries(seen))
      expect({ shape, seen: count > 0 }).toEqual({ shape, seen: true });
    const result = await checkStream(asSource(messages));
    expect(result.errors).toBe(0);
    expect(Object.keys(result.byRule).filter((id) => !varietyWarnings.has(id))).toEqual([]);
    expect(result.byRule["EVENT-TYPES-06"]).toBe(seen.unlistedType);
    // Re-sends serialized again are redeliveries, never objectVersion reuse.
    expect(result.duplicates).toBe(manifest.duplicates);
    const preferred = shapes(false).seen;
    expect(preferred).toEqual({
      headerOnlyFallback: 0,
      deltaCollection: 0,
      otherDeltas: 0,
      referenceDeltaValue: 0,
      unlistedType: 0,
      reserializedResend: 0,
      deepNesting: 0,
    });
  });

  it("raises objectVersion per object with every message about it", () => {
    fc.assert(
      fc.property(fc.integer(), payloadType, (seed, type) => {
        const { messages } = generateStream({ seed, count: 400, payloadType: type });
        const last = new Map<string, number>();
        for (const { headers } of messages) {
          const uri = String(headers.sourceObjectUri);
          const version = Number(headers.objectVersion);
          expect(version).toBeGreaterThan(last.get(uri) ?? 0);
          last.set(uri, version);
        }
      }),
      { numRuns: 20 },
    );
  });

  it("follows a reference relationship's event with the entity's ENTITY_CHANGED carrying ovChanged true", () => {
    const { messages } = generateStream({ seed: 3, count: 2000 });
    interface Payload {
      type: string;
      ovChanged?: boolean;
      object?: { type?: string; startObject?: { objectURI?: string } };
      deltas?: { ovChanged?: boolean; deltaCollection?: { ovChanged?: boolean } };
    }
    const payloads = messages.map((m) => JSON.parse(m.body) as Payload);
    let companions = 0;
    payloads.forEach((payload, i) => {
      const object = payload.object;
      const reference = /HasAddress|Affiliation/.test(String(object?.type));
      if (!String(payload.type).startsWith("RELATIONSHIP_") || !reference) return;
      // A stream of `count` messages is a window: the last one's companion may lie beyond it.
      if (i === payloads.length - 1) return;
      const next = payloads[i + 1];
      expect(next?.type).toBe("ENTITY_CHANGED");
      expect(messages[i + 1]?.headers.sourceObjectUri).toBe(object?.startObject?.objectURI);
      expect(next?.ovChanged ?? next?.deltas?.deltaCollection?.ovChanged ?? next?.deltas?.ovChanged).toBe(
        true,
      );
      companions += 1;
    });
    expect(companions).toBeGreaterThan(10);
  });

  it("covers the lifecycles: merges and splits, GDPR removal and re-creation, interactions, DCRs, fallbacks", () => {
    const { messages, manifest } = generateStream({ seed: 1, count: 3000 });
    for (const type of [
      "ENTITY_CREATED",
      "ENTITY_CHANGED",
      "ENTITY_LOST_MERGE",
      "ENTITIES_SPLITTED",
      "ENTITY_REMOVED_GDPR",
      "ENTITY_REMOVED",
      "RELATIONSHIP_CREATED",
      "RELATIONSHIP_CHANGED",
      "RELATIONSHIP_REMOVED",
      "INTERACTION_CREATED",
      "CHANGE_REQUEST_CREATED",
      "ENTITIES_MATCHES_CHANGED",
    ])
      expect(manifest.byType[type], type).toBeGreaterThan(0);
    const gdpr = new Set(
      messages
        .filter((m) => m.headers.eventType === "ENTITY_REMOVED_GDPR")
        .map((m) => m.headers.sourceObjectUri),
    );
    const recreated = messages.filter(
      (m) =>
        m.headers.eventType === "ENTITY_CREATED" &&
        gdpr.has(m.headers.sourceObjectUri) &&
        m.headers.objectVersion !== 1,
    );
    expect(recreated.length).toBeGreaterThan(0);
    expect(messages.filter((m) => m.body.includes('"exceededQueueSizeLimit":true')).length).toBeGreaterThan(
      0,
    );
    const split = messages
      .map((m) => JSON.parse(m.body))
      .find((p) => p.type === "ENTITIES_SPLITTED" && p.object);
    expect(split?.uris).toHaveLength(2);
  });

  it.each([
    ["negative count", { seed: 1, count: -1 }, /count must be an integer >= 0/],
    ["duplicates of 1", { seed: 1, count: 10, duplicates: 1 }, /duplicates must be a probability/],
    ["more invalid than messages", { seed: 1, count: 2, invalid: { count: 3 } }, /cannot exceed count/],
    [
      "unknown rule",
      { seed: 1, count: 10, invalid: { count: 1, rules: ["EVENT-NOPE-01"] } },
      /EVENT-NOPE-01/,
    ],
    [
      "a snapshot-only rule in a deltas stream",
      { seed: 1, count: 10, payloadType: "deltas", invalid: { count: 1, rules: ["EVENT-OBJECT-01"] } },
      /no mutation of rules EVENT-OBJECT-01 fits a deltas stream/,
    ],
    [
      "no room for a two-message mutation",
      { seed: 1, count: 3, invalid: { count: 2, rules: ["EVENT-STREAM-01"] } },
      /need 4 messages; count is 3/,
    ],
  ] as const)("refuses %s", (_name, options, message) => {
    expect(() => generateStream(options as StreamOptions)).toThrow(message);
  });
});

describe("NDJSON file sink", () => {
  it("writes {headers, payload} lines that the file checker reads back as the manifest says", async () => {
    const { messages, manifest } = generateStream({
      seed: 8,
      count: 300,
      duplicates: 0.1,
      invalid: { count: 12 },
    });
    const file = join(dir, "stream.ndjson");
    const sink = await openFileSink(file);
    for (const message of messages) await sink.publish(message);
    await sink.close();

    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(300);
    const first = JSON.parse(lines[0] ?? "");
    expect(Object.keys(first)).toEqual(["headers", "payload"]);
    expect(first.headers).toEqual(messages[0]?.headers);

    const result = await checkStream(await openSource(file), { config: manifest.streamingConfig });
    expect(rulesByPosition(result.problems)).toEqual(expectedRules(manifest, "line"));
    expect({ total: result.total, invalid: result.invalid }).toEqual({ total: 300, invalid: 12 });
  });
});
