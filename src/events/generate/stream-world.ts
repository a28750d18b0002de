// The lifecycle of the world's objects: entities created, changed, merged and split, removed (GDPR
// removal and re-creation included), relationships with their ENTITY_CHANGED companions, interactions and
// change requests; objectVersion rises per object. Each event is written by MessageBuilders.

import type { ObjectPayloadKind, PayloadKind } from "../payload-kind.ts";
import { MessageBuilders } from "./message-builders.ts";
import {
  type Draft,
  type Entity,
  entityTypes,
  firstNames,
  lastNames,
  type Relation,
  relationTypes,
  users,
  type Versioned,
} from "./world-objects.ts";

/** A world of objects and the valid messages about what happens to them. */
export class StreamWorld extends MessageBuilders {
  readonly entities: Entity[] = [];
  readonly relations: Relation[] = [];
  readonly interactions: Versioned[] = [];
  readonly changeRequests: Versioned[] = [];
  /** The live populations a step draws from, kept as each step changes them (see Populations). */
  readonly live = new Populations(this);

  newEntity(): Draft {
    const { entity, draft } = this.freshEntity();
    // Deep but legal nesting: now and then an entity whose snapshots carry a nested attribute 10-120
    // levels down (3 levels of JSON each; the checker inspects up to 512).
    if (this.variety && this.random.chance(0.03)) entity.nesting = this.random.int(10, 120);
    this.entities.push(entity);
    this.live.entityCreated(entity);
    return draft;
  }

