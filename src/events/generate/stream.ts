// A seeded generator of realistic event streams, for publishing to a broker or a file and for checking the
// checker: entity lifecycles (create, change as snapshot or deltas, merge and split, GDPR removal and
// re-creation), relationships with their ENTITY_CHANGED companions (ovChanged true), interactions, change
// requests and large-object fallbacks. objectVersion headers rise per object. At-least-once delivery is
// imitated by exact re-sends and by reordering within a window. A known set of invalid messages can be
// injected; the manifest says where they are and which rule each breaks.
//
// Deterministic: the same options (seed included) give the same messages, byte for byte.

import type { StreamingConfig } from "../streaming-config.ts";
import { mutations as checkerMutations, type Mutation } from "./mutations.ts";
import { nestedAttributeValue } from "./nested-values.ts";

export type PayloadKind = "snapshot" | "deltas" | "largeObject";
/** The streaming configuration's payloadType; "mixed" draws per message (no single configuration fits). */
export type PayloadType = "snapshot" | "deltas" | "mixed";

export interface StreamOptions {
  seed: number;
  /** Messages in the stream, re-sends and invalid messages included. */
  count: number;
  tenantId?: string;
  /** payloadType of the stream (default snapshot); "mixed": a third of the messages deltas, the rest snapshots. */
  payloadType?: PayloadType;
  /** Share of messages sent as large-object fallbacks, 0 <= share <= 1 (default 0.05). */
  largeObjects?: number;
  /** Probability that a message is sent again, unchanged (at-least-once delivery). Default 0. */
  duplicates?: number;
  /** Messages may arrive up to this many places away from their order of creation. Default 0. */
  reorderWindow?: number;
  /** Inject this many invalid messages, each breaking one rule (chosen among `rules` when given). */
  invalid?: { count: number; rules?: string[] };
  /**
   * Legal variety (default true): deltas as the delta message, the bare {ovChanged, delta} collection or
   * another object; reference-attribute delta values without value and sources; fallbacks whose URI is
   * only in the sourceObjectUri header; event types in neither of the document's lists; re-sends
   * serialized again with other key order and spacing; deeply nested attribute values. false: only the
   * kit's preferred shapes.
   */
  variety?: boolean;
}

export interface StreamMessage {
  headers: Record<string, unknown>;
  body: string;
}

export interface InvalidEntry {
  /** 0-based index in `messages` (the order of sending). */
  index: number;
  rule: string;
  description: string;
}

export interface StreamManifest {
  seed: number;
  total: number;
  valid: number;
  invalid: number;
  /** The invalid messages, in sending order. */
  invalidMessages: InvalidEntry[];
  /** Invalid messages by rule id. */
  byRule: Record<string, number>;
  duplicates: number;
  /** Messages that arrive at another place than their order of creation. */
  displaced: number;
  byType: Record<string, number>;
  /**
   * The streaming configuration the stream was shaped by (objectVersion is a filtering field); check the
   * stream with it. Undefined for payloadType "mixed": no single configuration produces such a stream.
   */
  streamingConfig?: StreamingConfig;
}

export interface GeneratedStream {
  messages: StreamMessage[];
  manifest: StreamManifest;
}

// ---------------------------------------------------------------------------------------------- random

/** mulberry32: small, fast, and the same on every platform. */
export class Random {
  private state: number;
  constructor(seed: number) {
    this.state = (seed >>> 0) ^ 0x9e3779b9;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error("Random.pick: no items");
    return item;
  }
  id(length = 7): string {
    const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let out = "";
    for (let i = 0; i < length; i += 1) out += alphabet[Math.floor(this.next() * alphabet.length)];
    return out;
  }
  weighted<K extends string>(weights: Record<K, number>): K {
    const entries = Object.entries(weights) as [K, number][];
    const total = entries.reduce((sum, [, w]) => sum + Math.max(0, w), 0);
    let roll = this.next() * total;
    for (const [key, w] of entries) {
      roll -= Math.max(0, w);
      if (roll < 0) return key;
    }
    const last = entries.at(-1);
    if (!last) throw new Error("Random.weighted: no weights");
    return last[0];
  }
}

// ---------------------------------------------------------------------------------------------- world

const entityTypes = ["HCP", "HCO", "Individual", "Organization"] as const;
const relationTypes = [
  { name: "HasAddress", reference: true },
  { name: "Employment", reference: false },
  { name: "Affiliation", reference: true },
] as const;
const firstNames = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Ken", "Radia", "Tim", "Frances", "Donald"];
const lastNames = [
  "Lovelace",
  "Hopper",
  "Turing",
  "Dijkstra",
  "Liskov",
  "Thompson",
  "Perlman",
  "Lee",
  "Allen",
];
const countries = [
  { raw: "Germany", code: "DE" },
  { raw: "France", code: "FR" },
  { raw: "United States", code: "US" },
  { raw: "Japan", code: "JP" },
  { raw: "Brasil", code: "BR" },
];
const sources = ["configuration/sources/Reltio", "configuration/sources/CRM", "configuration/sources/ERP"];
const users = ["svc-integration", "jane.doe@example.com", "etl-loader"];

interface AttributeValue {
  type: string;
  ov: boolean;
  value: string;
  uri: string;
  lookupCode?: string;
  lookupRawValue?: string;
  lookupError?: string;
}

interface Entity {
  uri: string;
  type: string;
  version: number;
  state: "active" | "merged" | "gdpr" | "removed";
  attributes: Record<string, AttributeValue[]>;
  crosswalks: Record<string, unknown>[];
  createdTime: number;
  updatedTime: number;
  createdBy: string;
  mergedInto?: string;
  recreated?: boolean;
  /** Levels of a deeply nested Address attribute its snapshots carry (legal variety), if any. */
  nesting?: number;
}

interface Relation {
  uri: string;
  type: string;
  reference: boolean;
  start: Entity;
  end: Entity;
  version: number;
  active: boolean;
  createdTime: number;
  updatedTime: number;
}

