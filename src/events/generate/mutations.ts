// Named rule-breaking mutations of valid messages: each turns a valid message into NDJSON lines of which
// the last breaks exactly one rule (earlier lines are a valid lead-in, for the stream rules). Tests
// check that the checker reports that rule and nothing else; the fixtures use the same ideas.

import { defaultMaxDepth } from "../document/nesting-limit.ts";
import { rule } from "../document/requirements.ts";
import type { StreamingConfig } from "../streaming-config.ts";
import type { EventMessage, MessageFilter } from "./event-message.ts";
import { nestedAttributeValue } from "./nested-values.ts";

export interface Mutation {
  name: string;
  /** Requirement id the mutated message breaks. */
  rule: string;
  /** "warning" for SHOULD-level rules (the message still conforms). */
  severity: "error" | "warning";
  /** The valid messages the mutation starts from. */
  from: MessageFilter;
  /** Streaming configuration the result is checked under (built from the original message), if any. */
  config?: (message: EventMessage) => StreamingConfig;
  /** The 1-based line the problem is reported at, when not the last (a relationship event whose
   *  companion the lines after it lack). */
  at?: number;
  apply(message: EventMessage): string[];
}

/** The fields both filtering properties share: what every kind of object may carry. */
const commonFields = new Set([
  "uri",
  "type",
  "createdBy",
  "createdTime",
  "updatedBy",
  "updatedTime",
  "startDate",
  "endDate",
  "attributes",
  "crosswalks",
  "tags",
  "ratings",
  "consolidatedRating",
]);

function clone(message: EventMessage): EventMessage {
  return structuredClone(message);
}

function line(message: EventMessage): string {
  return JSON.stringify(message);
}

function objectOf(message: EventMessage): Record<string, unknown> {
  const object = message.payload.object;
  if (object === null || typeof object !== "object" || Array.isArray(object)) {
    throw new Error("mutation needs a snapshot message (payload.object)");
  }
  return object as Record<string, unknown>;
}

function edit(message: EventMessage, change: (copy: EventMessage) => void): string[] {
  const copy = clone(message);
  change(copy);
  return [line(copy)];
}

/** A configuration under which the message is valid: its own fields listed, its own payload kind. */
export function configAllowing(message: EventMessage, extra: StreamingConfig = {}): StreamingConfig {
  const object = message.payload.object as Record<string, unknown> | undefined;
  const fields = object ? Object.keys(object) : [];
  const relationship = String(message.payload.type).startsWith("RELATION");
  const jms = relationship ? [] : [...fields];
  if ("objectVersion" in message.headers) jms.push("objectVersion");
  return {
    JMSEventsFilteringFields: jms,
    RelationEventsFilteringFields: relationship ? [...fields] : [],
    payloadType: "deltas" in message.payload ? "deltas" : "snapshot",
    largeObjectsSupport: true,
    analyzeOvChanges: false,
    ...extra,
  };
}

type FilteringProperty = "JMSEventsFilteringFields" | "RelationEventsFilteringFields";

/** The configuration allowing the message, with `field` added to the filtering property's list. */
const configListing =
  (property: FilteringProperty, field: string) =>
  (message: EventMessage): StreamingConfig => {
    const config = configAllowing(message);
    return { ...config, [property]: [...(config[property] ?? []), field] };
  };

/** The configuration allowing the message, with `field` left out of the filtering property's list. */
const configWithout =
  (property: FilteringProperty, field: string) =>
  (message: EventMessage): StreamingConfig => {
    const config = configAllowing(message);
    config[property] = config[property]?.filter((listed) => listed !== field);
    return config;
  };

const entityTypes = ["ENTITY_CREATED", "ENTITY_CHANGED", "ENTITY_REMOVED", "ENTITY_LOST_MERGE"];
const nonOvTypes = ["ENTITY_CREATED", "RELATIONSHIP_CREATED", "INTERACTION_CREATED", "ENTITY_LOST_MERGE"];
const relationshipTypes = ["RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED", "RELATIONSHIP_MERGED"];
const changeRequestTypes = ["CHANGE_REQUEST_CREATED", "CHANGE_REQUEST_CHANGED", "CHANGE_REQUEST_REMOVED"];

