// Stream rules over sequences: at-least-once redelivery and reordering are legal; objectVersion reuse and
// events after a GDPR removal are not, and are flagged only when objectVersion proves the order.
import { describe, expect, it } from "vitest";
import { checkStream } from "../../src/events/judge/event-stream.ts";
import { linesAsMessages, memorySource } from "../../src/events/transport/sources/index.ts";

type Step = [type: string, version: number | undefined, label?: string];

function line([type, version, label]: Step, uri = "entities/E1"): string {
  const headers: Record<string, unknown> = { tenantId: "acme", eventType: type, sourceObjectUri: uri };
  if (version !== undefined) headers.objectVersion = version;
  return JSON.stringify({ headers, payload: { type, object: { uri, label: label ?? `v${version}` } } });
}

async function check(steps: Step[]) {
  const result = await checkStream(memorySource(linesAsMessages(steps.map((step) => line(step)))));
  return {
    problems: result.problems.map((p) => `${p.evidence.position} ${p.requirement}`),
    invalid: result.invalid,
    duplicates: result.duplicates,
  };
}

const cases: [string, { given: Step[]; want: string[]; duplicates?: number }][] = [
  [
    "ordered lifecycle",
    {
      given: [
        ["ENTITY_CREATED", 1],
        ["ENTITY_CHANGED", 2],
        ["ENTITY_REMOVED", 3],
      ],
      want: [],
    },
  ],
  [
    "reordered lifecycle",
    {
      given: [
        ["ENTITY_CHANGED", 2],
        ["ENTITY_REMOVED", 3],
        ["ENTITY_CREATED", 1],
      ],
      want: [],
    },
  ],
  [
    "identical redelivery is legal",
    {
      given: [
        ["ENTITY_CREATED", 1],
        ["ENTITY_CREATED", 1],
        ["ENTITY_CREATED", 1],
      ],
      want: [],
      duplicates: 2,
    },
  ],
  [
    "a different message with the same objectVersion",
    {
      given: [
        ["ENTITY_CHANGED", 2, "a"],
        ["ENTITY_CHANGED", 2, "b"],
      ],
      want: ["line 2 EVENT-HEADERS-03"],
    },
  ],
  [
    "another type with the same objectVersion",
    {
      given: [
        ["ENTITY_CREATED", 1],
        ["ENTITY_CHANGED", 1],
      ],
      want: ["line 2 EVENT-HEADERS-03"],
    },
  ],
  [
    "messages without objectVersion prove nothing",
    {
      given: [
        ["ENTITY_CHANGED", undefined, "a"],
        ["ENTITY_CHANGED", undefined, "b"],
      ],
      want: [],
    },
  ],
  [
    "ENTITY_CHANGED after a GDPR removal",
    {
      given: [
        ["ENTITY_REMOVED_GDPR", 5],
        ["ENTITY_CHANGED", 6],
      ],
      want: ["line 2 EVENT-STREAM-01"],
    },
  ],
  [
    "an earlier-versioned change delivered after the removal is legal",
    {
      given: [
        ["ENTITY_REMOVED_GDPR", 5],
        ["ENTITY_CHANGED", 4],
      ],
      want: [],
    },
  ],
  [
    "a later-versioned change delivered before the removal",
    {
      given: [
        ["ENTITY_CHANGED", 6],
        ["ENTITY_REMOVED_GDPR", 5],
      ],
      want: ["line 2 EVENT-STREAM-01"],
    },
  ],
  [
    "re-creation after the removal makes later changes legal",
    {
      given: [
        ["ENTITY_REMOVED_GDPR", 5],
        ["ENTITY_CREATED", 6],
        ["ENTITY_CHANGED", 7],
      ],
      want: [],
    },
  ],
  [
    "re-creation delivered last still clears the change",
    {
      given: [
        ["ENTITY_REMOVED_GDPR", 5],
        ["ENTITY_CHANGED", 7],
        ["ENTITY_CREATED", 6],
      ],
      want: [],
    },
  ],
  [
    "a re-creation after the change does not clear it",
    {
      given: [
        ["ENTITY_REMOVED_GDPR", 5],
        ["ENTITY_CHANGED", 6],
        ["ENTITY_CREATED", 7],
      ],
      want: ["line 2 EVENT-STREAM-01"],
    },
  ],
  [
    "repeated removals and creations are legal",
    {
      given: [
        ["ENTITY_REMOVED_GDPR", 5],
        ["ENTITY_REMOVED_GDPR", 6],
        ["ENTITY_CREATED", 7],
      ],
      want: [],
    },
  ],
  [
    "a merge after the removal",
    {
      given: [
        ["ENTITY_REMOVED_GDPR", 5],
        ["ENTITY_LOST_MERGE", 8],
      ],
      want: ["line 2 EVENT-STREAM-01"],
    },
  ],
];

