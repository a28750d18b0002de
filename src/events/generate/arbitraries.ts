// fast-check arbitraries of valid event messages: every event type of the document, every payload kind
// (snapshot, deltas, large-object fallback; a change request's name-only payload), headers that agree
// with the payload. The named rule-breaking mutations live in mutations.ts and are re-exported here.
import fc from "fast-check";
import { ovChangedTypes, relationshipShapeFields } from "../document/payload-fields.ts";
import { type EventTypeInfo, eventSchemas, type ObjectKind } from "../event-schemas.ts";
import { type PayloadKind, payloadKindsOf } from "../payload-kind.ts";

import type { EventMessage, MessageFilter } from "./event-message.ts";
import { nestedAttributeValue } from "./nested-values.ts";
import { reversedKeys } from "./redeliveries.ts";

export type { EventMessage, MessageFilter } from "./event-message.ts";
export { type Mutation, mutations } from "./mutations.ts";
export { nestedAttributeValue };

const uriId = fc.stringMatching(/^[0-9A-Za-z]{7}$/);
const epochMs = fc.integer({ min: 1_400_000_000_000, max: 2_000_000_000_000 });
const isoTimestamp = fc
  .date({ min: new Date("2015-01-01T00:00:00Z"), max: new Date("2035-12-31T23:59:59Z"), noInvalidDate: true })
  .map((date) => date.toISOString());
const user = fc.constantFrom("alice", "bob", "integration.user", "sync@acme.example");
const attributeName = fc.constantFrom("FirstName", "LastName", "Country", "Gender", "Phone", "Specialty");
const sourceType = fc.constantFrom(
  "configuration/sources/Reltio",
  "configuration/sources/SAP",
  "configuration/sources/Salesforce",
);
const simpleValue = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean());

/** lookupError: a numeric code first; 1003 when the canonical value mapping is missing. */
export const lookupError = fc
  .constantFrom(1003, 1004, 1010)
  .map((code) =>
    code === 1003
      ? "1003: Canonical value mapping is missing"
      : `${code}: Lookup value could not be resolved`,
  );

const attributeValue = fc.record(
  {
    type: attributeName.map((name) => `configuration/entityTypes/HCP/attributes/${name}`),
    ov: fc.boolean(),
    value: simpleValue,
    uri: uriId.map((id) => `entities/e1/attributes/Attr/${id}`),
    lookupCode: fc.constantFrom("US", "DE", "M", "F"),
    lookupRawValue: fc.constantFrom("United States", "Germany", "male", "female"),
    lookupError,
  },
  { requiredKeys: ["type", "ov", "value"] },
);

/** A reference attribute's value: nested attributes and the referenced entity and relation. */
const referenceValue = fc.record({ entity: uriId, relation: uriId }).map(({ entity, relation }) => ({
  type: "configuration/entityTypes/HCP/attributes/Workplace",
  ov: true,
  value: { Name: [{ type: "configuration/entityTypes/HCO/attributes/Name", ov: true, value: "Clinic" }] },
  uri: `entities/e1/attributes/Workplace/${relation}`,
  refEntity: { objectURI: `entities/${entity}`, type: "configuration/entityTypes/HCO" },
  refRelation: { objectURI: `relations/${relation}`, type: "configuration/relationTypes/Workplace" },
}));

const plainAttributes = fc.dictionary(
  attributeName,
  fc.array(attributeValue, { minLength: 1, maxLength: 2 }),
  { maxKeys: 3 },
);

/** Attributes, now and then with a deeply nested value (up to 120 levels) or a reference attribute. */
const attributes = fc
  .tuple(
    plainAttributes,
    fc.option(fc.integer({ min: 1, max: 120 }), { nil: undefined, freq: 4 }),
    fc.option(lookupError, { nil: undefined }),
    fc.option(referenceValue, { nil: undefined, freq: 3 }),
  )
  .map(([plain, depth, error, reference]) => ({
    ...plain,
    ...(depth === undefined ? {} : { Address: [nestedAttributeValue(depth, error)] }),
    ...(reference === undefined ? {} : { Workplace: [reference] }),
  }));

const crosswalk = fc.record({
  uri: uriId.map((id) => `entities/e1/crosswalks/${id}`),
  type: sourceType,
  value: uriId,
  reltioLoadDate: isoTimestamp,
  createDate: isoTimestamp,
  updateDate: isoTimestamp,
  attributes: fc.array(
    uriId.map((id) => `entities/e1/attributes/Attr/${id}`),
    { maxLength: 2 },
  ),
  singleAttributeUpdateDates: fc.constant({}),
});

