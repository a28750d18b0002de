// Legal variety: shapes the document allows but the kit does not prefer are accepted at MUST level (0
// errors, at most a SHOULD warning), and the rules still catch what is wrong inside them.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/events/check/canonical-json.ts";
import { payloadFingerprint } from "../../src/events/check/payload-fingerprint.ts";
import {
  eventMessage,
  messageLine,
  nestedAttributeValue,
  reserialized,
  unlistedTypeMessage,
} from "../../src/events/generate/arbitraries.ts";
import { reversedKeys } from "../../src/events/generate/redeliveries.ts";
import { checkMessage, defaultMaxDepth, nestingExceeds } from "../../src/events/judge/event-message.ts";
import { checkStream } from "../../src/events/judge/event-stream.ts";
import { linesAsMessages, memorySource } from "../../src/events/transport/sources/index.ts";

const seed = Number(process.env.FC_SEED ?? 20_261_122);
const runs = { seed, numRuns: 30 };

async function check(lines: string[]) {
  return checkStream(memorySource(linesAsMessages(lines)), { maxProblems: 100 });
}

describe("canonical JSON", () => {
  it("is the same text for the same data in any key order, and reads back as the same data", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(reversedKeys(value))).toBe(canonicalJson(value));
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { seed, numRuns: 200 },
    );
  });

  it("differs for different data", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        fc.pre(JSON.stringify(reversedKeys(a)) !== JSON.stringify(reversedKeys(b)));
        fc.pre(canonicalJson(a) !== canonicalJson(b) || JSON.stringify(a) === JSON.stringify(b));
        expect(canonicalJson(a) === canonicalJson(b)).toBe(false);
      }),
      { seed, numRuns: 200 },
    );
  });
});

describe("payload fingerprint", () => {
  it("is the same for the same data in any key order, below 2^46", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const print = payloadFingerprint(value);
        expect(payloadFingerprint(reversedKeys(value))).toBe(print);
        expect(payloadFingerprint(JSON.parse(canonicalJson(value)))).toBe(print);
        expect(Number.isSafeInteger(print * 128 + 127)).toBe(true);
      }),
      { seed, numRuns: 300 },
    );
  });

  it("differs for different data", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        fc.pre(canonicalJson(a) !== canonicalJson(b));
        expect(payloadFingerprint(a)).not.toBe(payloadFingerprint(b));
      }),
      { seed, numRuns: 300 },
    );
  });

  it.each([
    ["a value moved to another key", { a: "x", b: "y" }, { a: "y", b: "x" }],
    ["a string split differently", ["ab", "c"], ["a", "bc"]],
    ["a number and its text", { n: 1 }, { n: "1" }],
    ["array order", [1, 2], [2, 1]],
    ["a value one level deeper", { a: { b: 1 } }, { a: { b: [1] } }],
    ["true and false", { v: true }, { v: false }],
    ["null and an empty object", { v: null }, { v: {} }],
  ])("tells apart %s", (_name, a, b) => {
    expect(payloadFingerprint(a)).not.toBe(payloadFingerprint(b));
  });
});

describe("redeliveries", () => {
  it("serialized again with other key order and spacing are redeliveries, not objectVersion reuse", async () => {
    await fc.assert(
      fc.asyncProperty(
        eventMessage({ objectVersion: "always" }),
        fc.integer({ min: 0, max: 4 }),
        async (m, indent) => {
          const again = `{"payload": ${reserialized(m.payload, indent).replace(/\n/g, " ")}, "headers": ${JSON.stringify(m.headers)}}`;
          const result = await check([messageLine(m), again]);
          expect(result.errors).toBe(0);
          expect(result.duplicates).toBe(1);
        },
      ),
      runs,
    );
  });

  it("with other content under the same objectVersion are still reuse, however serialized", async () => {
    await fc.assert(
      fc.asyncProperty(eventMessage({ objectVersion: "always" }), async (m) => {
        const changed = { ...m.payload, extraField: "other content" };
        const again = `{"headers": ${JSON.stringify(m.headers)}, "payload": ${reserialized(changed, 2).replace(/\n/g, " ")}}`;
        const result = await check([messageLine(m), again]);
        const reuse = result.problems.filter((p) => p.requirement === "EVENT-HEADERS-03");
        expect(reuse.map((p) => p.evidence.position)).toEqual(["line 2"]);
      }),
      runs,
    );
  });
});

describe("event types in neither of the document's lists", () => {
  it("are a warning (EVENT-TYPES-06), never an error", () => {
    fc.assert(
      fc.property(unlistedTypeMessage(), (m) => {
        const problems = checkMessage(messageLine(m));
        expect(problems.map((p) => `${p.requirement}/${p.evidence.severity}`)).toEqual([
          "EVENT-TYPES-06/warning",
        ]);
      }),
      runs,
    );
  });

  it("still get their eventType header compared", () => {
    const line = JSON.stringify({
      headers: { tenantId: "acme", eventType: "ENTITY_CREATED", sourceObjectUri: "entities/1" },
      payload: { type: "ENTITY_MERGE_FAILED", uri: "entities/1" },
    });
    expect(checkMessage(line).map((p) => `${p.requirement}/${p.evidence.severity}`)).toEqual([
      "EVENT-TYPES-06/warning",
      "EVENT-HEADERS-04/error",
    ]);
  });
});

