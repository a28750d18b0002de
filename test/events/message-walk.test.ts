// One walk over each parsed message answers three questions (nesting past the limit, a lookupError key
// anywhere, the payload's fingerprint). Each answer must equal the one of the separate, simpler form it
// replaced: nestingExceeds on the text, payloadFingerprint on the payload, a key search.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { payloadFingerprint, walkMessage } from "../../src/events/check/payload-fingerprint.ts";
import { rule } from "../../src/events/document/requirements.ts";
import { eventMessage, messageLine, nestedAttributeValue } from "../../src/events/generate/arbitraries.ts";
import { checkMessage, inspectMessage, nestingExceeds } from "../../src/events/judge/event-message.ts";
import { checkStream } from "../../src/events/judge/event-stream.ts";
import { linesAsMessages, memorySource } from "../../src/events/transport/sources/index.ts";

const seed = Number(process.env.FC_SEED ?? 20_261_123);

/** A value nested `levels` deep, alternating objects and arrays. */
function nested(levels: number): unknown {
  let value: unknown = "leaf";
  for (let level = 0; level < levels; level += 1) value = level % 2 === 0 ? [value] : { deeper: value };
  return value;
}

function hasKey(value: unknown, name: string): boolean {
  if (value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return value.some((item) => hasKey(item, name));
  return Object.entries(value).some(([key, item]) => key === name || hasKey(item, name));
}

describe("the message walk", () => {
  it("finds nesting past the limit exactly where the text scan does", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 0, max: 12 }).map(nested)),
        fc.integer({ min: 0, max: 8 }),
        fc.boolean(),
        (value, limit, fingerprint) => {
          const text = JSON.stringify(value);
          expect(walkMessage(value, limit, fingerprint).tooDeep).toBe(nestingExceeds(text, limit));
        },
      ),
      { seed, numRuns: 400 },
    );
  });

  it("counts an envelope's own level", () => {
    const envelope = {
      headers: { tenantId: "t" },
      payload: { type: "ENTITY_CREATED", object: { uri: "e/1" } },
    };
    expect(walkMessage(envelope, 3, true).tooDeep).toBe(false);
    expect(walkMessage(envelope, 2, true).tooDeep).toBe(true);
    expect(walkMessage(envelope, 0, false).tooDeep).toBe(true);
  });

  it("fingerprints the payload, bare or in an envelope, as payloadFingerprint does", () => {
    fc.assert(
      fc.property(eventMessage(), (m) => {
        const print = payloadFingerprint(m.payload);
        expect(walkMessage({ headers: m.headers, payload: m.payload }, 512, true).fingerprint).toBe(print);
        expect(walkMessage(m.payload, 512, true).fingerprint).toBe(print);
        expect(walkMessage(m.payload, 512, false).fingerprint).toBeUndefined();
      }),
      { seed, numRuns: 60 },
    );
  });

  it("notices a lookupError key at any depth, and only a key", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), fc.boolean(), (value, fingerprint) => {
        expect(walkMessage(value, 512, fingerprint).lookupError).toBe(hasKey(value, "lookupError"));
      }),
      { seed, numRuns: 300 },
    );
    expect(walkMessage({ a: [{ b: { lookupError: 1 } }] }, 512, true).lookupError).toBe(true);
    expect(walkMessage({ a: ["lookupError"] }, 512, true).lookupError).toBe(false);
  });

  it("catches a nested lookupError whose key is spelled with a JSON escape", () => {
    const message = fc.sample(eventMessage({ types: ["ENTITY_CREATED"], kinds: ["snapshot"] }), {
      seed,
      numRuns: 1,
    })[0];
    if (!message) throw new Error("no message drawn");
    (message.payload.object as Record<string, unknown>).attributes = {
      Address: [nestedAttributeValue(3, "not a code")],
    };
    message.headers.objectVersion = 1;
    const plain = messageLine(message);
    const line = plain.replaceAll('"lookupError"', '"lookup\\u0045rror"');
    expect(line).not.toContain("lookupError");
    // Both ways of asking: the text (no fingerprint wanted) and the walk that also fingerprints.
    for (const body of [plain, line]) {
      expect(checkMessage(body).map((p) => p.requirement)).toContain(rule.lookupError);
      const walked = inspectMessage({ position: "line 1", body }, {}, { fingerprint: true });
      expect(walked.facts.fingerprint).toBeTypeOf("number");
      expect(walked.problems.map((p) => p.requirement)).toContain(rule.lookupError);
    }
  });
});

describe("integer fingerprints beyond 32 bits", () => {
  it.each([
    ["neighbours", 2 ** 40, 2 ** 40 + 1],
    ["sign", -(2 ** 40), 2 ** 40],
    ["halves swapped", 2 ** 32 * 5 + 7, 2 ** 32 * 7 + 5],
    ["one past 2^31 and its low half", 2 ** 32 + 1, 1],
    ["an epoch time and its text", 1_767_645_187_679, "1767645187679"],
    ["the largest safe integer and the next double", Number.MAX_SAFE_INTEGER, 2 ** 53 + 2],
  ])("tell apart %s", (_name, a, b) => {
    expect(payloadFingerprint({ n: a })).not.toBe(payloadFingerprint({ n: b }));
  });

  it("are the same for the same integer, however it was written", () => {
    expect(payloadFingerprint(JSON.parse('{"n":1767645187679}'))).toBe(
      payloadFingerprint(JSON.parse('{"n":1.767645187679e12}')),
    );
  });
});

describe("the stream rules with the walk's fingerprints", () => {
  it("still tell a re-sent message from a reused objectVersion", async () => {
    const headers = {
      tenantId: "acme",
      eventType: "ENTITY_CHANGED",
      sourceObjectUri: "entities/1",
      objectVersion: 4,
    };
    const object = {
      uri: "entities/1",
      type: "configuration/entityTypes/HCP",
      updatedTime: 1_767_645_187_679,
    };
    const first = JSON.stringify({ headers, payload: { type: "ENTITY_CHANGED", object } });
    const resent = JSON.stringify({ payload: { object, type: "ENTITY_CHANGED" }, headers }, null, 1);
    const changed = JSON.stringify({
      headers,
      payload: { type: "ENTITY_CHANGED", object: { ...object, updatedTime: 1_767_645_187_680 } },
    });
    const check = (lines: string[]) => checkStream(memorySource(linesAsMessages(lines)));
    const redelivered = await check([first, resent]);
    expect(redelivered.duplicates).toBe(1);
    expect(redelivered.byRule).toEqual({});
    const reused = await check([first, changed]);
    expect(reused.duplicates).toBe(0);
    expect(Object.keys(reused.byRule)).toContain(rule.versionReuse);
  });
});
