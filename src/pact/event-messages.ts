// The event messages the kit's message pacts describe, one per family, and how the kit's event generator
// (src/events/generate/) produces each: `lckit pact verify` answers a message pact's description with it.
import { Random, type StreamDraft, StreamWorld } from "../events/generate/index.ts";
import { STATE, type StateName } from "./provider-states.ts";

export const EVENT = {
  entitySnapshot: "an ENTITY_CREATED event as a snapshot",
  entityChangedDeltas: "an ENTITY_CHANGED event as deltas",
  relationship: "a RELATIONSHIP_CREATED event as a snapshot",
  interaction: "an INTERACTION_CREATED event as a snapshot",
  changeRequest: "a CHANGE_REQUEST_CREATED event",
  entitiesSplitted: "an ENTITIES_SPLITTED event for the entity split off",
  largeObject: "an ENTITY_CHANGED event sent as a large-object fallback",
} as const;

export type EventDescription = (typeof EVENT)[keyof typeof EVENT];

export interface EventMessageSpec {
  description: EventDescription;
  /** Event type the message carries. */
  type: string;
  state: StateName;
  /** The message as the generator produces it in `world`. */
  build(world: StreamWorld): StreamDraft;
}

function lastEntity(world: StreamWorld) {
  const entity = world.entities.at(-1);
  if (!entity) throw new Error("the event generator created no entity");
  return entity;
}

export const eventMessages: readonly EventMessageSpec[] = [
  {
    description: EVENT.entitySnapshot,
    type: "ENTITY_CREATED",
    state: STATE.snapshotStream,
    build: (world) => world.freshEntity("snapshot").draft,
  },
  {
    description: EVENT.entityChangedDeltas,
    type: "ENTITY_CHANGED",
    state: STATE.deltasStream,
    build: (world) => world.changeEntityAs(world.freshEntity("deltas").entity, "deltas"),
  },
  {
    description: EVENT.relationship,
    type: "RELATIONSHIP_CREATED",
    state: STATE.snapshotStream,
    build: (world) => {
      const start = world.freshEntity("snapshot").entity;
      const end = world.freshEntity("snapshot").entity;
      const [created] = world.newRelation(start, end);
      if (!created) throw new Error("the event generator created no relationship event");
      return created;
    },
  },
  {
    description: EVENT.interaction,
    type: "INTERACTION_CREATED",
    state: STATE.snapshotStream,
    build: (world) =>
      world.interactionEvent("INTERACTION_CREATED", [
        world.freshEntity("snapshot").entity,
        world.freshEntity("snapshot").entity,
      ]),
  },
  {
    description: EVENT.changeRequest,
    type: "CHANGE_REQUEST_CREATED",
    state: STATE.snapshotStream,
    build: (world) => world.changeRequestEvent("CHANGE_REQUEST_CREATED"),
  },
  {
    description: EVENT.entitiesSplitted,
    type: "ENTITIES_SPLITTED",
    state: STATE.snapshotStream,
    build: (world) => {
      world.newEntity();
      const winner = lastEntity(world);
      world.newEntity();
      const loser = lastEntity(world);
      world.merge(winner, loser);
      const split = world.split(loser).at(-1);
      if (!split) throw new Error("the event generator created no ENTITIES_SPLITTED event");
      return split;
    },
  },
  {
    description: EVENT.largeObject,
    type: "ENTITY_CHANGED",
    state: STATE.largeObjects,
    build: (world) => world.changeEntityAs(world.freshEntity("snapshot").entity, "large-object", true),
  },
];

/** A generated message: the payload as JSON and the transport headers. */
export interface GeneratedEvent {
  payload: unknown;
  headers: Record<string, unknown>;
}

/** The message of `spec` from a fresh generator world (same seed, same message). */
export function generateEvent(spec: EventMessageSpec, tenantId: string, seed = 1): GeneratedEvent {
  const world = new StreamWorld(new Random(seed), tenantId, { payloadType: "snapshot", largeObjects: 0 });
  const draft = spec.build(world);
  return { payload: JSON.parse(draft.body) as unknown, headers: draft.headers };
}