interface Versioned {
  uri: string;
  version: number;
  active: boolean;
  createdTime: number;
  updatedTime: number;
}

/** One message before ordering: what it is about and whether it was injected invalid. */
interface Draft {
  headers: Record<string, unknown>;
  body: string;
  type: string;
  invalid?: { rule: string; description: string };
  /** Keeps its place relative to the message before it (pairs that only break a rule in that order). */
  pinned?: boolean;
  duplicate?: boolean;
}

/** The fields both filtering properties share (the document's list). */
const commonFields = [
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
];
/** JMSEventsFilteringFields of generated streams: every field they send, and the objectVersion header. */
const entityFields = [
  ...commonFields,
  "label",
  "secondaryLabel",
  "roles",
  "potentialMatchTOs",
  "timestamp",
  "members",
  "objectVersion",
];
const relationFields = [
  ...commonFields,
  "startRefPinned",
  "startRefIgnored",
  "endRefPinned",
  "endRefIgnored",
  "startObject",
  "endObject",
];

/** Builds the messages of a world of objects; every message it returns is valid. */
export class StreamWorld {
  readonly entities: Entity[] = [];
  readonly relations: Relation[] = [];
  readonly interactions: Versioned[] = [];
  readonly changeRequests: Versioned[] = [];
  private clock: number;

  constructor(
    readonly random: Random,
    readonly tenantId: string,
    private readonly shape: { payloadType: PayloadType; largeObjects: number; variety?: boolean },
  ) {
    // A fixed epoch keeps streams reproducible: 2026-01-05T09:00:00Z plus a seed-dependent offset.
    this.clock = Date.UTC(2026, 0, 5, 9, 0, 0) + random.int(0, 86_400_000);
  }

  private tick(): number {
    this.clock += this.random.int(5, 900);
    return this.clock;
  }

  private iso(at: number): string {
    return new Date(at).toISOString();
  }

  headers(eventType: string, uri: string, version: number): Record<string, unknown> {
    return { tenantId: this.tenantId, eventType, sourceObjectUri: uri, objectVersion: version };
  }

  private attributeValue(entity: { uri: string; type: string }, name: string, value: string): AttributeValue {
    return {
      type: `${entity.type}/attributes/${name}`,
      ov: true,
      value,
      uri: `${entity.uri}/attributes/${name}/${this.random.id(8)}`,
    };
  }

  private countryValue(entity: { uri: string; type: string }): AttributeValue {
    const country = this.random.pick(countries);
    const value = this.attributeValue(entity, "Country", country.raw);
    // Now and then a source value has no canonical mapping: lookupError with code 1003 (valid).
    if (this.random.chance(0.08)) {
      value.lookupRawValue = `${country.raw}-X`;
      value.value = `${country.raw}-X`;
      value.lookupError = `1003: no canonical value mapping for '${country.raw}-X' in lookup type rdm/lookupTypes/Country`;
    } else {
      value.lookupCode = country.code;
      value.lookupRawValue = country.raw;
    }
    return value;
  }

  private crosswalk(objectUri: string, attributeUris: string[], at: number): Record<string, unknown> {
    const source = this.random.pick(sources);
    return {
      uri: `${objectUri}/crosswalks/${this.random.id(8)}`,
      type: source,
      value: this.random.id(10),
      reltioLoadDate: this.iso(at),
      createDate: this.iso(at - this.random.int(0, 86_400_000)),
      updateDate: this.iso(at),
      attributes: attributeUris,
      singleAttributeUpdateDates: {},
    };
  }

  /** Whether the world draws legal shapes beyond the kit's preferred ones (see StreamOptions.variety). */
  get variety(): boolean {
    return this.shape.variety === true && !this.preferredOnly;
  }

  /** Set while a mutation's starting message is built: mutations edit fields of the preferred shapes. */
  private preferredOnly = false;

  private entityObject(entity: Entity): Record<string, unknown> {
    const first = entity.attributes.FirstName?.[0]?.value ?? "";
    const last = entity.attributes.LastName?.[0]?.value ?? "";
    const attributes =
      entity.nesting === undefined
        ? entity.attributes
        : { ...entity.attributes, Address: [nestedAttributeValue(entity.nesting)] };
    return {
      uri: entity.uri,
      type: entity.type,
      createdBy: entity.createdBy,
      createdTime: entity.createdTime,
      updatedBy: this.random.pick(users),
      updatedTime: entity.updatedTime,
      attributes,
      crosswalks: entity.crosswalks,
      label: `${first} ${last}`.trim() || entity.uri,
      roles: [`configuration/roles/${entity.type.split("/").at(-1)}`],
    };
  }

  private relationObject(relation: Relation): Record<string, unknown> {
    return {
      uri: relation.uri,
      type: relation.type,
      createdBy: this.random.pick(users),
      createdTime: relation.createdTime,
      updatedBy: this.random.pick(users),
      updatedTime: relation.updatedTime,
      startRefPinned: false,
      startRefIgnored: false,
      endRefPinned: this.random.chance(0.1),
      endRefIgnored: false,
      startObject: { objectURI: relation.start.uri, type: relation.start.type },
      endObject: { objectURI: relation.end.uri, type: relation.end.type },
      attributes: {
        Primary: [
          {
            type: `${relation.type}/attributes/Primary`,
            ov: true,
            value: String(this.random.chance(0.5)),
            uri: `${relation.uri}/attributes/Primary/${this.random.id(8)}`,
          },
        ],
      },
      crosswalks: [this.crosswalk(relation.uri, [], relation.updatedTime)],
    };
  }

  payloadType(): PayloadType {
    return this.shape.payloadType;
  }

  /** The payload kind of the next message: the stream's payload type, now and then a large-object fallback. */
  private kindFor(): PayloadKind {
    if (this.random.chance(this.shape.largeObjects)) return "largeObject";
    if (this.shape.payloadType === "mixed") return this.random.chance(1 / 3) ? "deltas" : "snapshot";
    return this.shape.payloadType;
  }