/** The common fields (optional ones sometimes absent); uri and type always present. */
function commonFields(uriPrefix: string, typeUri: fc.Arbitrary<string>) {
  return {
    uri: uriId.map((id) => `${uriPrefix}/${id}`),
    type: typeUri,
    createdBy: user,
    createdTime: epochMs,
    updatedBy: user,
    updatedTime: epochMs,
    startDate: epochMs,
    endDate: epochMs,
    attributes,
    crosswalks: fc.array(crosswalk, { maxLength: 2 }),
    tags: fc.array(fc.constantFrom("vip", "imported", "reviewed"), { maxLength: 2 }),
    ratings: fc.constant([]),
  };
}

const entityObject = fc.record(
  {
    ...commonFields(
      "entities",
      fc.constantFrom("configuration/entityTypes/HCP", "configuration/entityTypes/HCO"),
    ),
    roles: fc.array(fc.constantFrom("configuration/roles/Customer", "configuration/roles/Prospect"), {
      maxLength: 2,
    }),
    ctSubscribedUris: fc.array(
      uriId.map((id) => `entities/${id}`),
      { maxLength: 1 },
    ),
    defaultProfilePic: uriId.map((id) => `entities/e1/attributes/ImageLinks/${id}`),
    label: fc.string({ minLength: 1, maxLength: 20 }),
    secondaryLabel: fc.string({ maxLength: 20 }),
    analyticsAttributes: fc.constant({}),
    potentialMatchTOs: fc.constant([]),
    matchScore: fc.integer({ min: 0, max: 100 }),
    relevance: fc.double({ min: 0, max: 1, noNaN: true }),
  },
  { requiredKeys: ["uri", "type"] },
);

/** Relationship objects carry the document's full RELATIONSHIP_CREATED shape (nothing filtered). */
const relationshipObject = fc.record(
  {
    ...commonFields(
      "relations",
      fc.constantFrom("configuration/relationTypes/HasAddress", "configuration/relationTypes/Employment"),
    ),
    startRefPinned: fc.boolean(),
    startRefIgnored: fc.boolean(),
    endRefPinned: fc.boolean(),
    endRefIgnored: fc.boolean(),
    startObject: uriId.map((id) => ({ objectURI: `entities/${id}`, type: "configuration/entityTypes/HCP" })),
    endObject: uriId.map((id) => ({
      objectURI: `entities/${id}`,
      type: "configuration/entityTypes/Location",
    })),
  },
  // The document's RELATIONSHIP_CREATED snapshot shape: the checker's list, written once.
  { requiredKeys: [...relationshipShapeFields] },
);

const groupObject = fc.record(
  {
    ...commonFields("groups", fc.constant("configuration/groupTypes/Household")),
    name: fc.string({ maxLength: 20 }),
  },
  { requiredKeys: ["uri", "type"] },
);

const interactionObject = fc.record(
  {
    ...commonFields(
      "interactions",
      fc.constantFrom("configuration/interactionTypes/Email", "configuration/interactionTypes/Call"),
    ),
    timestamp: epochMs,
    members: uriId.map((id) => ({
      Recipient: {
        type: "configuration/interactionTypes/Email/memberTypes/Recipient",
        members: [{ objectURI: `entities/${id}` }],
      },
    })),
  },
  { requiredKeys: ["uri", "type"] },
);

const changeRequestObject = fc.record(
  {
    uri: uriId.map((id) => `changeRequests/${id}`),
    type: fc.constant("configuration/changeRequestTypes/Default"),
    createdBy: user,
    createdTime: epochMs,
    timestamp: epochMs,
    members: fc.constant({}),
  },
  { requiredKeys: ["uri"] },
);

const objectByKind: Record<ObjectKind, fc.Arbitrary<Record<string, unknown>>> = {
  entity: entityObject,
  relationship: relationshipObject,
  group: groupObject,
  interaction: interactionObject,
  "change-request": changeRequestObject,
};

const plainDeltaValue = fc.record({
  value: fc.string({ maxLength: 12 }),
  ov: fc.boolean(),
  id: uriId,
  sources: fc.array(sourceType, { minLength: 1, maxLength: 2 }),
});

/** A reference attribute's value in a delta: seen without value and sources. */
const referenceDeltaValue = fc
  .record({ ov: fc.boolean(), id: uriId, entity: uriId })
  .map(({ ov, id, entity }) => ({
    ov,
    id,
    refEntity: { objectURI: `entities/${entity}` },
  }));

