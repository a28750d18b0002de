// Filtering fields and the other configuration-dependent rules, case by case.
import { describe, expect, it } from "vitest";
import { checkMessage } from "../../src/events/judge/event-message.ts";
import {
  parseStreamingConfig,
  resolveStreamingConfig,
  type StreamingConfig,
} from "../../src/events/streaming-config.ts";

const entity = {
  uri: "entities/E1",
  type: "configuration/entityTypes/HCP",
  label: "Ada",
  attributes: {
    FirstName: [{ type: "configuration/entityTypes/HCP/attributes/FirstName", ov: true, value: "Ada" }],
    Phone: [{ type: "configuration/entityTypes/HCP/attributes/Phone", ov: true, value: "555" }],
  },
};
const relation = {
  uri: "relations/R1",
  type: "configuration/relationTypes/HasAddress",
  createdBy: "alice",
  createdTime: 1,
  updatedBy: "alice",
  updatedTime: 2,
  startRefPinned: false,
  startRefIgnored: false,
  endRefPinned: false,
  endRefIgnored: false,
  attributes: {},
  crosswalks: [],
};

function message(payload: Record<string, unknown>, headers: Record<string, unknown> = {}): string {
  const object = payload.object as { uri?: string } | undefined;
  return JSON.stringify({
    headers: {
      tenantId: "acme",
      eventType: payload.type,
      sourceObjectUri: object?.uri ?? payload.uri,
      ...headers,
    },
    payload,
  });
}

const cases: [string, { config: StreamingConfig; body: string; want: string[] }][] = [
  [
    "listed fields only",
    {
      config: { JMSEventsFilteringFields: ["label", "attributes"] },
      body: message({ type: "ENTITY_CREATED", object: entity }),
      want: [],
    },
  ],
  [
    "a field not listed",
    {
      config: { JMSEventsFilteringFields: ["attributes"] },
      body: message({ type: "ENTITY_CREATED", object: entity }),
      want: ["EVENT-FILTER-01 /payload/object/label"],
    },
  ],
  [
    "uri and type are always tolerated",
    {
      config: { JMSEventsFilteringFields: [] },
      body: message({
        type: "ENTITY_CREATED",
        object: { uri: "entities/E1", type: "configuration/entityTypes/HCP" },
      }),
      want: [],
    },
  ],
  [
    "dotted entries select attributes",
    {
      config: { JMSEventsFilteringFields: ["label", "attributes.FirstName"] },
      body: message({ type: "ENTITY_CREATED", object: entity }),
      want: ["EVENT-FILTER-01 /payload/object/attributes/Phone"],
    },
  ],
  [
    "relationships use RelationEventsFilteringFields",
    {
      config: {
        JMSEventsFilteringFields: [],
        RelationEventsFilteringFields: Object.keys(relation).filter((k) => k !== "crosswalks"),
      },
      body: message({ type: "RELATIONSHIP_CREATED", object: relation }),
      want: ["EVENT-FILTER-03 /payload/object/crosswalks"],
    },
  ],
  [
    "interactions use JMSEventsFilteringFields",
    {
      config: { JMSEventsFilteringFields: ["timestamp"] },
      body: message({
        type: "INTERACTION_CREATED",
        object: { uri: "interactions/I1", timestamp: 1, members: {} },
      }),
      want: ["EVENT-FILTER-01 /payload/object/members"],
    },
  ],
  [
    "absent property: all available fields, uri missing",
    {
      config: {},
      body: message(
        { type: "ENTITY_CREATED", object: { type: "configuration/entityTypes/HCP", label: "Ada" } },
        { sourceObjectUri: "entities/E1" },
      ),
      want: ["EVENT-FILTER-02 /payload/object"],
    },
  ],
  [
    "absent property: the documented relationship shape",
    {
      config: {},
      body: message({ type: "RELATIONSHIP_CREATED", object: { ...relation, startRefPinned: undefined } }),
      want: ["EVENT-OBJECT-04 /payload/object"],
    },
  ],
  [
    "objectVersion listed: header required",
    {
      config: { JMSEventsFilteringFields: ["label", "attributes", "objectVersion"] },
      body: message({ type: "ENTITY_CREATED", object: entity }),
      want: ["EVENT-HEADERS-02 /headers"],
    },
  ],
  [
    "objectVersion not listed: header forbidden",
    {
      config: { JMSEventsFilteringFields: ["label", "attributes"] },
      body: message({ type: "ENTITY_CREATED", object: entity }, { objectVersion: 4 }),
      want: ["EVENT-HEADERS-02 /headers/objectVersion"],
    },
  ],
  [
    "payloadType deltas and a deltas message",
    {
      config: { payloadType: "DELTA" },
      body: message({ type: "RELATIONSHIP_CHANGED", uri: "relations/R1", deltas: {} }),
      want: [],
    },
  ],
  [
    "payloadType deltas and a snapshot",
    {
      config: { payloadType: "deltas" },
      body: message({ type: "ENTITY_CREATED", object: entity }),
      want: ["EVENT-PAYLOAD-01 /payload"],
    },
  ],
  [
    "default payloadType is snapshot",
    {
      config: {},
      body: message({ type: "RELATIONSHIP_CHANGED", uri: "relations/R1", deltas: {} }),
      want: ["EVENT-PAYLOAD-01 /payload"],
    },
  ],
  [
    "large-object fallback allowed unless largeObjectsSupport is false",
    {
      config: {},
      body: message({ type: "ENTITY_REMOVED", uri: "entities/E1", exceededQueueSizeLimit: true }),
      want: [],
    },
  ],
  [
    "large-object fallback with largeObjectsSupport false",
    {
      config: { largeObjectsSupport: false },
      body: message({ type: "ENTITY_REMOVED", uri: "entities/E1", exceededQueueSizeLimit: true }),
      want: ["EVENT-STREAM-03 /payload"],
    },
  ],
  [
    "analyzeOvChanges true needs ovChanged",
    {
      config: { analyzeOvChanges: true },
      body: message({ type: "ENTITY_CHANGED", object: entity }),
      want: ["EVENT-PAYLOAD-03 /payload"],
    },
  ],
  [
    "analyzeOvChanges false lets ovChanged be absent",
    {
      config: { analyzeOvChanges: false },
      body: message({ type: "ENTITY_CHANGED", object: entity }),
      want: [],
    },
  ],
];