  /**
   * One message about an object, as the stream's payload type says: a snapshot of `object`, a deltas
   * message listing `items`, or the large-object fallback (no object; ovChanged kept where it applies).
   */
  private message(
    type: string,
    uri: string,
    version: number,
    object: Record<string, unknown>,
    extra: Record<string, unknown> = {},
    items: Record<string, unknown>[] = [],
    kind: PayloadKind = this.kindFor(),
  ): Draft {
    let payload: Record<string, unknown>;
    if (kind === "largeObject") {
      // The document says the fallback carries the object URI, not where: now and then only the
      // sourceObjectUri header carries it.
      payload =
        this.variety && this.random.chance(0.3)
          ? { type, exceededQueueSizeLimit: true, ...extra }
          : { type, uri, exceededQueueSizeLimit: true, ...extra };
    } else if (kind === "snapshot") payload = { type, object, ...extra };
    else {
      // A deltas envelope has no top-level ovChanged: it travels in deltaCollection.
      const { ovChanged, ...rest } = extra;
      const subject = { uri, type: String(object.type ?? ""), label: String(object.label ?? uri) };
      payload = { type, uri, deltas: this.deltasOf(type, subject, items, ovChanged === true), ...rest };
    }
    return { headers: this.headers(type, uri, version), body: JSON.stringify(payload), type };
  }

  /**
   * The deltas member: the document leaves its structure open. With legal variety, the delta message of
   * the document's table, its deltaCollection alone ({ovChanged, delta}, as vendors send it) or, now and
   * then, another object; otherwise always the delta message.
   */
  private deltasOf(
    type: string,
    subject: { uri: string; type: string; label: string },
    items: Record<string, unknown>[],
    ovChanged: boolean,
  ): Record<string, unknown> {
    if (!this.variety) return this.deltas(type, subject, items, ovChanged);
    const roll = this.random.next();
    if (roll < 0.45) return this.deltas(type, subject, items, ovChanged);
    // ENTITY_CHANGED keeps ovChanged (a reference companion must show it true), so no other shape for it.
    if (roll < 0.9 || type === "ENTITY_CHANGED") return { ovChanged, delta: items };
    return {
      changes: items.length,
      attributes: items.map((item) => item.attributeType),
      eventId: this.random.id(16),
    };
  }

  /** The delta message of the document's ENTITY_CHANGED table, used for every type in deltas streams. */
  private deltas(
    type: string,
    subject: { uri: string; type: string; label: string },
    items: Record<string, unknown>[],
    ovChanged: boolean,
  ): Record<string, unknown> {
    return {
      id: this.random.id(12),
      user: this.random.pick(users),
      method: type.endsWith("_CREATED") ? "POST" : type.includes("REMOVED") ? "DELETE" : "PUT",
      url: `/${subject.uri}`,
      clientType: this.random.pick(["API", "UI", "dataloader"]),
      timestamp: this.clock,
      objectUri: subject.uri,
      objectType: subject.type,
      objectLabel: subject.label,
      data: { type },
      deltaCollection: { ovChanged, delta: items },
      eventId: this.random.id(16),
      itemsTotal: items.length,
    };
  }

  private deltaValue(v: AttributeValue): Record<string, unknown> {
    return {
      value: v.value,
      ov: v.ov,
      id: v.uri.split("/").at(-1) ?? "",
      sources: [this.random.pick(sources)],
    };
  }

  newEntity(): Draft {
    const { entity, draft } = this.freshEntity();
    // Deep but legal nesting: now and then an entity whose snapshots carry a nested attribute 10-120
    // levels down (3 levels of JSON each; the checker inspects up to 512).
    if (this.variety && this.random.chance(0.03)) entity.nesting = this.random.int(10, 120);
    this.entities.push(entity);
    return draft;
  }

  /** An entity outside the world's lifecycle (nothing else will ever happen to it), with its creation. */
  freshEntity(payloadKind?: PayloadKind): { entity: Entity; draft: Draft } {
    const at = this.tick();
    const kind = this.random.pick(entityTypes);
    const entity: Entity = {
      uri: `entities/${this.random.id()}`,
      type: `configuration/entityTypes/${kind}`,
      version: 1,
      state: "active",
      attributes: {},
      crosswalks: [],
      createdTime: at,
      updatedTime: at,
      createdBy: this.random.pick(users),
    };
    entity.attributes = {
      FirstName: [this.attributeValue(entity, "FirstName", this.random.pick(firstNames))],
      LastName: [this.attributeValue(entity, "LastName", this.random.pick(lastNames))],
      Country: [this.countryValue(entity)],
    };
    const uris = Object.values(entity.attributes).flatMap((values) => values.map((v) => v.uri));
    entity.crosswalks = [this.crosswalk(entity.uri, uris, at)];
    const type = "ENTITY_CREATED";
    const added = Object.values(entity.attributes).flatMap((values) =>
      values.map((v) => ({ type: "ATTRIBUTE_ADDED", attributeType: v.type, newValue: this.deltaValue(v) })),
    );
    const object = this.entityObject(entity);
    return { entity, draft: this.message(type, entity.uri, entity.version, object, {}, added, payloadKind) };
  }

  /** The snapshot of an entity event, never a fallback: for mutations that need the object. */
  entitySnapshot(type: string, entity: Entity, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return { type, object: this.entityObject(entity), ...extra };
  }

  /**
   * ENTITY_CHANGED as the stream's payload type says (snapshot, deltas, or a large-object fallback).
   * `reference`: the relation of a reference attribute that changed, listed among the delta items.
   */
  changeEntity(entity: Entity, ovChanged = false, reference?: Relation): Draft {
    return this.changeEntityAs(entity, this.kindFor(), ovChanged, reference);
  }