describe("nesting", () => {
  it.each([
    ["flat", '{"a":[1,2,{"b":3}]}', 3, false],
    ["exactly at the limit", "[[[]]]", 3, false],
    ["one past the limit", "[[[[]]]]", 3, true],
    ["brackets inside strings do not count", '["[[[[", "{{{{", "\\"[[[["]', 2, false],
    ["escaped quotes do not end a string", '["\\\\", [[["x"]]]]', 3, true],
  ])("nestingExceeds: %s", (_name, text, limit, want) => {
    expect(nestingExceeds(text, limit)).toBe(want);
  });

  it("deep but legal nesting conforms", () => {
    const levels = Math.floor((defaultMaxDepth - 20) / 3);
    fc.assert(
      fc.property(
        eventMessage({ types: ["ENTITY_CREATED", "RELATIONSHIP_CREATED"], kinds: ["snapshot"] }),
        fc.integer({ min: 1, max: levels }),
        (m, depth) => {
          (m.payload.object as Record<string, unknown>).attributes = {
            Address: [nestedAttributeValue(depth, "1003: canonical value mapping is missing")],
          };
          expect(checkMessage(messageLine(m)).filter((p) => p.evidence.severity === "error")).toEqual([]);
        },
      ),
      { seed, numRuns: 15 },
    );
  });

  it("past the limit is reported for its own line, and the lines after it are checked", async () => {
    const [m] = fc.sample(
      eventMessage({ types: ["ENTITY_CREATED"], kinds: ["snapshot"], objectVersion: "never" }),
      {
        seed,
        numRuns: 1,
      },
    );
    if (!m) throw new Error("no sample");
    const deep = structuredClone(m);
    (deep.payload.object as Record<string, unknown>).attributes = { Address: [nestedAttributeValue(300)] };
    const broken = structuredClone(m);
    broken.payload.object = {};
    const result = await check([messageLine(deep), messageLine(m), messageLine(broken)]);
    expect(
      result.problems.map((p) => `${p.evidence.position} ${p.requirement} ${p.evidence.keyword}`),
    ).toEqual(["line 1 EVENT-DELIVERY-01 maxDepth", "line 3 EVENT-OBJECT-01 minProperties"]);
    expect(result.total).toBe(3);
  });
});

describe("lookupError at any depth", () => {
  it("is checked inside nested and reference attribute values", () => {
    fc.assert(
      fc.property(
        eventMessage({ types: ["ENTITY_CHANGED", "RELATIONSHIP_CHANGED"], kinds: ["snapshot"] }),
        fc.integer({ min: 1, max: 30 }),
        fc.constantFrom("mapping missing", "", "E1003: missing"),
        (m, depth, bad) => {
          (m.payload.object as Record<string, unknown>).attributes = {
            Address: [nestedAttributeValue(depth, bad)],
          };
          const problems = checkMessage(messageLine(m));
          expect(problems.map((p) => p.requirement)).toEqual(["EVENT-OBJECT-03"]);
          expect(problems[0]?.evidence.instancePath).toMatch(
            /^\/payload\/object\/attributes\/Address\/0\/value\/.+\/lookupError$/,
          );
        },
      ),
      runs,
    );
  });
});

describe("large-object fallbacks", () => {
  const headers = { tenantId: "acme", eventType: "ENTITY_CHANGED", sourceObjectUri: "entities/1" };
  it.each([
    [
      "the URI in uri",
      { headers, payload: { type: "ENTITY_CHANGED", uri: "entities/1", exceededQueueSizeLimit: true } },
      [],
    ],
    [
      "the URI only in the header",
      { headers, payload: { type: "ENTITY_CHANGED", exceededQueueSizeLimit: true } },
      [],
    ],
    [
      "no URI anywhere (bare payload)",
      { type: "ENTITY_CHANGED", exceededQueueSizeLimit: true },
      ["EVENT-PAYLOAD-06"],
    ],
    [
      "an object beside exceededQueueSizeLimit",
      {
        headers,
        payload: { type: "ENTITY_CHANGED", object: { uri: "entities/1" }, exceededQueueSizeLimit: true },
      },
      ["EVENT-PAYLOAD-06"],
    ],
    [
      "none of object, deltas, exceededQueueSizeLimit",
      { headers, payload: { type: "ENTITY_CHANGED", uri: "entities/1" } },
      ["EVENT-PAYLOAD-01"],
    ],
  ])("%s", (_name, message, want) => {
    const problems = checkMessage(JSON.stringify(message)).filter((p) => p.evidence.severity === "error");
    expect(problems.map((p) => p.requirement)).toEqual(want);
  });

  it("names what the payload is missing when it is none of the three", () => {
    const [problem] = checkMessage(JSON.stringify({ type: "ENTITY_REMOVED", uri: "entities/1" }));
    expect(problem?.message).toContain("none of object, deltas and exceededQueueSizeLimit");
    expect(problem?.message).not.toContain("fallback must");
  });
});
