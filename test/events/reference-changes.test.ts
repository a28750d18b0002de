// The entity side of EVENT-STREAM-02: an ENTITY_CHANGED whose own content shows a change of a reference
// attribute (a deltas item on a value carrying refEntity, or snapshot reference values that differ from the
// entity's previous objectVersion) carries ovChanged true. Each fault caught by EVENT-STREAM-02 only; what
// a stream cannot tell (a plain change, a gap or reordering between versions, ovChanged absent) accepted.
import { describe, expect, it } from "vitest";
import { checkStream } from "../../src/events/judge/event-stream.ts";
import { linesAsMessages, memorySource } from "../../src/events/transport/sources/index.ts";

const hcp = "configuration/entityTypes/HCP";

function reference(hco: string, name = "Downtown", id = "w1"): Record<string, unknown> {
  return {
    type: `${hcp}/attributes/Workplace`,
    ov: true,
    value: { Name: [{ type: `${hcp}/attributes/Workplace/attributes/Name`, ov: true, value: name }] },
    uri: `entities/y/attributes/Workplace/${id}`,
    refEntity: { objectURI: `entities/${hco}` },
    refRelation: { objectURI: `relations/r-${id}` },
  };
}

function snapshot(
  version: number,
  ovChanged: boolean | undefined,
  attributes: Record<string, unknown[]>,
  type = "ENTITY_CHANGED",
): string {
  return JSON.stringify({
    headers: { tenantId: "acme", eventType: type, sourceObjectUri: "entities/y", objectVersion: version },
    payload: {
      type,
      ...(ovChanged === undefined ? {} : { ovChanged }),
      object: { uri: "entities/y", type: hcp, attributes },
    },
  });
}

const plain = (value: string) => [{ type: `${hcp}/attributes/FirstName`, ov: true, value }];

function deltas(ovChanged: boolean | undefined, items: unknown[]): string {
  return JSON.stringify({
    type: "ENTITY_CHANGED",
    uri: "entities/y",
    deltas: { ...(ovChanged === undefined ? {} : { ovChanged }), delta: items },
  });
}

const referenceItem = {
  type: "ATTRIBUTE_CHANGED",
  attributeType: `${hcp}/attributes/Workplace`,
  oldValue: { ov: true, id: "w1", refEntity: { objectURI: "entities/hco-1" } },
  newValue: { ov: true, id: "w1+", refEntity: { objectURI: "entities/hco-1" } },
};
const plainItem = {
  type: "ATTRIBUTE_CHANGED",
  attributeType: `${hcp}/attributes/FirstName`,
  oldValue: { value: "Ann", ov: true, id: "f1", sources: ["Reltio"] },
  newValue: { value: "Anna", ov: true, id: "f1", sources: ["Reltio"] },
};

async function errorsOf(lines: string[]): Promise<string[]> {
  const result = await checkStream(memorySource(linesAsMessages(lines)), {});
  return result.problems
    .filter((p) => p.evidence.severity === "error")
    .map((p) => `${p.requirement}@${p.evidence.position}${p.evidence.instancePath}`);
}

describe("EVENT-STREAM-02, entity side: faults", () => {
  it.each<[string, string[], string[]]>([
    [
      "a deltas ENTITY_CHANGED changing a reference attribute with ovChanged false",
      [deltas(false, [plainItem, referenceItem])],
      ["EVENT-STREAM-02@line 1/payload/deltas/ovChanged"],
    ],
    [
      "a reference value removed (oldValue only) with ovChanged false",
      [deltas(false, [{ type: "ATTRIBUTE_REMOVED", attributeType: "x", oldValue: referenceItem.oldValue }])],
      ["EVENT-STREAM-02@line 1/payload/deltas/ovChanged"],
    ],
    [
      "the referenced entity's name changed between objectVersion 1 and 2, ovChanged false",
      [
        snapshot(1, true, { Workplace: [reference("hco-1", "Downtown")] }),
        snapshot(2, false, { Workplace: [reference("hco-1", "Uptown")] }),
      ],
      ["EVENT-STREAM-02@line 2/payload/ovChanged"],
    ],
    [
      "after ENTITY_CREATED, a second reference value appears with ovChanged false",
      [
        snapshot(1, undefined, { Workplace: [reference("hco-1")] }, "ENTITY_CREATED"),
        snapshot(2, false, { Workplace: [reference("hco-1"), reference("hco-2", "Main", "w2")] }),
      ],
      ["EVENT-STREAM-02@line 2/payload/ovChanged"],
    ],
  ])("%s", async (_name, lines, want) => {
    expect(await errorsOf(lines)).toEqual(want);
  });
});

