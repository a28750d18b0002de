// The requirement-catalogue ids the event checker reports its problems under, by a short name the code
// that finds them uses (the message rules, the stream rules, the generator's mutations). Schema violations
// find their id through the schemas' own x-requirements. Each is the first requirement of a declared event
// rule (../rules/index.ts; test/project/rules.test.ts holds them to it); a new rule need not be named here.

export const rule = {
  /** A message is one JSON document (an NDJSON line is a payload or {"headers", "payload"}). */
  json: "EVENT-DELIVERY-01",
  headers: "EVENT-HEADERS-01",
  objectVersion: "EVENT-HEADERS-02",
  versionReuse: "EVENT-HEADERS-03",
  headerAgreement: "EVENT-HEADERS-04",
  payloadKind: "EVENT-PAYLOAD-01",
  snapshot: "EVENT-PAYLOAD-02",
  ovChanged: "EVENT-PAYLOAD-03",
  exceededQueueSizeLimit: "EVENT-PAYLOAD-04",
  deltas: "EVENT-PAYLOAD-05",
  largeObject: "EVENT-PAYLOAD-06",
  splitUris: "EVENT-PAYLOAD-07",
  changeRequest: "EVENT-PAYLOAD-08",
  objectNotEmpty: "EVENT-OBJECT-01",
  attributeValue: "EVENT-OBJECT-02",
  lookupError: "EVENT-OBJECT-03",
  relationshipObject: "EVENT-OBJECT-04",
  crosswalk: "EVENT-OBJECT-05",
  entityFilter: "EVENT-FILTER-01",
  allFields: "EVENT-FILTER-02",
  relationFilter: "EVENT-FILTER-03",
  commonFields: "EVENT-FILTER-04",
  deltaMessage: "EVENT-DELTA-01",
  deltaItem: "EVENT-DELTA-02",
  deltaOnlyChanged: "EVENT-DELTA-03",
  knownType: "EVENT-TYPES-01",
  unsupportedType: "EVENT-TYPES-02",
  unusedType: "EVENT-TYPES-03",
  /** SHOULD: a type in neither the table nor the unsupported list (seen in the field): a warning. */
  unknownType: "EVENT-TYPES-06",
  gdpr: "EVENT-STREAM-01",
  largeObjectConfig: "EVENT-STREAM-03",
  /** A relationship event of a reference relation type comes with an ENTITY_CHANGED companion. */
  referenceCompanion: "EVENT-TYPES-04",
  /** That companion carries ovChanged true (when it carries ovChanged). */
  referenceOvChanged: "EVENT-STREAM-02",
  /** Per object kind, the fields JMSEventsFilteringFields adds are allowed only on their kind. */
  entityKindFields: "EVENT-FILTER-05",
  /** The fields RelationEventsFilteringFields adds are allowed only on relationships. */
  relationKindFields: "EVENT-FILTER-06",
  /** SHOULD: without the filtering property, a per-kind field on another kind of object: a warning. */
  unlistedKindField: "EVENT-FILTER-07",
} as const;

export type RuleId = (typeof rule)[keyof typeof rule];

/** A requirement the checker honours as a tolerance, with a check of its own that reports what it
 *  tolerated (redeliveries, messages delivered out of objectVersion order); it never fails a stream. */
export const deliveryTolerance = "EVENT-DELIVERY-02";