  changeEntityAs(entity: Entity, kind: PayloadKind, ovChanged = false, reference?: Relation): Draft {
    const at = this.tick();
    entity.version += 1;
    entity.updatedTime = at;
    const name = this.random.pick(["FirstName", "LastName", "Country"] as const);
    const old = entity.attributes[name]?.[0];
    const replacement =
      name === "Country"
        ? this.countryValue(entity)
        : this.attributeValue(entity, name, this.random.pick(name === "FirstName" ? firstNames : lastNames));
    entity.attributes[name] = [replacement];
    // Only the changed attribute is listed.
    const items: Record<string, unknown>[] = old
      ? [
          {
            type: "ATTRIBUTE_CHANGED",
            attributeType: replacement.type,
            oldValue: this.deltaValue(old),
            newValue: this.deltaValue(replacement),
          },
        ]
      : [
          {
            type: "ATTRIBUTE_ADDED",
            attributeType: replacement.type,
            newValue: this.deltaValue(replacement),
          },
        ];
    if (reference && this.variety) items.push(this.referenceItem(entity, reference));
    return this.message(
      "ENTITY_CHANGED",
      entity.uri,
      entity.version,
      this.entityObject(entity),
      { ovChanged },
      items,
      kind,
    );
  }

  /**
   * The delta item of a reference attribute: its values are seen without value and sources, carrying
   * the referenced entity and relation instead.
   */
  private referenceItem(entity: Entity, relation: Relation): Record<string, unknown> {
    const value = {
      ov: true,
      id: relation.uri.split("/").at(-1) ?? relation.uri,
      refEntity: { objectURI: relation.end.uri, type: relation.end.type },
      refRelation: { objectURI: relation.uri, type: relation.type },
    };
    const attributeType = `${entity.type}/attributes/${relation.type.split("/").at(-1)}`;
    return relation.active
      ? { type: "ATTRIBUTE_ADDED", attributeType, newValue: value }
      : { type: "ATTRIBUTE_REMOVED", attributeType, oldValue: value };
  }

  /**
   * A message of a type in neither of the document's lists (vendors send merge-failure notifications,
   * for instance): legal, the checker warns.
   */
  unlistedEvent(entity: Entity, other: Entity): Draft {
    this.tick();
    entity.version += 1;
    const type = "ENTITY_MERGE_FAILED";
    const payload = {
      type,
      uri: entity.uri,
      details: { winner: entity.uri, loser: other.uri, reason: "conflicting crosswalks" },
    };
    return { headers: this.headers(type, entity.uri, entity.version), body: JSON.stringify(payload), type };
  }

  /** A relationship event and, for reference attributes, the ENTITY_CHANGED companion (ovChanged true). */
  relationEvent(type: string, relation: Relation): Draft[] {
    const at = this.tick();
    relation.version += 1;
    relation.updatedTime = at;
    const extra = type === "RELATIONSHIP_CHANGED" ? { ovChanged: relation.reference } : {};
    const drafts = [this.message(type, relation.uri, relation.version, this.relationObject(relation), extra)];
    if (relation.reference && relation.start.state === "active")
      drafts.push(this.changeEntity(relation.start, true, relation));
    return drafts;
  }

  newRelation(start: Entity, end: Entity): Draft[] {
    const at = this.tick();
    const kind = this.random.pick(relationTypes);
    const relation: Relation = {
      uri: `relations/${this.random.id()}`,
      type: `configuration/relationTypes/${kind.name}`,
      reference: kind.reference,
      start,
      end,
      version: 0,
      active: true,
      createdTime: at,
      updatedTime: at,
    };
    this.relations.push(relation);
    return this.relationEvent("RELATIONSHIP_CREATED", relation);
  }

  /** The loser gets ENTITY_LOST_MERGE; the winner an ENTITY_CHANGED carrying the loser's crosswalks. */
  merge(winner: Entity, loser: Entity): Draft[] {
    this.tick();
    loser.version += 1;
    loser.state = "merged";
    loser.mergedInto = winner.uri;
    const lost = this.message("ENTITY_LOST_MERGE", loser.uri, loser.version, this.entityObject(loser));
    winner.crosswalks = [...winner.crosswalks, ...loser.crosswalks];
    return [lost, this.changeEntity(winner)];
  }

  /** Unmerge: ENTITIES_SPLITTED for the winner and for the entity split off, both naming the participants. */
  split(loser: Entity): Draft[] {
    const winner = this.entities.find((e) => e.uri === loser.mergedInto);
    this.tick();
    loser.state = "active";
    loser.mergedInto = undefined;
    const uris = [winner?.uri ?? loser.uri, loser.uri];
    const drafts: Draft[] = [];
    if (winner && winner.state === "active") {
      winner.version += 1;
      drafts.push(
        this.message("ENTITIES_SPLITTED", winner.uri, winner.version, this.entityObject(winner), { uris }),
      );
    }
    loser.version += 1;
    drafts.push(
      this.message("ENTITIES_SPLITTED", loser.uri, loser.version, this.entityObject(loser), { uris }),
    );
    return drafts;
  }

  /** GDPR removal: afterwards the entity only ever gets ENTITY_CREATED (once here) and ENTITY_REMOVED_GDPR. */
  gdprRemove(entity: Entity): Draft {
    this.tick();
    entity.version += 1;
    entity.state = "gdpr";
    for (const relation of this.relations)
      if (relation.start === entity || relation.end === entity) relation.active = false;
    return this.message("ENTITY_REMOVED_GDPR", entity.uri, entity.version, {
      uri: entity.uri,
      type: entity.type,
    });
  }

  recreate(entity: Entity): Draft {
    const at = this.tick();
    entity.version += 1;
    entity.recreated = true;
    entity.createdTime = at;
    entity.updatedTime = at;
    return this.message("ENTITY_CREATED", entity.uri, entity.version, this.entityObject(entity));
  }

  removeEntity(entity: Entity): Draft {
    this.tick();
    entity.version += 1;
    entity.state = "removed";
    for (const relation of this.relations)
      if (relation.start === entity || relation.end === entity) relation.active = false;
    return this.message("ENTITY_REMOVED", entity.uri, entity.version, {
      uri: entity.uri,
      type: entity.type,
    });
  }