const deltaValue = fc.oneof(
  { weight: 3, arbitrary: plainDeltaValue },
  { weight: 1, arbitrary: referenceDeltaValue },
);

const deltaItem = fc.oneof(
  fc.record({ type: fc.constant("ATTRIBUTE_REMOVED"), attributeType: attributeName, oldValue: deltaValue }),
  // newValue differs from oldValue: only changed attributes are listed.
  fc.record({ attributeType: attributeName, oldValue: deltaValue }).map((item) => ({
    type: "ATTRIBUTE_CHANGED",
    ...item,
    newValue: { ...item.oldValue, id: `${item.oldValue.id}+` },
  })),
  fc.record({ type: fc.constant("ATTRIBUTE_ADDED"), attributeType: attributeName, newValue: deltaValue }),
);

/** Whether a delta item changes a reference attribute (its value carries refEntity): a change inside a
 *  referenced entity or a relation, after which ovChanged is always true (EVENT-STREAM-02). */
function changesReference(item: Record<string, unknown>): boolean {
  const value = (item.newValue ?? item.oldValue) as Record<string, unknown> | undefined;
  return value !== undefined && "refEntity" in value;
}

/** The table's deltaCollection on its own, as vendors send it for deltas. */
const deltaCollection = fc
  .record({ ovChanged: fc.boolean(), delta: fc.array(deltaItem, { minLength: 1, maxLength: 3 }) })
  .map(({ ovChanged, delta }) => ({ ovChanged: ovChanged || delta.some(changesReference), delta }));

/** Any other object: the document does not show the structure of deltas. */
const otherDeltas = fc.dictionary(
  fc.constantFrom("attributes", "changes", "itemsTotal", "eventId", "crosswalks", "meta"),
  fc.jsonValue({ maxDepth: 2 }),
  { maxKeys: 4 },
);

/** The deltas member in every legal shape ("any") or the kit's preferred one for the type. */
function deltasFor(
  type: string,
  uri: string,
  shapes: "any" | "preferred",
): fc.Arbitrary<Record<string, unknown>> {
  const message = entityChangedDelta(uri);
  if (shapes === "preferred") {
    return type === "ENTITY_CHANGED"
      ? message
      : fc.record({ attributes: fc.constant({}), itemsTotal: fc.nat({ max: 5 }) });
  }
  return fc.oneof(message, deltaCollection, otherDeltas);
}

/** The ENTITY_CHANGED delta message (every field of the document's table) for an entity URI. */
export function entityChangedDelta(uri: string): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .record({
      id: uriId,
      user,
      method: fc.constantFrom("POST", "PUT", "PATCH", "DELETE"),
      url: uriId.map((id) => `/reltio/api/acme/${uri}/_update?request=${id}`),
      clientType: fc.constantFrom("UI", "API", "dataloader"),
      timestamp: epochMs,
      objectLabel: fc.string({ maxLength: 20 }),
      ovChanged: fc.boolean(),
      delta: fc.array(deltaItem, { minLength: 1, maxLength: 3 }),
      eventId: uriId,
    })
    .map(({ ovChanged, delta, ...rest }) => ({
      ...rest,
      objectUri: uri,
      objectType: "configuration/entityTypes/HCP",
      data: { type: "ENTITY_CHANGED" },
      deltaCollection: { ovChanged: ovChanged || delta.some(changesReference), delta },
      itemsTotal: delta.length,
    }));
}

/** Types the arbitraries draw from by default: the document's table without the unused GROUP_* types. */
export function documentedTypes(includeUnused = false): EventTypeInfo[] {
  return [...eventSchemas().types.values()].filter((info) => includeUnused || !info.unused);
}

export function kindsOf(info: EventTypeInfo): readonly PayloadKind[] {
  return payloadKindsOf(info.objectKind);
}

