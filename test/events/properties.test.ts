// Properties: every generated message conforms; every named mutation breaks exactly its rule.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  documentedTypes,
  eventMessage,
  kindsOf,
  messageLine,
  mutations,
} from "../../src/events/generate/arbitraries.ts";
import { checkMessage } from "../../src/events/judge/event-message.ts";
import { checkStream } from "../../src/events/judge/event-stream.ts";
import { linesAsMessages, memorySource } from "../../src/events/transport/sources/index.ts";

const seed = Number(process.env.FC_SEED ?? 20_260_601);

describe("generated messages", () => {
  const combinations = documentedTypes(true).flatMap((info) =>
    kindsOf(info).map((kind) => [info.type, kind] as const),
  );

  it.each(combinations)("%s as %s conforms", (type, kind) => {
    fc.assert(
      fc.property(eventMessage({ types: [type], kinds: [kind] }), (message) => {
        const problems = checkMessage(messageLine(message)).filter((p) => p.evidence.severity === "error");
        expect(problems).toEqual([]);
      }),
      { seed, numRuns: 40 },
    );
  });
});

describe("mutations", () => {
  it("cover the rules the checker enforces", () => {
    expect(new Set(mutations.map((m) => m.rule)).size).toBeGreaterThanOrEqual(28);
  });

  it.each(mutations.map((m) => [m.name, m] as const))("%s", async (_name, mutation) => {
    await fc.assert(
      fc.asyncProperty(eventMessage(mutation.from), async (message) => {
        const lines = mutation.apply(message);
        const result = await checkStream(memorySource(linesAsMessages(lines)), {
          config: mutation.config?.(message),
        });
        const rules = new Set(result.problems.map((p) => `${p.requirement}/${p.evidence.severity}`));
        expect([...rules]).toEqual([`${mutation.rule}/${mutation.severity}`]);
        // The lead-in lines are valid: only the last line carries the problem (or the line the mutation names).
        expect(
          result.problems.every((p) => p.evidence.position === `line ${mutation.at ?? lines.length}`),
        ).toBe(true);
      }),
      { seed, numRuns: 25 },
    );
  });
});