  matchesChanged(entity: Entity, other: Entity): Draft {
    this.tick();
    entity.version += 1;
    const object = {
      ...this.entityObject(entity),
      potentialMatchTOs: [
        { uri: other.uri, matchRules: ["configuration/entityTypes/HCP/matchGroups/ExactName"] },
      ],
    };
    return this.message("ENTITIES_MATCHES_CHANGED", entity.uri, entity.version, object);
  }

  businessProcessChanged(entity: Entity): Draft {
    this.tick();
    entity.version += 1;
    return this.message(
      "ENTITY_BUSINESS_PROCESS_CHANGED",
      entity.uri,
      entity.version,
      this.entityObject(entity),
    );
  }

  /**
   * One valid message of any type and payload kind about objects outside the world's lifecycle, in the
   * kit's envelope form: the starting point of a rule-breaking mutation.
   */
  freshMessage(
    type: string,
    kind: MutationKind,
  ): { headers: Record<string, unknown>; payload: Record<string, unknown> } {
    this.preferredOnly = true;
    try {
      return this.freshPreferredMessage(type, kind);
    } finally {
      this.preferredOnly = false;
    }
  }

  private freshPreferredMessage(
    type: string,
    kind: MutationKind,
  ): { headers: Record<string, unknown>; payload: Record<string, unknown> } {
    const payloadKind: PayloadKind =
      kind === "large-object" ? "largeObject" : kind === "deltas" ? "deltas" : "snapshot";
    let draft: Draft;
    if (kind === "name-only") {
      const uri = `changeRequests/${this.random.id()}`;
      draft = { headers: this.headers(type, uri, 1), body: JSON.stringify({ type }), type };
    } else if (type === "ENTITY_CHANGED") {
      draft = this.changeEntityAs(this.freshEntity().entity, payloadKind);
    } else if (type.startsWith("ENTIT")) {
      const { entity } = this.freshEntity();
      const extra =
        type === "ENTITIES_SPLITTED" ? { uris: [entity.uri, `entities/${this.random.id()}`] } : {};
      draft = this.message(
        type,
        entity.uri,
        entity.version,
        this.entityObject(entity),
        extra,
        [],
        payloadKind,
      );
    } else if (type.startsWith("RELATION")) {
      const at = this.tick();
      const kindOfRelation = this.random.pick(relationTypes);
      const relation: Relation = {
        uri: `relations/${this.random.id()}`,
        type: `configuration/relationTypes/${kindOfRelation.name}`,
        reference: kindOfRelation.reference,
        start: this.freshEntity().entity,
        end: this.freshEntity().entity,
        version: 1,
        active: true,
        createdTime: at,
        updatedTime: at,
      };
      const extra = type === "RELATIONSHIP_CHANGED" ? { ovChanged: false } : {};
      draft = this.message(type, relation.uri, 1, this.relationObject(relation), extra, [], payloadKind);
    } else if (type.startsWith("INTERACTION")) {
      const interaction = this.interactionObject([this.freshEntity().entity]);
      draft = this.message(type, String(interaction.uri), 1, interaction, {}, [], payloadKind);
    } else {
      throw new Error(`StreamWorld.freshMessage: no ${type} messages in generated streams`);
    }
    return { headers: draft.headers, payload: JSON.parse(draft.body) as Record<string, unknown> };
  }

  private interactionObject(members: Entity[], existing?: Versioned): Record<string, unknown> {
    const at = this.clock;
    return {
      uri: existing?.uri ?? `interactions/${this.random.id()}`,
      type: "configuration/interactionTypes/Email",
      createdBy: this.random.pick(users),
      createdTime: existing?.createdTime ?? at,
      updatedTime: at,
      timestamp: at,
      members: {
        Recipients: {
          type: "configuration/interactionTypes/Email/memberTypes/Recipients",
          members: members.map((m) => ({ objectURI: m.uri })),
        },
      },
    };
  }

  interactionEvent(
    type: "INTERACTION_CREATED" | "INTERACTION_CHANGED" | "INTERACTION_REMOVED",
    members: Entity[],
    existing?: Versioned,
  ): Draft {
    const at = this.tick();
    const interaction = existing ?? {
      uri: `interactions/${this.random.id()}`,
      version: 0,
      active: true,
      createdTime: at,
      updatedTime: at,
    };
    if (!existing) this.interactions.push(interaction);
    interaction.version += 1;
    interaction.updatedTime = at;
    if (type === "INTERACTION_REMOVED") interaction.active = false;
    const object = this.interactionObject(members, interaction);
    return this.message(type, interaction.uri, interaction.version, object);
  }

  /** DCR events: the payload carries only the event name. */
  changeRequestEvent(
    type: "CHANGE_REQUEST_CREATED" | "CHANGE_REQUEST_CHANGED" | "CHANGE_REQUEST_REMOVED",
    existing?: Versioned,
  ): Draft {
    const at = this.tick();
    const request = existing ?? {
      uri: `changeRequests/${this.random.id()}`,
      version: 0,
      active: true,
      createdTime: at,
      updatedTime: at,
    };
    if (!existing) this.changeRequests.push(request);
    request.version += 1;
    if (type === "CHANGE_REQUEST_REMOVED") request.active = false;
    return {
      headers: this.headers(type, request.uri, request.version),
      body: JSON.stringify({ type }),
      type,
    };
  }
}

// ---------------------------------------------------------------------------------------------- invalid

/** Builds messages of which exactly the last breaks `rule`; the others (if any) are a valid lead-in. */
export interface StreamMutation {
  /** The checker's mutation name (src/events/generate/mutations.ts). */
  name: string;
  rule: string;
  /** How many messages build() returns (the invalid one last). */
  messages: number;
  /** Streams it fits: a snapshot-only break in a deltas stream would also break payloadType. */
  streams: readonly PayloadType[];
  build(world: StreamWorld): Draft[];
}

/** Payload kinds in the checker's words. */
export type MutationKind = "snapshot" | "deltas" | "large-object" | "name-only";

const payloadTypes: readonly PayloadType[] = ["snapshot", "deltas", "mixed"];