function payloadFor(
  info: EventTypeInfo,
  kind: PayloadKind,
  shapes: "any" | "preferred",
): fc.Arbitrary<Record<string, unknown>> {
  const type = info.type;
  const ov = ovChangedTypes.has(type);
  const splitUris = fc.array(
    uriId.map((id) => `entities/${id}`),
    { minLength: 1, maxLength: 3 },
  );
  const object = objectByKind[info.objectKind];
  switch (kind) {
    case "name-only":
      return fc
        .option(object, { nil: undefined })
        .map((value) => (value ? { type, object: value } : { type }));
    case "snapshot":
      // exceededQueueSizeLimit true marks the fallback, sent without object: never on a snapshot.
      return fc
        .record({ object, ovChanged: fc.boolean(), uris: splitUris }, { requiredKeys: ["object"] })
        .map(({ object: value, ovChanged, uris }) => ({
          type,
          object: value,
          ...(ov && ovChanged !== undefined ? { ovChanged } : {}),
          ...(type === "ENTITIES_SPLITTED" ? { uris: uris ?? ["entities/0000000"] } : {}),
        }));
    case "deltas":
      return fc
        .tuple(
          object.map((value) => String(value.uri)),
          splitUris,
        )
        .chain(([uri, uris]) =>
          deltasFor(type, uri, shapes).map((deltas) => ({
            type,
            uri,
            deltas,
            ...(type === "ENTITIES_SPLITTED" ? { uris } : {}),
          })),
        );
    case "large-object":
      return fc
        .record({
          uri: object.map((value) => String(value.uri)),
          ovChanged: fc.option(fc.boolean(), { nil: undefined }),
        })
        .map(({ uri, ovChanged }) => ({
          type,
          uri,
          exceededQueueSizeLimit: true,
          ...(ov && ovChanged !== undefined ? { ovChanged } : {}),
        }));
  }
}

/** The URI a payload is about: object.uri, or uri. */
export function payloadUri(payload: Record<string, unknown>): string | undefined {
  const object = payload.object as Record<string, unknown> | undefined;
  const uri = object && typeof object.uri === "string" ? object.uri : payload.uri;
  return typeof uri === "string" ? uri : undefined;
}

/** A valid message (headers agreeing with the payload) of the filtered types and kinds. */
export function eventMessage(filter: MessageFilter = {}): fc.Arbitrary<EventMessage> {
  const infos = filter.types
    ? filter.types.map((type) => {
        const info = eventSchemas().types.get(type);
        if (!info) throw new Error(`eventMessage: ${type} is not an event type of the document`);
        return info;
      })
    : documentedTypes();
  const shapes = filter.shapes ?? "any";
  const choices = infos.flatMap((info) =>
    kindsOf(info)
      .filter((kind) => !filter.kinds || filter.kinds.includes(kind))
      .map((kind) => payloadFor(info, kind, shapes)),
  );
  if (choices.length === 0) throw new Error("eventMessage: no type/kind combination matches the filter");
  const version =
    filter.objectVersion === "always"
      ? fc.nat({ max: 1_000_000 })
      : filter.objectVersion === "never"
        ? fc.constant(undefined)
        : fc.option(fc.nat({ max: 1_000_000 }), { nil: undefined });
  // A fallback may carry its object URI only in the sourceObjectUri header (the document does not say where).
  const uriInHeaderOnly = shapes === "any" ? fc.boolean() : fc.constant(false);
  return fc
    .tuple(fc.oneof(...choices), version, uriId, uriInHeaderOnly)
    .map(([payload, objectVersion, fallback, headerOnly]) => {
      const headers = {
        tenantId: "acme",
        eventType: payload.type,
        sourceObjectUri: payloadUri(payload) ?? `changeRequests/${fallback}`,
        ...(objectVersion === undefined ? {} : { objectVersion }),
      };
      if (headerOnly && payload.exceededQueueSizeLimit === true && !("object" in payload)) {
        const { uri: _uri, ...rest } = payload;
        return { headers, payload: rest };
      }
      return { headers, payload };
    });
}

/** Event types vendors send beyond the document's table and its unsupported list. */
export const unlistedTypes = ["ENTITY_MERGE_FAILED", "POTENTIAL_MATCH_REVIEWED", "WORKFLOW_TASK_ASSIGNED"];

/** A message of a type in neither of the document's lists: legal, reported as a warning only. */
export function unlistedTypeMessage(): fc.Arbitrary<EventMessage> {
  return fc
    .record({ type: fc.constantFrom(...unlistedTypes), id: uriId, reason: fc.string({ maxLength: 20 }) })
    .map(({ type, id, reason }) => ({
      headers: { tenantId: "acme", eventType: type, sourceObjectUri: `entities/${id}` },
      payload: { type, uri: `entities/${id}`, details: { reason } },
    }));
}

/** The payload serialized again with other key order and spacing: a redelivery, not a new message. */
export function reserialized(payload: Record<string, unknown>, indent: number): string {
  return JSON.stringify(reversedKeys(payload), null, indent);
}

/** The NDJSON line of a message. */
export function messageLine(message: EventMessage): string {
  return JSON.stringify(message);
}