describe("configuration-dependent rules", () => {
  it.each(cases)("%s", (_name, { config, body, want }) => {
    const problems = checkMessage({ position: "line 1", body }, { config });
    expect(problems.map((p) => `${p.requirement} ${p.evidence.instancePath}`)).toEqual(want);
  });

  it("are skipped without a configuration", () => {
    for (const [, { body }] of cases) {
      expect(checkMessage(body).filter((p) => p.requirement.startsWith("EVENT-FILTER"))).toEqual([]);
    }
  });
});

describe("streaming configuration", () => {
  it.each([
    ["JSON", '{"JMSEventsFilteringFields": ["uri"], "payloadType": "snapshot"}'],
    ["YAML", "JMSEventsFilteringFields: [uri]\npayloadType: snapshot\n"],
  ])("parses %s", (_format, text) => {
    expect(parseStreamingConfig(text)).toEqual({
      JMSEventsFilteringFields: ["uri"],
      payloadType: "snapshot",
    });
  });

  it.each([
    ["a list that is a string", '{"JMSEventsFilteringFields": "uri"}', /JMSEventsFilteringFields/],
    ["an unknown payload type", '{"payloadType": "full"}', /payloadType/],
    ["not an object", "[1, 2]", /streaming-config\.schema\.json/],
    ["broken YAML", "a: [", /neither JSON nor YAML/],
  ])("rejects %s", (_name, text, message) => {
    expect(() => parseStreamingConfig(text)).toThrow(message);
  });

  it("resolves the objectVersion header rule", () => {
    expect(resolveStreamingConfig({}).objectVersionHeader).toBe("either");
    expect(resolveStreamingConfig({ JMSEventsFilteringFields: ["objectVersion"] }).objectVersionHeader).toBe(
      "required",
    );
    expect(resolveStreamingConfig({ JMSEventsFilteringFields: ["uri"] }).objectVersionHeader).toBe(
      "forbidden",
    );
  });
});