/** Kinds a stream of a payload type carries (large-object fallbacks in all: largeObjectsSupport is on). */
const kindsIn: Record<PayloadType, readonly MutationKind[]> = {
  snapshot: ["snapshot", "large-object", "name-only"],
  deltas: ["deltas", "large-object", "name-only"],
  mixed: ["snapshot", "deltas", "large-object", "name-only"],
};

const generatedTypes = [
  "ENTITY_CREATED",
  "ENTITY_CHANGED",
  "ENTITY_REMOVED",
  "ENTITY_REMOVED_GDPR",
  "ENTITY_LOST_MERGE",
  "ENTITIES_SPLITTED",
  "ENTITIES_MATCHES_CHANGED",
  "ENTITY_BUSINESS_PROCESS_CHANGED",
  "RELATIONSHIP_CREATED",
  "RELATIONSHIP_CHANGED",
  "RELATIONSHIP_REMOVED",
  "RELATIONSHIP_REMOVED_GDPR",
  "RELATIONSHIP_MERGED",
  "RELATION_LOST_MERGE",
  "INTERACTION_CREATED",
  "INTERACTION_CHANGED",
  "INTERACTION_REMOVED",
  "CHANGE_REQUEST_CREATED",
  "CHANGE_REQUEST_CHANGED",
  "CHANGE_REQUEST_REMOVED",
];

function kindsOfType(type: string): readonly MutationKind[] {
  return type.startsWith("CHANGE_REQUEST_") ? ["name-only"] : ["snapshot", "deltas", "large-object"];
}

/**
 * Mutations of the checker that do not fit a stream sent over a transport: "payload is an array" breaks
 * the NDJSON envelope; over AMQP the body itself is the payload, so the message breaks another rule. A
 * bare fallback without uri is invalid only without headers: over a transport sourceObjectUri carries it.
 */
const envelopeOnly = new Set(["payload is an array", "large-object fallback without uri (bare payload)"]);

/** The (type, kind) pairs a mutation can start from in a stream of a payload type. */
function startsOf(mutation: Mutation, stream: PayloadType): { type: string; kind: MutationKind }[] {
  const types = (mutation.from.types ?? generatedTypes).filter((type) => generatedTypes.includes(type));
  const starts: { type: string; kind: MutationKind }[] = [];
  for (const type of types)
    for (const kind of kindsOfType(type))
      if (kindsIn[stream].includes(kind) && (mutation.from.kinds ?? [kind]).includes(kind))
        starts.push({ type, kind });
  return starts;
}

/** One NDJSON line of a mutation as a transport message: the envelope's headers and payload, or the raw text. */
function asDraft(line: string, fallbackHeaders: Record<string, unknown>): Draft {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    parsed = undefined;
  }
  if (parsed !== null && typeof parsed === "object" && "payload" in parsed) {
    const envelope = parsed as { headers?: Record<string, unknown>; payload: unknown };
    const headers = envelope.headers ?? {};
    const type = typeof headers.eventType === "string" ? headers.eventType : "(none)";
    return { headers, body: JSON.stringify(envelope.payload), type };
  }
  const type = typeof fallbackHeaders.eventType === "string" ? fallbackHeaders.eventType : "(none)";
  return { headers: fallbackHeaders, body: line, type };
}

/** The checker's named mutations (src/events/generate/mutations.ts) that fit generated streams, as stream mutations. */
function adapt(mutation: Mutation): StreamMutation | undefined {
  // Mutations that need their own streaming configuration, or only warn, do not fit one stream's manifest.
  if (mutation.config || mutation.severity !== "error" || envelopeOnly.has(mutation.name)) return undefined;
  const streams = payloadTypes.filter((stream) => startsOf(mutation, stream).length > 0);
  if (streams.length === 0) return undefined;
  const build = (world: StreamWorld): Draft[] => {
    const start = world.random.pick(startsOf(mutation, world.payloadType()));
    const message = world.freshMessage(start.type, start.kind);
    const drafts = mutation.apply(message).map((line) => asDraft(line, message.headers));
    return drafts.map((draft, index) =>
      index === drafts.length - 1
        ? { ...draft, invalid: { rule: mutation.rule, description: mutation.name }, pinned: index > 0 }
        : { ...draft, pinned: index > 0 },
    );
  };
  // How many messages it makes, from a sample in a world of its own (the count does not depend on the seed).
  const stream = streams[0] ?? "snapshot";
  const sample = build(new StreamWorld(new Random(0), "sample", { payloadType: stream, largeObjects: 0 }));
  return { name: mutation.name, rule: mutation.rule, messages: sample.length, streams, build };
}

let adapted: StreamMutation[] | undefined;

/** The mutations generated streams draw invalid messages from: the checker's own, one named rule each. */
export function streamMutations(): readonly StreamMutation[] {
  adapted ??= checkerMutations.map(adapt).filter((m): m is StreamMutation => m !== undefined);
  return adapted;
}

// ---------------------------------------------------------------------------------------------- stream

type Step =
  | "createEntity"
  | "changeEntity"
  | "createRelation"
  | "changeRelation"
  | "removeRelation"
  | "merge"
  | "split"
  | "gdpr"
  | "recreate"
  | "removeEntity"
  | "matches"
  | "businessProcess"
  | "interaction"
  | "changeRequest"
  | "unlisted";

/** Objects the world keeps before it forgets those that can take no further event. */
const forgetAbove = 2000;
/** Populations past which the world stops growing them, so that a step costs the same in a long stream. */
const maxActiveEntities = 500;
const maxMergedEntities = 100;
const maxLiveRelations = 1000;
/** Live interactions and change requests past which the world changes or removes them instead of creating. */
const maxLiveOthers = 1000;

/** Drops objects that can take no further event (removed, re-created after GDPR, inactive), keeping every
 *  step's cost bounded however long the stream: without it a step scans every object ever created. */