function mutation(
  name: string,
  ruleId: string,
  from: MessageFilter,
  apply: (message: EventMessage) => string[],
  extra: Partial<Pick<Mutation, "config" | "severity" | "at">> = {},
): Mutation {
  return {
    name,
    rule: ruleId,
    severity: extra.severity ?? "error",
    from,
    apply,
    config: extra.config,
    ...(extra.at === undefined ? {} : { at: extra.at }),
  };
}

const referenceTypes = ["RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED", "RELATIONSHIP_REMOVED"];

/** The relationship with both ends named (they are optional in generated objects), and its start. */
function withEnds(message: EventMessage): { copy: EventMessage; start: string } {
  const copy = clone(message);
  const object = objectOf(copy);
  const id = String(object.uri ?? "relations/x")
    .split("/")
    .at(-1);
  const start = `entities/start-${id}`;
  object.startObject = { objectURI: start, type: "configuration/entityTypes/HCP" };
  object.endObject = { objectURI: `entities/end-${id}`, type: "configuration/entityTypes/Location" };
  return { copy, start };
}

/** Valid messages about nothing else (change requests), to move the companion window past a message. */
function fillers(message: EventMessage, count: number): string[] {
  return Array.from({ length: count }, (_, index) => {
    const headers: Record<string, unknown> = {
      tenantId: message.headers.tenantId ?? "acme",
      eventType: "CHANGE_REQUEST_CHANGED",
      sourceObjectUri: `changeRequests/filler-${index}`,
    };
    if ("objectVersion" in message.headers) headers.objectVersion = 1;
    return JSON.stringify({ headers, payload: { type: "CHANGE_REQUEST_CHANGED" } });
  });
}

/** An ENTITY_CHANGED companion for `uri`, with ovChanged as given. */
function companion(message: EventMessage, uri: string, ovChanged: boolean): string {
  const headers: Record<string, unknown> = {
    tenantId: message.headers.tenantId ?? "acme",
    eventType: "ENTITY_CHANGED",
    sourceObjectUri: uri,
  };
  if ("objectVersion" in message.headers) headers.objectVersion = 7;
  return JSON.stringify({
    headers,
    payload: { type: "ENTITY_CHANGED", ovChanged, object: { uri, type: "configuration/entityTypes/HCP" } },
  });
}

/** The relationship's type as a reference relation type, a window of one message, the ends listed. */
function referenceConfig(message: EventMessage): StreamingConfig {
  const config = configAllowing(message, { companionWindow: { messages: 1, seconds: 0 } });
  return {
    ...config,
    RelationEventsFilteringFields: [
      ...(config.RelationEventsFilteringFields ?? []),
      "startObject",
      "endObject",
    ],
    referenceRelationTypes: [String(objectOf(message).type)],
  };
}