describe("per-kind filtering fields: EVENT-FILTER-05/06 under a listed configuration, EVENT-FILTER-07 without", () => {
  const interaction = {
    uri: "interactions/I1",
    type: "configuration/interactionTypes/Email",
    timestamp: 1,
    members: {},
  };
  /** A configuration that lists every field of the object, so that only its kind can be at fault. */
  const listing = (payload: Record<string, unknown>): StreamingConfig => {
    const fields = Object.keys(payload.object as object);
    return String(payload.type).startsWith("RELATION")
      ? { RelationEventsFilteringFields: fields }
      : { JMSEventsFilteringFields: fields };
  };
  const found = (payload: Record<string, unknown>, config?: StreamingConfig) =>
    checkMessage(message(payload), config ? { config } : {}).map(
      (p) => `${p.requirement}/${p.evidence.severity} ${p.evidence.instancePath}`,
    );
  it.each<[string, Record<string, unknown>, string | undefined]>([
    ["an entity with its own fields", { type: "ENTITY_CHANGED", object: entity }, undefined],
    [
      "an entity with category and potential-match fields (no event types of their own)",
      {
        type: "ENTITY_CREATED",
        object: { ...entity, analyticsAttributes: {}, potentialMatchTOs: [], matchScore: 1 },
      },
      undefined,
    ],
    [
      "an interaction with timestamp and members",
      { type: "INTERACTION_CREATED", object: interaction },
      undefined,
    ],
    [
      "a relationship with startObject and endObject",
      { type: "RELATIONSHIP_CREATED", object: { ...relation, startObject: {}, endObject: {} } },
      undefined,
    ],
    [
      "an entity with members",
      { type: "ENTITY_CHANGED", object: { ...entity, members: {} } },
      "EVENT-FILTER-05 /payload/object/members",
    ],
    [
      "an interaction with label",
      { type: "INTERACTION_CHANGED", object: { ...interaction, label: "x" } },
      "EVENT-FILTER-05 /payload/object/label",
    ],
    [
      "a relationship with roles",
      { type: "RELATIONSHIP_CREATED", object: { ...relation, roles: [] } },
      "EVENT-FILTER-05 /payload/object/roles",
    ],
    [
      "a relationship with analyticsAttributes (the vendor's own sample)",
      { type: "RELATIONSHIP_CREATED", object: { ...relation, analyticsAttributes: {} } },
      "EVENT-FILTER-05 /payload/object/analyticsAttributes",
    ],
    [
      "an entity with endRefPinned",
      { type: "ENTITY_CHANGED", object: { ...entity, endRefPinned: true } },
      "EVENT-FILTER-06 /payload/object/endRefPinned",
    ],
    [
      "an interaction with startObject",
      { type: "INTERACTION_CREATED", object: { ...interaction, startObject: {} } },
      "EVENT-FILTER-06 /payload/object/startObject",
    ],
  ])("%s", (_name, payload, misplaced) => {
    const [rule, path] = misplaced?.split(" ") ?? [];
    // Listed (every field of the object in its property): the object holds only its kind's fields, at MUST.
    expect(found(payload, listing(payload))).toEqual(misplaced ? [`${rule}/error ${path}`] : []);
    // No configuration: all available fields are included, so the same field is a SHOULD warning.
    expect(found(payload)).toEqual(misplaced ? [`EVENT-FILTER-07/warning ${path}`] : []);
  });

  it("a configuration that sets only the other property leaves the object's kind unjudged at MUST", () => {
    const payload = { type: "RELATIONSHIP_CREATED", object: { ...relation, analyticsAttributes: {} } };
    expect(found(payload, { JMSEventsFilteringFields: ["uri", "label"] })).toEqual([
      "EVENT-FILTER-07/warning /payload/object/analyticsAttributes",
    ]);
  });

  it("a listed configuration that leaves the field out: not listed (EVENT-FILTER-03) and of another kind, both MUST", () => {
    const payload = { type: "RELATIONSHIP_CREATED", object: { ...relation, analyticsAttributes: {} } };
    expect(found(payload, { RelationEventsFilteringFields: Object.keys(relation) })).toEqual([
      "EVENT-FILTER-03/error /payload/object/analyticsAttributes",
      "EVENT-FILTER-05/error /payload/object/analyticsAttributes",
    ]);
  });
});
