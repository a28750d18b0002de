// How the generator writes one message: the objects of the world as snapshot objects, delta items and
// deltas members, large-object fallbacks, headers that agree with the payload; the world's clock. The
// lifecycle of the objects (what happens next to which) is StreamWorld's, in stream-world.ts.

import type { ObjectPayloadKind } from "../payload-kind.ts";
import { nestedAttributeValue } from "./nested-values.ts";
import type { Random } from "./random.ts";
import type { PayloadType } from "./stream-options.ts";
import {
  type AttributeValue,
  countries,
  type Draft,
  type Entity,
  type Relation,
  sources,
  users,
} from "./world-objects.ts";

/** Builds the messages about the objects of a world; every message it returns is valid. */
/** A message whose body is serialized only when read (then with `indent` spaces, for a re-send serialized
 *  again). A class, not a literal with a getter: a long stream makes one per message. */
export class LazyDraft implements Draft {
  constructor(
    readonly headers: Record<string, unknown>,
    readonly payload: Record<string, unknown>,
    readonly type: string,
    readonly duplicate?: boolean,
    private readonly indent?: number,
  ) {}

  get body(): string {
    return JSON.stringify(this.payload, null, this.indent);
  }
}

export class MessageBuilders {
  protected clock: number;

  constructor(
    readonly random: Random,
    readonly tenantId: string,
    private readonly shape: {
      payloadType: PayloadType;
      largeObjects: number;
      variety?: boolean;
      /** false: a message's body is serialized only when read (its payload object is what is used). */
      textBodies?: boolean;
      /** An entity merge also merges the loser's relations away: RELATION_LOST_MERGE for each. */
      relationMerges?: boolean;
    },
  ) {
    // A fixed epoch keeps streams reproducible: 2026-01-05T09:00:00Z plus a seed-dependent offset.
    this.clock = Date.UTC(2026, 0, 5, 9, 0, 0) + random.int(0, 86_400_000);
  }

  protected tick(): number {
    this.clock += this.random.int(5, 900);
    return this.clock;
  }

  protected iso(at: number): string {
    return new Date(at).toISOString();
  }

  headers(eventType: string, uri: string, version: number): Record<string, unknown> {
    return { tenantId: this.tenantId, eventType, sourceObjectUri: uri, objectVersion: version };
  }

  protected attributeValue(
    entity: { uri: string; type: string },
    name: string,
    value: string,
  ): AttributeValue {
    return {
      type: `${entity.type}/attributes/${name}`,
      ov: true,
      value,
      uri: `${entity.uri}/attributes/${name}/${this.random.id(8)}`,
    };
  }

  protected countryValue(entity: { uri: string; type: string }): AttributeValue {
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

  protected crosswalk(objectUri: string, attributeUris: string[], at: number): Record<string, unknown> {
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
  protected preferredOnly = false;

  protected entityObject(entity: Entity): Record<string, unknown> {
    const first = entity.attributes.FirstName?.[0]?.value ?? "";
    const last = entity.attributes.LastName?.[0]?.value ?? "";
    const own =
      // A copy: the entity's attributes change after this message, and the message keeps its own.
      entity.nesting === undefined
        ? { ...entity.attributes }
        : { ...entity.attributes, Address: [nestedAttributeValue(entity.nesting)] };
    const attributes = entity.references ? { ...own, ...entity.references } : own;
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

  protected relationObject(relation: Relation): Record<string, unknown> {
    const object = {
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
    relation.last = object;
    return object;
  }

  payloadType(): PayloadType {
    return this.shape.payloadType;
  }

  get relationMerges(): boolean {
    return this.shape.relationMerges === true;
  }

  /** The payload kind of the next message: the stream's payload type, now and then a large-object fallback. */
  protected kindFor(): ObjectPayloadKind {
    if (this.random.chance(this.shape.largeObjects)) return "large-object";
    if (this.shape.payloadType === "mixed") return this.random.chance(1 / 3) ? "deltas" : "snapshot";
    return this.shape.payloadType;
  }

  /**
   * One message about an object, as the stream's payload type says: a snapshot of `object`, a deltas
   * message listing `items`, or the large-object fallback (no object; ovChanged kept where it applies).
   */
  protected message(
    type: string,
    uri: string,
    version: number,
    object: Record<string, unknown>,
    extra: Record<string, unknown> = {},
    items: Record<string, unknown>[] = [],
    kind: ObjectPayloadKind = this.kindFor(),
  ): Draft {
    let payload: Record<string, unknown>;
    if (kind === "large-object") {
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
    return this.draft(this.headers(type, uri, version), payload, type);
  }

  /** A message with its payload object; its body text now, or when first read (see textBodies). */
  draft(headers: Record<string, unknown>, payload: Record<string, unknown>, type: string): Draft {
    if (this.shape.textBodies !== false) return { headers, body: JSON.stringify(payload), payload, type };
    return new LazyDraft(headers, payload, type);
  }

  /**
   * The deltas member: the document leaves its structure open. With legal variety, the delta message of
   * the document's table, its deltaCollection alone ({ovChanged, delta}, as vendors send it) or, now and
   * then, another object; otherwise always the delta message.
   */
  protected deltasOf(
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
  protected deltas(
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

  protected deltaValue(v: AttributeValue): Record<string, unknown> {
    return {
      value: v.value,
      ov: v.ov,
      id: v.uri.split("/").at(-1) ?? "",
      sources: [this.random.pick(sources)],
    };
  }
}
