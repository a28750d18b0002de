// What happens next in a generated stream: one weighted lifecycle step of the world at a time, with the
// populations bounded so that a step costs the same however long the stream.

import type { StreamWorld } from "./stream-world.ts";
import type { Draft } from "./world-objects.ts";

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
export function step(world: StreamWorld): Draft[] {
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