describe("EVENT-STREAM-02, entity side: legal variety is accepted", () => {
  it.each<[string, string[]]>([
    ["a reference change with ovChanged true", [deltas(true, [referenceItem])]],
    ["a reference change without ovChanged (analyzeOvChanges false)", [deltas(undefined, [referenceItem])]],
    ["a plain change of an entity with ovChanged false", [deltas(false, [plainItem])]],
    [
      "a plain change beside unchanged reference values, ovChanged false",
      [
        snapshot(1, true, { FirstName: plain("Ann"), Workplace: [reference("hco-1")] }),
        snapshot(2, false, { FirstName: plain("Anna"), Workplace: [reference("hco-1")] }),
      ],
    ],
    [
      "the same reference values in another order and key order",
      [
        snapshot(1, true, { Workplace: [reference("hco-1"), reference("hco-2", "Main", "w2")] }),
        snapshot(2, false, {
          Workplace: [
            Object.fromEntries(Object.entries(reference("hco-2", "Main", "w2")).reverse()),
            reference("hco-1"),
          ],
        }),
      ],
    ],
    [
      "a gap between the versions (the change may have been in the one not seen)",
      [
        snapshot(1, true, { Workplace: [reference("hco-1", "Downtown")] }),
        snapshot(3, false, { Workplace: [reference("hco-1", "Uptown")] }),
      ],
    ],
    [
      "versions delivered out of order (the later first)",
      [
        snapshot(2, false, { Workplace: [reference("hco-1", "Uptown")] }),
        snapshot(1, true, { Workplace: [reference("hco-1", "Downtown")] }),
      ],
    ],
    [
      "a redelivered correct change",
      [
        snapshot(1, true, { Workplace: [reference("hco-1", "Downtown")] }),
        snapshot(2, true, { Workplace: [reference("hco-1", "Uptown")] }),
        snapshot(2, true, { Workplace: [reference("hco-1", "Uptown")] }),
      ],
    ],
    ["attributes filtered out: nothing shows the reference", [snapshot(1, true, {}), snapshot(2, false, {})]],
  ])("%s", async (_name, lines) => {
    expect(await errorsOf(lines)).toEqual([]);
  });
});

it("a companion flagged by both sides of EVENT-STREAM-02 is reported once", async () => {
  const relation = JSON.stringify({
    headers: {
      tenantId: "acme",
      eventType: "RELATIONSHIP_CREATED",
      sourceObjectUri: "relations/r-w2",
      objectVersion: 1,
    },
    payload: {
      type: "RELATIONSHIP_CREATED",
      object: {
        uri: "relations/r-w2",
        type: "configuration/relationTypes/Workplace",
        startObject: { objectURI: "entities/y" },
        endObject: { objectURI: "entities/hco-2" },
      },
    },
  });
  const filler = JSON.stringify({ type: "CHANGE_REQUEST_CHANGED" });
  // Version 1 two messages before the relationship event: outside its window, so no companion for it.
  const lines = [
    snapshot(1, true, { Workplace: [reference("hco-1")] }),
    filler,
    filler,
    relation,
    snapshot(2, false, { Workplace: [reference("hco-1"), reference("hco-2", "Main", "w2")] }),
    filler,
    filler,
    filler,
  ];
  const result = await checkStream(memorySource(linesAsMessages(lines)), {
    config: {
      JMSEventsFilteringFields: ["uri", "type", "attributes", "objectVersion"],
      RelationEventsFilteringFields: ["uri", "type", "startObject", "endObject"],
      referenceRelationTypes: ["Workplace"],
      companionWindow: { messages: 1, seconds: 0 },
    },
  });
  expect(result.problems.map((p) => `${p.requirement}@${p.evidence.position}`)).toEqual([
    "EVENT-STREAM-02@line 5",
  ]);
  expect(result.byRule).toEqual({ "EVENT-STREAM-02": 1 });
});
