// What happens next in a generated stream: one weighted lifecycle step of the world at a time, with the
// populations bounded so that a step costs the same however long the stream.

import type { Random } from "./random.ts";
import type { StreamWorld } from "./stream-world.ts";
import type { Draft, Entity } from "./world-objects.ts";

/** The steps, in the order their weights are drawn from (a seed's stream depends on it). */
const steps = [
  "createEntity",
  "changeEntity",
  "createRelation",
  "changeRelation",
  "removeRelation",
  "merge",
  "split",
  "gdpr",
  "recreate",
  "removeEntity",
  "matches",
  "businessProcess",
  "interaction",
  "changeRequest",
  "unlisted",
] as const;

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

/** Two distinct active entities; the second is drawn as a pick from `active` without the first would be. */
function twoOf(active: Entity[], random: Random): [Entity, Entity] {
  const first = Math.floor(random.next() * active.length);
  const other = Math.floor(random.next() * (active.length - 1));
  return [active[first], active[other < first ? other : other + 1]] as [Entity, Entity];
}

/** The next few valid messages of the world: one lifecycle step, which may yield two or three messages. */
export function step(world: StreamWorld): Draft[] {
  forgetFinished(world);
  const random = world.random;
  const { active, merged, gdpr } = world.live;
  const liveRelations = world.live.relations;
  const liveInteractions = world.live.interactions;
  const liveRequests = world.live.requests;
  // One weight per entry of `steps`, in its order.
  const weights = [
    active.length < 8 ? 10 : active.length < maxActiveEntities ? 3 : 0,
    active.length > 0 ? 12 : 0,
    active.length > 1 && liveRelations.length < maxLiveRelations ? 4 : 0,
    liveRelations.length > 0 ? 3 : 0,
    liveRelations.length > 0 ? 1 : 0,
    active.length > 3 && merged.length < maxMergedEntities ? 1 : 0,
    merged.length > 0 ? 0.6 : 0,
    active.length > 4 ? 0.5 : 0,
    gdpr.length > 0 ? 0.4 : 0,
    active.length > 6 ? 0.5 : 0,
    active.length > 1 ? 1 : 0,
    active.length > 0 ? 0.7 : 0,
    active.length > 1 ? 2 : 0,
    1.5,
    world.variety && active.length > 1 ? 0.3 : 0,
  ];
  const choice = steps[random.weightedIndex(weights)] as (typeof steps)[number];
  switch (choice) {
    case "createEntity":
      return [world.newEntity()];
    case "changeEntity":
      return [world.changeEntity(random.pick(active))];
    case "createRelation": {
      const [a, b] = twoOf(active, random);
      return world.newRelation(a, b);
    }
    case "changeRelation":
      return world.relationEvent("RELATIONSHIP_CHANGED", random.pick(liveRelations));
    case "removeRelation": {
      const relation = random.pick(liveRelations);
      world.endRelation(relation);
      return world.relationEvent(
        random.chance(0.2) ? "RELATIONSHIP_REMOVED_GDPR" : "RELATIONSHIP_REMOVED",
        relation,
      );
    }
    case "merge": {
      const [winner, loser] = twoOf(active, random);
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
      const [a, b] = twoOf(active, random);
      return [world.matchesChanged(a, b)];
    }
    case "businessProcess":
      return [world.businessProcessChanged(random.pick(active))];
    case "interaction": {
      if (liveInteractions.length >= maxLiveOthers || (liveInteractions.length > 0 && random.chance(0.5))) {
        const type = random.chance(0.6) ? "INTERACTION_CHANGED" : "INTERACTION_REMOVED";
        return [world.interactionEvent(type, twoOf(active, random).slice(), random.pick(liveInteractions))];
      }
      return [world.interactionEvent("INTERACTION_CREATED", twoOf(active, random).slice())];
    }
    case "unlisted": {
      const [a, b] = twoOf(active, random);
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