describe("stream rules", () => {
  it.each(cases)("%s", async (_name, { given, want, duplicates }) => {
    const result = await check(given);
    expect(result.problems).toEqual(want);
    expect(result.invalid).toBe(new Set(want.map((w) => w.split(" EVENT")[0])).size);
    if (duplicates !== undefined) expect(result.duplicates).toBe(duplicates);
  });

  it("keeps objects apart", async () => {
    const lines = [
      line(["ENTITY_REMOVED_GDPR", 5], "entities/A"),
      line(["ENTITY_CHANGED", 6], "entities/B"),
      line(["ENTITY_CHANGED", 5], "entities/B"),
    ];
    const result = await checkStream(memorySource(linesAsMessages(lines)));
    expect(result.problems).toEqual([]);
  });

  it("counts a message flagged at the end as invalid once", async () => {
    const lines = [
      line(["ENTITY_REMOVED_GDPR", 1]),
      line(["ENTITY_REMOVED_GDPR", 2]),
      line(["ENTITY_CHANGED", 3]),
    ];
    const result = await checkStream(memorySource(linesAsMessages(lines)));
    expect(result.problems.map((p) => p.evidence.position)).toEqual(["line 3"]);
    expect([result.valid, result.invalid]).toEqual([2, 1]);
  });

  it("caps the problem list and counts the rest", async () => {
    const lines = Array.from({ length: 30 }, () => "not json");
    const result = await checkStream(memorySource(linesAsMessages(lines)), { maxProblems: 10 });
    expect([result.problems.length, result.droppedProblems, result.byRule["EVENT-DELIVERY-01"]]).toEqual([
      10, 20, 30,
    ]);
  });

  it("reports the source's notices", async () => {
    const notice = { kind: "gap" as const, message: "queue was down for 3 s", at: 1 };
    const result = await checkStream(memorySource([], "broker", [notice]));
    expect(result.notices).toEqual([notice]);
  });
});

describe("bounded memory of the stream rules (maxTrackedVersions)", () => {
  const linesFor = (steps: [Step, string][]) => steps.map(([step, uri]) => line(step, uri));
  const run = (steps: [Step, string][], maxTrackedVersions: number) =>
    checkStream(memorySource(linesAsMessages(linesFor(steps))), { maxTrackedVersions });

  it("forgets the objects seen longest ago once the window is full, and counts them", async () => {
    const steps: [Step, string][] = Array.from({ length: 50 }, (_, index) => [
      ["ENTITY_CREATED", 1],
      `entities/E${index}`,
    ]);
    const result = await run(steps, 10);
    expect(result.evictedObjects).toBe(40);
    expect(result.invalid).toBe(0);
  });

  it("still flags objectVersion reuse inside the window", async () => {
    const result = await run(
      [
        [["ENTITY_CREATED", 1, "a"], "entities/A"],
        [["ENTITY_CREATED", 1, "b"], "entities/A"],
      ],
      10,
    );
    expect(result.problems.map((problem) => problem.requirement)).toEqual(["EVENT-HEADERS-03"]);
  });

  it("settles a GDPR suspicion when its entity is forgotten, without losing a re-creation in between", async () => {
    const gdpr: [Step, string][] = [
      [["ENTITY_REMOVED_GDPR", 2], "entities/G"],
      [["ENTITY_CREATED", 3], "entities/G"],
      [["ENTITY_CHANGED", 4], "entities/G"],
    ];
    const filler: [Step, string][] = Array.from({ length: 20 }, (_, index) => [
      ["ENTITY_CREATED", 1],
      `entities/F${index}`,
    ]);
    const recreated = await run([...gdpr, ...filler], 5);
    expect(recreated.evictedObjects).toBeGreaterThan(0);
    expect(recreated.problems).toEqual([]);

    const violated = await run([gdpr[0] as [Step, string], gdpr[2] as [Step, string], ...filler], 5);
    expect(violated.problems.map((problem) => problem.requirement)).toEqual(["EVENT-STREAM-01"]);
  });
});