  /** An entity outside the world's lifecycle (nothing else will ever happen to it), with its creation. */
  freshEntity(payloadKind?: ObjectPayloadKind): { entity: Entity; draft: Draft } {
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

  changeEntityAs(entity: Entity, kind: ObjectPayloadKind, ovChanged = false, reference?: Relation): Draft {
    const at = this.tick();
    entity.version += 1;
    // Every fifth version is written by a node whose clock is behind: its updatedTime is not later than
    // the version before (the document: order by objectVersion, "not by timestamp fields").
    entity.updatedTime = entity.version % 5 === 0 ? Math.max(entity.createdTime, entity.updatedTime - 1) : at;
    const name = this.random.pick(["FirstName", "LastName", "Country"] as const);
    const old = entity.attributes[name]?.[0];
    const replacement =
      name === "Country"
        ? this.countryValue(entity)
        : this.attributeValue(entity, name, this.random.pick(name === "FirstName" ? firstNames : lastNames));
    // Now and then the country is removed, not replaced: the document's delta items are ATTRIBUTE_CHANGED
    // and ATTRIBUTE_REMOVED. Decided by the version, not a draw, so that the rest of the stream is the
    // same whatever is removed (the replacement is still drawn).
    const removes = name === "Country" && old !== undefined && entity.version % 4 === 0;
    if (removes) delete entity.attributes[name];
    else entity.attributes[name] = [replacement];
    // Only the changed attribute is listed.
    const items: Record<string, unknown>[] = removes
      ? [{ type: "ATTRIBUTE_REMOVED", attributeType: old.type, oldValue: this.deltaValue(old) }]
      : old
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
    return this.draft(this.headers(type, entity.uri, entity.version), payload, type);
  }

  /** A relationship event and, for reference attributes, the ENTITY_CHANGED companion (ovChanged true). */
  relationEvent(type: string, relation: Relation): Draft[] {
    const at = this.tick();
    relation.version += 1;
    relation.updatedTime = at;
    const extra = type === "RELATIONSHIP_CHANGED" ? { ovChanged: relation.reference } : {};
    const drafts = [this.message(type, relation.uri, relation.version, this.relationObject(relation), extra)];
    // The start entity's snapshots show the reference attribute (refRelation names the relation type).
    if (relation.reference && this.variety) this.showReference(relation, type === "RELATIONSHIP_CREATED");
    if (relation.reference && relation.start.state === "active")
      drafts.push(this.changeEntity(relation.start, true, relation));
    return drafts;
  }

  private showReference(relation: Relation, present: boolean): void {
    const entity = relation.start;
    const name = relation.type.split("/").at(-1) ?? "Reference";
    entity.references ??= {};
    if (!present) {
      delete entity.references[name];
      return;
    }
    entity.references[name] = [
      {
        type: `${entity.type}/attributes/${name}`,
        ov: true,
        value: {},
        uri: `${entity.uri}/attributes/${name}/${this.random.id(8)}`,
        refEntity: { objectURI: relation.end.uri, type: relation.end.type },
        refRelation: { objectURI: relation.uri, type: relation.type },
      },
    ];
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
    this.live.related(relation);
    return this.relationEvent("RELATIONSHIP_CREATED", relation);
  }

  /** The loser gets ENTITY_LOST_MERGE; the winner an ENTITY_CHANGED carrying the loser's crosswalks; with
   *  relationMerges, each live relation of the loser a RELATION_LOST_MERGE (relationsLostIn). */
  merge(winner: Entity, loser: Entity): Draft[] {
    this.tick();
    const relations = this.relationMerges
      ? this.relations.filter((r) => r.active && (r.start === loser || r.end === loser))
      : [];
    loser.version += 1;
    loser.state = "merged";
    loser.mergedInto = winner.uri;
    this.live.entityChanged(loser);
    const lost = this.message("ENTITY_LOST_MERGE", loser.uri, loser.version, this.entityObject(loser));
    winner.crosswalks = [...winner.crosswalks, ...loser.crosswalks];
    return [lost, this.changeEntity(winner), ...this.relationsLostIn(relations)];
  }

  /** "RELATION_LOST_MERGE | generated when merging relationships, for loser relations": the loser's
   *  relations are merged away with it, each for good (an unmerge does not bring them back). Drawn from
   *  nothing random, so the world's other objects are as they would be without them: the snapshot repeats
   *  the relation's last object, a deltas message lists no change. */
  private relationsLostIn(relations: Relation[]): Draft[] {
    return relations.map((relation) => {
      relation.version += 1;
      relation.active = false;
      relation.updatedTime = this.clock;
      const type = "RELATION_LOST_MERGE";
      const payload =
        this.payloadType() === "deltas"
          ? { type, uri: relation.uri, deltas: { ovChanged: false, delta: [] } }
          : { type, object: { ...relation.last, updatedTime: this.clock } };
      return this.draft(this.headers(type, relation.uri, relation.version), payload, type);
    });
  }

  /** Unmerge: ENTITIES_SPLITTED for the winner and for the entity split off, both naming the participants. */
  split(loser: Entity): Draft[] {
    const winner = this.entities.find((e) => e.uri === loser.mergedInto);
    this.tick();
    loser.state = "active";
    loser.mergedInto = undefined;
    this.live.entityChanged(loser);
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
    return this.removal(entity, "gdpr", "ENTITY_REMOVED_GDPR");
  }

  recreate(entity: Entity): Draft {
    const at = this.tick();
    entity.version += 1;
    entity.recreated = true;
    this.live.entityChanged(entity);
    entity.createdTime = at;
    entity.updatedTime = at;
    return this.message("ENTITY_CREATED", entity.uri, entity.version, this.entityObject(entity));
  }

  removeEntity(entity: Entity): Draft {
    return this.removal(entity, "removed", "ENTITY_REMOVED");
  }

  /** An entity removed (plainly or by a GDPR request): its relations end, and the payload names it only. */
  private removal(
    entity: Entity,
    state: "removed" | "gdpr",
    type: "ENTITY_REMOVED" | "ENTITY_REMOVED_GDPR",
  ): Draft {
    this.tick();
    entity.version += 1;
    entity.state = state;
    this.endRelationsOf(entity);
    return this.message(type, entity.uri, entity.version, { uri: entity.uri, type: entity.type });
  }

  private endRelationsOf(entity: Entity): void {
    for (const relation of this.relations)
      if (relation.start === entity || relation.end === entity) relation.active = false;
    this.live.entityChanged(entity);
  }

  /** A relation removed (RELATIONSHIP_REMOVED or _GDPR follows). */
  endRelation(relation: Relation): void {
    relation.active = false;
    this.live.ended(this.live.relations, relation);
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
    kind: PayloadKind,
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
    kind: PayloadKind,
  ): { headers: Record<string, unknown>; payload: Record<string, unknown> } {
    const payloadKind: ObjectPayloadKind = kind === "name-only" ? "snapshot" : kind;
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
      // A relation type without a reference attribute: the message stands alone (no companion needed).
      const kindOfRelation = this.random.pick(relationTypes.filter((type) => !type.reference));
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
    return {
      headers: draft.headers,
      payload: draft.payload ?? (JSON.parse(draft.body) as Record<string, unknown>),
    };
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

  /** The object an interaction or change request event is about, its version raised for the event:
   *  `existing`, or a new one under `collection/` that joins the world's list and the live one. */
  private nextVersion(
    existing: Versioned | undefined,
    collection: string,
    at: number,
    all: Versioned[],
    live: Versioned[],
  ): Versioned {
    const versioned = existing ?? {
      uri: `${collection}/${this.random.id()}`,
      version: 0,
      active: true,
      createdTime: at,
      updatedTime: at,
    };
    if (!existing) {
      all.push(versioned);
      live.push(versioned);
    }
    versioned.version += 1;
    return versioned;
  }

  interactionEvent(
    type: "INTERACTION_CREATED" | "INTERACTION_CHANGED" | "INTERACTION_REMOVED",
    members: Entity[],
    existing?: Versioned,
  ): Draft {
    const at = this.tick();
    const interaction = this.nextVersion(
      existing,
      "interactions",
      at,
      this.interactions,
      this.live.interactions,
    );
    interaction.updatedTime = at;
    if (type === "INTERACTION_REMOVED") {
      interaction.active = false;
      this.live.ended(this.live.interactions, interaction);
    }
    const object = this.interactionObject(members, interaction);
    return this.message(type, interaction.uri, interaction.version, object);
  }

  /** DCR events: the payload carries only the event name. */
  changeRequestEvent(
    type: "CHANGE_REQUEST_CREATED" | "CHANGE_REQUEST_CHANGED" | "CHANGE_REQUEST_REMOVED",
    existing?: Versioned,
  ): Draft {
    const at = this.tick();
    const request = this.nextVersion(existing, "changeRequests", at, this.changeRequests, this.live.requests);
    if (type === "CHANGE_REQUEST_REMOVED") {
      request.active = false;
      this.live.ended(this.live.requests, request);
    }
    return this.draft(this.headers(type, request.uri, request.version), { type }, type);
  }
}

/**
 * What a lifecycle step draws from: each list is, element for element and in the same order, the filter of
 * the world's list it names, so that a seed gives the same stream as filtering anew at every step would.
 * Filtering anew made a step cost the size of the world; the lists are instead kept as steps change them:
 * appended on creation, cut on removal, an entity moved between lists (at its place in creation order)
 * when its state changes.
 */
export class Populations {
  readonly active: Entity[] = [];
  readonly merged: Entity[] = [];
  /** GDPR-removed entities not yet re-created. */
  readonly gdpr: Entity[] = [];
  /** Active relations between two active entities. */
  relations: Relation[] = [];
  readonly interactions: Versioned[] = [];
  readonly requests: Versioned[] = [];
  /** Creation order of entities and relations, which the lists keep. */
  private readonly order = new WeakMap<Entity | Relation, number>();
  private created = 0;

  constructor(private readonly world: StreamWorld) {}

  entityCreated(entity: Entity): void {
    this.order.set(entity, this.created++);
    this.active.push(entity);
  }

  related(relation: Relation): void {
    this.order.set(relation, this.created++);
    if (relation.start.state === "active" && relation.end.state === "active") this.relations.push(relation);
  }

  /** After the entity's state (or its re-creation) changed: it moves to the list of its new state, and
   *  the relations it ends or revives follow. */
  entityChanged(entity: Entity): void {
    for (const list of [this.active, this.merged, this.gdpr]) this.ended(list, entity);
    const list =
      entity.state === "active"
        ? this.active
        : entity.state === "merged"
          ? this.merged
          : entity.state === "gdpr" && !entity.recreated
            ? this.gdpr
            : undefined;
    if (list) list.splice(this.placeOf(list, entity), 0, entity);
    this.relations =
      entity.state === "active"
        ? this.world.relations.filter(
            (r) => r.active && r.start.state === "active" && r.end.state === "active",
          )
        : this.relations.filter((r) => r.active && r.start !== entity && r.end !== entity);
  }

  ended<T>(list: T[], item: T): void {
    const at = list.indexOf(item);
    if (at >= 0) list.splice(at, 1);
  }

  /** Where the entity goes in a list kept in creation order. */
  private placeOf(list: Entity[], entity: Entity): number {
    const rank = this.order.get(entity) ?? 0;
    let low = 0;
    let high = list.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.order.get(list[middle] as Entity) ?? 0) < rank) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