export const mutations: readonly Mutation[] = [
  mutation("body cut off in the middle", rule.json, {}, (m) => {
    const text = line(m);
    return [text.slice(0, Math.floor(text.length / 2))];
  }),
  mutation("tenantId header missing", rule.headers, {}, (m) =>
    edit(m, (c) => {
      delete c.headers.tenantId;
    }),
  ),
  mutation("objectVersion header not an integer", rule.objectVersion, { objectVersion: "always" }, (m) =>
    edit(m, (c) => {
      c.headers.objectVersion = `${String(c.headers.objectVersion)}.5`;
    }),
  ),
  mutation(
    "objectVersion header missing although configured",
    rule.objectVersion,
    { objectVersion: "always", kinds: ["snapshot"] },
    (m) =>
      edit(m, (c) => {
        delete c.headers.objectVersion;
      }),
    { config: (m) => configAllowing(m) },
  ),
  mutation("eventType header differs from type", rule.headerAgreement, {}, (m) =>
    edit(m, (c) => {
      c.headers.eventType = c.payload.type === "ENTITY_CREATED" ? "ENTITY_REMOVED" : "ENTITY_CREATED";
    }),
  ),
  mutation(
    "sourceObjectUri header names another object",
    rule.headerAgreement,
    { kinds: ["snapshot", "deltas", "large-object"], shapes: "preferred" },
    (m) =>
      edit(m, (c) => {
        c.headers.sourceObjectUri = `${String(c.headers.sourceObjectUri)}-other`;
      }),
  ),
  mutation(
    "a different message reuses an objectVersion",
    rule.versionReuse,
    { objectVersion: "always", kinds: ["snapshot", "deltas"] },
    (m) => [
      line(m),
      ...edit(m, (c) => {
        if (c.payload.object) objectOf(c).updatedBy = "somebody-else";
        else (c.payload.deltas as Record<string, unknown>).eventId = "another-event";
      }),
    ],
  ),
  mutation("payload is an array", rule.payloadKind, {}, (m) => [
    JSON.stringify({ headers: m.headers, payload: [m.payload] }),
  ]),
  mutation(
    "snapshot although payloadType is deltas",
    rule.payloadKind,
    { kinds: ["snapshot"] },
    (m) => [line(m)],
    { config: (m) => configAllowing(m, { payloadType: "deltas" }) },
  ),
  mutation("unknown top-level field in a snapshot", rule.snapshot, { kinds: ["snapshot"] }, (m) =>
    edit(m, (c) => {
      c.payload.objectUri = c.headers.sourceObjectUri;
    }),
  ),
  mutation(
    "ovChanged on a type that has none",
    rule.ovChanged,
    { types: nonOvTypes, kinds: ["snapshot", "large-object"] },
    (m) =>
      edit(m, (c) => {
        c.payload.ovChanged = true;
      }),
  ),
  mutation(
    "ovChanged missing although analyzeOvChanges is true",
    rule.ovChanged,
    { types: ["ENTITY_CHANGED", "RELATIONSHIP_CHANGED"], kinds: ["snapshot"] },
    (m) =>
      edit(m, (c) => {
        delete c.payload.ovChanged;
      }),
    { config: (m) => configAllowing(m, { analyzeOvChanges: true }) },
  ),
  mutation("exceededQueueSizeLimit false", rule.exceededQueueSizeLimit, {}, (m) =>
    edit(m, (c) => {
      c.payload.exceededQueueSizeLimit = false;
    }),
  ),
  mutation("deltas message without uri", rule.deltas, { kinds: ["deltas"] }, (m) =>
    edit(m, (c) => {
      delete c.payload.uri;
    }),
  ),
  // With headers, sourceObjectUri carries the URI; a bare payload has nothing else to carry it.
  mutation(
    "large-object fallback without uri (bare payload)",
    rule.largeObject,
    { kinds: ["large-object"] },
    (m) => {
      const { uri: _uri, ...payload } = m.payload;
      return [JSON.stringify(payload)];
    },
  ),
  mutation("snapshot carrying exceededQueueSizeLimit true", rule.largeObject, { kinds: ["snapshot"] }, (m) =>
    edit(m, (c) => {
      c.payload.exceededQueueSizeLimit = true;
    }),
  ),
  mutation(
    "payload with neither object, deltas nor exceededQueueSizeLimit",
    rule.payloadKind,
    { kinds: ["snapshot", "deltas", "large-object"] },
    (m) =>
      edit(m, (c) => {
        delete c.payload.object;
        delete c.payload.deltas;
        delete c.payload.exceededQueueSizeLimit;
        c.payload.uri = c.headers.sourceObjectUri;
      }),
  ),
  mutation(
    "ENTITIES_SPLITTED message without uris",
    rule.splitUris,
    { types: ["ENTITIES_SPLITTED"], kinds: ["snapshot", "deltas"] },
    (m) =>
      edit(m, (c) => {
        delete c.payload.uris;
      }),
  ),
  mutation("change request payload with deltas", rule.changeRequest, { types: changeRequestTypes }, (m) =>
    edit(m, (c) => {
      c.payload.deltas = {};
    }),
  ),
  mutation("empty object", rule.objectNotEmpty, { kinds: ["snapshot"] }, (m) =>
    edit(m, (c) => {
      c.payload.object = {};
    }),
  ),
  mutation(
    "attribute value without ov",
    rule.attributeValue,
    { kinds: ["snapshot"], types: [...entityTypes, ...relationshipTypes] },
    (m) =>
      edit(m, (c) => {
        objectOf(c).attributes = {
          Country: [{ type: "configuration/entityTypes/HCP/attributes/Country", value: "US" }],
        };
      }),
  ),
  mutation(
    "lookupError without a numeric code",
    rule.lookupError,
    { kinds: ["snapshot"], types: [...entityTypes, ...relationshipTypes] },
    (m) =>
      edit(m, (c) => {
        objectOf(c).attributes = {
          Country: [
            {
              type: "configuration/entityTypes/HCP/attributes/Country",
              ov: true,
              value: "Atlantis",
              lookupRawValue: "Atlantis",
              lookupError: "Canonical value mapping is missing",
            },
          ],
        };
      }),
  ),
  mutation(
    "nested lookupError without a numeric code",
    rule.lookupError,
    { kinds: ["snapshot"], types: [...entityTypes, ...relationshipTypes] },
    (m) =>
      edit(m, (c) => {
        objectOf(c).attributes = { Address: [nestedAttributeValue(3, "Canonical value mapping is missing")] };
      }),
  ),
  mutation("nested deeper than the checker inspects", rule.json, { kinds: ["snapshot"] }, (m) =>
    edit(m, (c) => {
      const levels = Math.ceil(defaultMaxDepth / 3) + 1;
      objectOf(c).attributes = { Address: [nestedAttributeValue(levels)] };
    }),
  ),
  mutation(
    "relationship ref flag not a boolean",
    rule.relationshipObject,
    { kinds: ["snapshot"], types: relationshipTypes },
    (m) =>
      edit(m, (c) => {
        objectOf(c).startRefPinned = "no";
      }),
  ),
  mutation(
    "crosswalk date not ISO 8601",
    rule.crosswalk,
    { kinds: ["snapshot"], types: [...entityTypes, ...relationshipTypes] },
    (m) =>
      edit(m, (c) => {
        objectOf(c).crosswalks = [
          { type: "configuration/sources/SAP", value: "4711", createDate: "03/02/2016" },
        ];
      }),
  ),
  mutation(
    "tags not an array",
    rule.commonFields,
    { kinds: ["snapshot"], types: [...entityTypes, ...relationshipTypes] },
    (m) =>
      edit(m, (c) => {
        objectOf(c).tags = "vip";
      }),
  ),
  mutation(
    "entity field not listed in JMSEventsFilteringFields",
    rule.entityFilter,
    { kinds: ["snapshot"], types: entityTypes },
    (m) =>
      edit(m, (c) => {
        objectOf(c).label = "Not listed";
      }),
    {
      config: configWithout("JMSEventsFilteringFields", "label"),
    },
  ),
  mutation(
    "object lacks type although no filtering is configured",
    rule.allFields,
    { kinds: ["snapshot"], types: entityTypes },
    (m) =>
      edit(m, (c) => {
        delete objectOf(c).type;
      }),
    { config: () => ({}) },
  ),
  mutation(
    "relationship field not listed in RelationEventsFilteringFields",
    rule.relationFilter,
    { kinds: ["snapshot"], types: relationshipTypes },
    (m) => [line(m)],
    {
      config: configWithout("RelationEventsFilteringFields", "crosswalks"),
    },
  ),
  // The kit's preferred deltas shapes are SHOULD-level: the document does not show the structure of deltas.
  mutation(
    "delta message without eventId",
    rule.deltaMessage,
    { types: ["ENTITY_CHANGED"], kinds: ["deltas"], shapes: "preferred" },
    (m) =>
      edit(m, (c) => {
        delete (c.payload.deltas as Record<string, unknown>).eventId;
      }),
    { severity: "warning" },
  ),
  mutation(
    "delta item of an unknown type",
    rule.deltaItem,
    { types: ["ENTITY_CHANGED"], kinds: ["deltas"], shapes: "preferred" },
    (m) =>
      edit(m, (c) => {
        const deltas = c.payload.deltas as { deltaCollection: { delta: Record<string, unknown>[] } };
        const first = deltas.deltaCollection.delta[0];
        if (first) first.type = "ATTRIBUTE_MOVED";
      }),
    { severity: "warning" },
  ),
  mutation(
    "ATTRIBUTE_CHANGED with newValue equal to oldValue (keys in another order)",
    rule.deltaOnlyChanged,
    { types: ["ENTITY_CHANGED"], kinds: ["deltas"] },
    (m) =>
      edit(m, (c) => {
        const value = { value: "same", ov: true, id: "v1", sources: ["configuration/sources/SAP"] };
        const item = {
          type: "ATTRIBUTE_CHANGED",
          attributeType: "Country",
          oldValue: value,
          newValue: { sources: [...value.sources], id: "v1", ov: true, value: "same" },
        };
        const deltas = c.payload.deltas as Record<string, unknown>;
        const collection = deltas.deltaCollection as { delta?: unknown } | undefined;
        if (collection && Array.isArray(collection.delta)) collection.delta.push(item);
        else if (Array.isArray(deltas.delta)) deltas.delta.push(item);
        else c.payload.deltas = { ovChanged: false, delta: [item] };
      }),
  ),
  mutation(
    "event type in neither of the document's lists",
    rule.unknownType,
    { kinds: ["large-object"] },
    (m) =>
      edit(m, (c) => {
        c.payload.type = "ENTITY_EXPLODED";
        c.headers.eventType = "ENTITY_EXPLODED";
      }),
    { severity: "warning" },
  ),
  mutation("unsupported event type", rule.unsupportedType, {}, (m) =>
    edit(m, (c) => {
      c.payload.type = "RELATION_WOULD_CHANGE";
      c.headers.eventType = "RELATION_WOULD_CHANGE";
    }),
  ),
  mutation(
    "GROUP_* type (currently unused)",
    rule.unusedType,
    { types: ["ENTITY_CREATED", "ENTITY_REMOVED"], kinds: ["snapshot", "large-object"] },
    (m) =>
      edit(m, (c) => {
        c.payload.type = "GROUP_CHANGED";
        c.headers.eventType = "GROUP_CHANGED";
        // A group object: the entity's own fields (label, roles, ...) are no group's (EVENT-FILTER-05).
        const object = c.payload.object;
        if (object !== null && typeof object === "object" && !Array.isArray(object))
          for (const field of Object.keys(object))
            if (!commonFields.has(field)) delete (object as Record<string, unknown>)[field];
      }),
    { severity: "warning" },
  ),
  mutation(
    "ENTITY_CHANGED after ENTITY_REMOVED_GDPR",
    rule.gdpr,
    { types: entityTypes, kinds: ["snapshot"], objectVersion: "always" },
    (m) => {
      const version = Number(m.headers.objectVersion);
      const removed = { ...m.headers, eventType: "ENTITY_REMOVED_GDPR", objectVersion: version };
      const changed = { ...m.headers, eventType: "ENTITY_CHANGED", objectVersion: version + 1 };
      return [
        JSON.stringify({
          headers: removed,
          payload: { type: "ENTITY_REMOVED_GDPR", object: m.payload.object },
        }),
        JSON.stringify({ headers: changed, payload: { type: "ENTITY_CHANGED", object: m.payload.object } }),
      ];
    },
  ),
  mutation(
    "ENTITY_REMOVED_GDPR arriving after a later-versioned ENTITY_CHANGED",
    rule.gdpr,
    { types: entityTypes, kinds: ["snapshot"], objectVersion: "always" },
    (m) => {
      const version = Number(m.headers.objectVersion);
      const changed = { ...m.headers, eventType: "ENTITY_CHANGED", objectVersion: version + 1 };
      const removed = { ...m.headers, eventType: "ENTITY_REMOVED_GDPR", objectVersion: version };
      return [
        JSON.stringify({ headers: changed, payload: { type: "ENTITY_CHANGED", object: m.payload.object } }),
        JSON.stringify({
          headers: removed,
          payload: { type: "ENTITY_REMOVED_GDPR", object: m.payload.object },
        }),
      ];
    },
  ),
  mutation(
    "relationship event of a reference relation type without its ENTITY_CHANGED companion",
    rule.referenceCompanion,
    { types: referenceTypes, kinds: ["snapshot"] },
    (m) => [line(withEnds(m).copy), ...fillers(m, 2)],
    { config: referenceConfig, at: 1 },
  ),
  mutation(
    "the ENTITY_CHANGED companion of a reference relationship carries ovChanged false",
    rule.referenceOvChanged,
    { types: referenceTypes, kinds: ["snapshot"] },
    (m) => {
      const { copy, start } = withEnds(m);
      return [line(copy), companion(m, start, false), ...fillers(m, 1)];
    },
    { config: referenceConfig, at: 2 },
  ),
  mutation(
    "a deltas ENTITY_CHANGED lists a reference attribute change but carries ovChanged false",
    rule.referenceOvChanged,
    { types: ["ENTITY_CHANGED"], kinds: ["deltas"], shapes: "preferred" },
    (m) =>
      edit(m, (c) => {
        const collection = (c.payload.deltas as Record<string, unknown>).deltaCollection as {
          ovChanged: boolean;
          delta: unknown[];
        };
        collection.ovChanged = false;
        collection.delta.push({
          type: "ATTRIBUTE_CHANGED",
          attributeType: "configuration/entityTypes/HCP/attributes/Workplace",
          oldValue: { ov: true, id: "w1", refEntity: { objectURI: "entities/hco-1" } },
          newValue: { ov: true, id: "w1+", refEntity: { objectURI: "entities/hco-1" } },
        });
      }),
  ),
  mutation(
    "a snapshot ENTITY_CHANGED whose reference attribute changed since the previous objectVersion carries ovChanged false",
    rule.referenceOvChanged,
    { types: ["ENTITY_CHANGED"], kinds: ["snapshot"], objectVersion: "always" },
    (m) => {
      const before = clone(m);
      const after = clone(m);
      after.headers.objectVersion = Number(m.headers.objectVersion) + 1;
      after.payload.ovChanged = false;
      for (const [copy, name] of [
        [before, "Downtown"],
        [after, "Uptown"],
      ] as const) {
        const object = objectOf(copy);
        object.attributes = {
          ...(object.attributes as object | undefined),
          Workplace: [
            {
              type: "configuration/entityTypes/HCP/attributes/Workplace",
              ov: true,
              value: { Name: [{ type: "x", ov: true, value: name }] },
              uri: `${String(object.uri)}/attributes/Workplace/w1`,
              refEntity: { objectURI: "entities/hco-1" },
              refRelation: { objectURI: "relations/r-1" },
            },
          ],
        };
      }
      return [line(before), line(after)];
    },
  ),
  mutation(
    "an entity object carries members, a field of interactions, under a configuration that lists it",
    rule.entityKindFields,
    { types: entityTypes, kinds: ["snapshot"] },
    (m) =>
      edit(m, (c) => {
        objectOf(c).members = {};
      }),
    {
      // Listed, so that only the object kind is at fault (the listed configuration is what makes it MUST).
      config: configListing("JMSEventsFilteringFields", "members"),
    },
  ),
  mutation(
    "a relationship object carries label, a field of entities, under a configuration that lists it",
    rule.entityKindFields,
    { types: relationshipTypes, kinds: ["snapshot"] },
    (m) =>
      edit(m, (c) => {
        objectOf(c).label = "Not a relationship field";
      }),
    {
      config: configListing("RelationEventsFilteringFields", "label"),
    },
  ),
  // Without the filtering property all available fields are included: the vendor's own RELATIONSHIP_CREATED
  // sample carries analyticsAttributes, so a per-kind field of another kind is a warning only.
  mutation(
    "a relationship object carries analyticsAttributes without RelationEventsFilteringFields",
    rule.unlistedKindField,
    { types: relationshipTypes, kinds: ["snapshot"] },
    (m) =>
      edit(m, (c) => {
        objectOf(c).analyticsAttributes = {};
      }),
    { severity: "warning" },
  ),
  mutation(
    "an interaction object carries startObject, a field of relationships",
    rule.relationKindFields,
    { types: ["INTERACTION_CREATED", "INTERACTION_CHANGED"], kinds: ["snapshot"] },
    (m) =>
      edit(m, (c) => {
        objectOf(c).startObject = { objectURI: "entities/x", type: "configuration/entityTypes/HCP" };
      }),
    {
      // Listed, so that only the object kind is at fault (JMSEventsFilteringFields would not list it).
      config: configListing("JMSEventsFilteringFields", "startObject"),
    },
  ),
  mutation(
    "large-object fallback although largeObjectsSupport is false",
    rule.largeObjectConfig,
    { kinds: ["large-object"] },
    (m) => [line(m)],
    { config: (m) => configAllowing(m, { largeObjectsSupport: false }) },
  ),
];