function forgetFinished(world: StreamWorld): void {
  const keep = <T>(list: T[], live: (item: T) => boolean) => {
    if (list.length <= forgetAbove) return;
    const kept = list.filter(live);
    list.length = 0;
    list.push(...kept);
  };
  keep(
    world.entities,
    (e) => e.state === "active" || e.state === "merged" || (e.state === "gdpr" && !e.recreated),
  );
  keep(world.relations, (r) => r.active);
  keep(world.interactions, (i) => i.active);
  keep(world.changeRequests, (r) => r.active);
}

/** The next few valid messages of the world: one lifecycle step, which may yield two or three messages. */
function step(world: StreamWorld): Draft[] {
  forgetFinished(world);
  const random = world.random;
  const active = world.entities.filter((e) => e.state === "active");
  const merged = world.entities.filter((e) => e.state === "merged");
  const gdpr = world.entities.filter((e) => e.state === "gdpr" && !e.recreated);
  const liveRelations = world.relations.filter(
    (r) => r.active && r.start.state === "active" && r.end.state === "active",
  );
  const liveInteractions = world.interactions.filter((i) => i.active);
  const liveRequests = world.changeRequests.filter((r) => r.active);
  const weights: Record<Step, number> = {
    createEntity: active.length < 8 ? 10 : active.length < maxActiveEntities ? 3 : 0,
    changeEntity: active.length > 0 ? 12 : 0,
    createRelation: active.length > 1 && liveRelations.length < maxLiveRelations ? 4 : 0,
    changeRelation: liveRelations.length > 0 ? 3 : 0,
    removeRelation: liveRelations.length > 0 ? 1 : 0,
    merge: active.length > 3 && merged.length < maxMergedEntities ? 1 : 0,
    split: merged.length > 0 ? 0.6 : 0,
    gdpr: active.length > 4 ? 0.5 : 0,
    recreate: gdpr.length > 0 ? 0.4 : 0,
    removeEntity: active.length > 6 ? 0.5 : 0,
    matches: active.length > 1 ? 1 : 0,
    businessProcess: active.length > 0 ? 0.7 : 0,
    interaction: active.length > 1 ? 2 : 0,
    changeRequest: 1.5,
    unlisted: world.variety && active.length > 1 ? 0.3 : 0,
  };
  const choice = random.weighted(weights);
  const two = () => {
    const a = random.pick(active);
    const b = random.pick(active.filter((e) => e !== a));
    return [a, b] as const;
  };
  switch (choice) {
    case "createEntity":
      return [world.newEntity()];
    case "changeEntity":
      return [world.changeEntity(random.pick(active))];
    case "createRelation": {
      const [a, b] = two();
      return world.newRelation(a, b);
    }
    case "changeRelation":
      return world.relationEvent("RELATIONSHIP_CHANGED", random.pick(liveRelations));
    case "removeRelation": {
      const relation = random.pick(liveRelations);
      relation.active = false;
      return world.relationEvent(
        random.chance(0.2) ? "RELATIONSHIP_REMOVED_GDPR" : "RELATIONSHIP_REMOVED",
        relation,
      );
    }
    case "merge": {
      const [winner, loser] = two();
      return world.merge(winner, loser);
    }
    case "split":
      return world.split(random.pick(merged));
    case "gdpr":
      return [world.gdprRemove(random.pick(active))];
    case "recreate":
      return [world.recreate(random.pick(gdpr))];
    case "removeEntity":
      return [world.removeEntity(random.pick(active))];
    case "matches": {
      const [a, b] = two();
      return [world.matchesChanged(a, b)];
    }
    case "businessProcess":
      return [world.businessProcessChanged(random.pick(active))];
    case "interaction": {
      if (liveInteractions.length >= maxLiveOthers || (liveInteractions.length > 0 && random.chance(0.5))) {
        const type = random.chance(0.6) ? "INTERACTION_CHANGED" : "INTERACTION_REMOVED";
        return [world.interactionEvent(type, two().slice(), random.pick(liveInteractions))];
      }
      return [world.interactionEvent("INTERACTION_CREATED", two().slice())];
    }
    case "unlisted": {
      const [a, b] = two();
      return [world.unlistedEvent(a, b)];
    }
    case "changeRequest": {
      if (liveRequests.length >= maxLiveOthers || (liveRequests.length > 0 && random.chance(0.6))) {
        const type = random.chance(0.6) ? "CHANGE_REQUEST_CHANGED" : "CHANGE_REQUEST_REMOVED";
        return [world.changeRequestEvent(type, random.pick(liveRequests))];
      }
      return [world.changeRequestEvent("CHANGE_REQUEST_CREATED")];
    }
  }
}

function check(options: StreamOptions): void {
  const problems: string[] = [];
  if (!Number.isInteger(options.seed)) problems.push(`seed must be an integer, got ${options.seed}`);
  if (!Number.isInteger(options.count) || options.count < 0)
    problems.push(`count must be an integer >= 0, got ${options.count}`);
  const p = options.duplicates ?? 0;
  if (!(p >= 0 && p < 1)) problems.push(`duplicates must be a probability in [0, 1), got ${p}`);
  const w = options.reorderWindow ?? 0;
  if (!Number.isInteger(w) || w < 0) problems.push(`reorderWindow must be an integer >= 0, got ${w}`);
  const invalid = options.invalid?.count ?? 0;
  if (!Number.isInteger(invalid) || invalid < 0)
    problems.push(`invalid.count must be an integer >= 0, got ${invalid}`);
  const share = options.largeObjects ?? 0.05;
  if (!(share >= 0 && share <= 1)) problems.push(`largeObjects must be a share in [0, 1], got ${share}`);
  if (!["snapshot", "deltas", "mixed", undefined].includes(options.payloadType))
    problems.push(`payloadType must be snapshot, deltas or mixed, got ${options.payloadType}`);
  if (invalid > options.count)
    problems.push(`invalid.count (${invalid}) cannot exceed count (${options.count})`);
  const known = new Set(streamMutations().map((m) => m.rule as string));
  for (const r of options.invalid?.rules ?? [])
    if (!known.has(r))
      problems.push(`no mutation breaks rule "${r}"; known: ${[...known].sort().join(", ")}`);
  if (problems.length > 0) throw new RangeError(`generateStream: ${problems.join("; ")}`);
}

/** Generates the stream and its manifest. Throws RangeError on options out of range. */
export function generateStream(options: StreamOptions): GeneratedStream {
  const mutations = selectedMutations(options);
  const random = new Random(options.seed);
  const world = new StreamWorld(random, options.tenantId ?? "acme", {
    payloadType: options.payloadType ?? "snapshot",
    largeObjects: options.largeObjects ?? 0.05,
    variety: options.variety ?? true,
  });
  const duplicateChance = options.duplicates ?? 0;
  const targets = invalidTargets(options, mutations, random);

  const drafts: Draft[] = [];
  let pending: Draft[] = [];
  let injected = 0;
  while (drafts.length < options.count) {
    if (drafts.length === targets[injected]) {
      drafts.push(...random.pick(mutations).build(world));
      injected += 1;
      continue;
    }
    if (pending.length === 0) pending = step(world);
    const next = pending.shift();
    if (!next) continue;
    drafts.push(next);
    // An exact re-send, unless it would take the place reserved for an invalid message.
    if (
      duplicateChance > 0 &&
      drafts.length < options.count &&
      drafts.length !== targets[injected] &&
      random.chance(duplicateChance)
    )
      drafts.push({
        ...next,
        duplicate: true,
        // A producer's re-send may be serialized again: the same data, other key order and spacing.
        body: world.variety && random.chance(0.5) ? reserialized(next.body, random) : next.body,
      });
  }
  const ordered = reorder(drafts, options.reorderWindow ?? 0, random);
  return {
    messages: ordered.map((d) => ({ headers: d.headers, body: d.body })),
    manifest: manifestOf(options, drafts, ordered),
  };
}

/** Keys in reverse order at every level. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .reverse()
      .map(([key, item]) => [key, reversedKeys(item)]),
  );
}

/** A body serialized again with its keys reversed and 0-2 spaces of indentation. */
function reserialized(body: string, random: Random): string {
  return JSON.stringify(reversedKeys(JSON.parse(body)), null, random.int(0, 2));
}

/** The mutations to draw from: those breaking the requested rules, and only single-message ones if the
 *  stream is too short to give every invalid message room for a lead-in. */
function selectedMutations(options: StreamOptions): StreamMutation[] {
  check(options);
  const wanted = options.invalid?.rules;
  const stream = options.payloadType ?? "snapshot";
  const fitting = streamMutations().filter((m) => m.streams.includes(stream));
  const pool = wanted?.length ? fitting.filter((m) => wanted.includes(m.rule)) : fitting;
  const invalid = options.invalid?.count ?? 0;
  if (invalid > 0 && pool.length === 0)
    throw new RangeError(
      `generateStream: no mutation of rules ${wanted?.join(", ")} fits a ${stream} stream; ` +
        `rules that fit: ${[...new Set(fitting.map((m) => m.rule))].sort().join(", ")}`,
    );
  const widest = Math.max(...pool.map((m) => m.messages));
  if (invalid * widest <= options.count) return pool;
  const singles = pool.filter((m) => m.messages === 1);
  if (singles.length === 0)
    throw new RangeError(
      `generateStream: ${invalid} invalid message(s) of rules ${wanted?.join(", ")} need ${invalid * widest} messages; count is ${options.count}`,
    );
  return singles;
}

/** Seeded start positions of the invalid messages, spaced so that each mutation has room for all its messages. */
function invalidTargets(options: StreamOptions, mutations: StreamMutation[], random: Random): number[] {
  const invalid = options.invalid?.count ?? 0;
  if (invalid === 0) return [];
  const width = Math.max(...mutations.map((m) => m.messages));
  const free = options.count - invalid * width; // >= 0, see selectedMutations
  const offsets = Array.from({ length: invalid }, () => random.int(0, free)).sort((a, b) => a - b);
  return offsets.map((offset, i) => offset + i * width);
}

/** Each message moves at most `window` places; pinned messages keep their order after their predecessor. */
function reorder(drafts: Draft[], window: number, random: Random): Draft[] {
  if (window === 0) return [...drafts];
  const keyed = drafts.map((draft, index) => ({ draft, key: index + random.next() * window }));
  for (let i = 1; i < keyed.length; i += 1) {
    const current = keyed[i];
    const previous = keyed[i - 1];
    if (current?.draft.pinned && previous) current.key = previous.key + 1e-9;
  }
  return keyed.sort((a, b) => a.key - b.key).map((k) => k.draft);
}

function manifestOf(options: StreamOptions, created: Draft[], ordered: Draft[]): StreamManifest {
  const invalidMessages: InvalidEntry[] = [];
  const byRule: Record<string, number> = {};
  const byType: Record<string, number> = {};
  ordered.forEach((draft, index) => {
    byType[draft.type] = (byType[draft.type] ?? 0) + 1;
    if (!draft.invalid) return;
    invalidMessages.push({ index, rule: draft.invalid.rule, description: draft.invalid.description });
    byRule[draft.invalid.rule] = (byRule[draft.invalid.rule] ?? 0) + 1;
  });
  const displaced = ordered.filter((draft, index) => created[index] !== draft).length;
  return {
    seed: options.seed,
    total: ordered.length,
    valid: ordered.length - invalidMessages.length,
    invalid: invalidMessages.length,
    invalidMessages,
    byRule,
    duplicates: ordered.filter((d) => d.duplicate).length,
    displaced,
    byType,
    streamingConfig:
      options.payloadType === "mixed"
        ? undefined
        : {
            JMSEventsFilteringFields: entityFields,
            RelationEventsFilteringFields: relationFields,
            payloadType: options.payloadType ?? "snapshot",
            // false: ovChanged may be absent (the checker's own mutations start from messages without it);
            // generated ENTITY_CHANGED and RELATIONSHIP_CHANGED messages carry it all the same.
            analyzeOvChanges: false,
            largeObjectsSupport: true,
          },
  };
}

export type { Draft as StreamDraft };
