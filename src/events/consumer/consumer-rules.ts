// The consumer rules: what the document asks of a service that keeps a view of the tenant's objects from
// the event stream, each judged on the objects whose messages gave it an opportunity. A rule's judge is
// asked only about an object whose view record is not the latest state; it answers with the sentence
// that explains the record by its rule, or undefined when its rule does not explain it. consumer-judge.ts
// settles a record that two rules explain.

import { defineRule, type Rule, type RuleDeclaration } from "../../check/rule.ts";
import {
  type TruthEntry,
  type TruthObject,
  UNKNOWN_HEADER,
  UNKNOWN_PAYLOAD_FIELD,
} from "./consumer-stream.ts";
import { deltasGiveAttributes, deltasMismatch, droppedAsStale, reappliedResend } from "./deltas-state.ts";
import {
  attributesGivenBefore,
  dataKept,
  describeEntry,
  describeRecord,
  fallbackLosesAttributes,
  filteredMismatch,
  firstWinner,
  heldBeforeGap,
  holdsLatestState,
  type JudgeContext,
  leavesAttributesOut,
  namedByHeaderOnly,
  type ObjectCase,
  olderReflected,
  reflects,
  sameState,
  snapshotMismatch,
  statesToHold,
  unknownFieldsKept,
  unlistedAt,
  versionFits,
} from "./object-state.ts";

/** A consumer rule as declared (src/check/rule.ts gives it its kind and reads its level from its title). */
interface ConsumerRuleDeclaration extends RuleDeclaration {
  /** What an opportunity of the rule is, in the report's words. */
  opportunity: string;
  /** How to give the rule an opportunity when the stream gave none. */
  exercise: string;
  applies(object: TruthObject, ctx: JudgeContext): boolean;
  /** Where the rule judges a member of the view line that a consumer may leave out: whether this line
   *  gives it (an opportunity is an object the rule applies to whose line gives it). */
  judgesLine?(c: ObjectCase): boolean;
  judge(c: ObjectCase, ctx: JudgeContext): string | undefined;
}

const later = (a: { position: number }, b: { position: number }) => a.position > b.position;

/** An older message whose timestamp (updatedTime, the deltas' timestamp) is not older than the latest
 *  one's: a consumer ordering by time takes it. Only where both carry one: a removal or a fallback carries
 *  none, and a consumer that lets a message without one pass has not ordered by time. */
const timeMisleads = (e: TruthEntry, winner: TruthEntry) =>
  e.timestamp !== undefined && winner.timestamp !== undefined && e.timestamp >= winner.timestamp;

/** The order rule's opportunities: an object whose latest message is not the last to arrive, or whose
 *  timestamps do not rise with its objectVersion. */
function orderChallenged(object: TruthObject): boolean {
  const winner = object.winner;
  const listed = object.entries.filter((e) => e.listed);
  if (new Set(listed.map((e) => e.version)).size < 2) return false;
  const last = listed.at(-1);
  if (last && last.version !== winner.version) return true;
  return listed.some((e) => e.version < winner.version && timeMisleads(e, winner));
}

/** The unknown-types rule's words where a message of an unlisted type gave the record its objectVersion and
 *  its content is not the latest state's: the cause a team reads. */
export function unlistedChanged(unlisted: TruthEntry, c: ObjectCase): string {
  const winner = firstWinner(c.object);
  return `${describeEntry(unlisted)}, a type in neither of the document's lists, changed the view: the latest state is ${describeEntry(winner)}${winner.removes ? " (removed)" : ""}, and a type the document does not list changes nothing; ${describeRecord(c.record)}`;
}

/** The objectVersion a deltas line's attributes are judged at: where the line holds an older state before
 *  a gap the stream leaves (heldBeforeGap), what the deltas gave up to it; else the latest state. */
function judgedUpTo(c: ObjectCase, ctx: JudgeContext): number | undefined {
  const older = c.record.objectVersion !== undefined && c.record.objectVersion < c.object.winner.version;
  return older ? heldBeforeGap(c, ctx) : undefined;
}

/** The re-send rule's words where the view's attributes are those the object's deltas leave when a re-sent
 *  deltas message is applied again: the cause a team reads. */
export function reappliedChanged(c: ObjectCase, ctx: JudgeContext): string | undefined {
  if (ctx.stream.choice.payloadType !== "deltas") return undefined;
  const again = reappliedResend(c, ctx, judgedUpTo(c, ctx));
  if (!again) return undefined;
  return `${describeEntry(again)} was an exact re-send, and the view's attributes are those the deltas leave when it is applied again: was the re-send applied again? ${describeRecord(c.record)}`;
}

/** The order rule's words where the view's attributes are those the object's deltas leave without the
 *  deltas that came after a higher objectVersion: the cause a team reads. */
export function droppedLateChanged(c: ObjectCase, ctx: JudgeContext): string | undefined {
  if (ctx.stream.choice.payloadType !== "deltas") return undefined;
  const late = droppedAsStale(c, ctx, judgedUpTo(c, ctx));
  if (!late) return undefined;
  return `${describeEntry(late)} came after a higher objectVersion of the object, and the view's attributes are those the deltas leave without it: was it dropped as stale? A deltas message changes only what it lists, so each objectVersion must be applied in order (hold the later ones until the missing one comes); ${describeRecord(c.record)}`;
}

const declared: ConsumerRuleDeclaration[] = [
  {
    id: "consumer/latest-by-object-version",
    requirements: ["CONSUMER-ORDER-01"],
    title:
      "MUST hold each object's latest state: the message of the highest objectVersion, not the last to arrive or the latest by updatedTime",
    opportunity:
      "an object whose latest message is not the last to arrive, or whose timestamps do not rise with its objectVersion",
    exercise:
      "a stream that reorders messages (the default producer choice does); a stream without objectVersion (object-version-absent) gives the rule nothing to judge",
    applies: (object, ctx) => ctx.versioned && orderChallenged(object),
    judge(c, ctx) {
      const winner = firstWinner(c.object);
      const older = olderReflected(c, ctx).find((e) => later(e, winner) || timeMisleads(e, winner));
      if (!older) return undefined;
      const why = later(older, winner)
        ? "it arrived after the latest one"
        : "its timestamp is not older than the latest one's";
      return `the view holds the state of ${describeEntry(older)}, an older objectVersion (${why}); the latest is ${describeEntry(winner)}; ${describeRecord(c.record)}`;
    },
  },
  {
    id: "consumer/removal-not-live",
    requirements: ["CONSUMER-REMOVAL-01"],
    title:
      "MUST hold an object whose latest event removes it (ENTITY_REMOVED, _GDPR, ENTITY_LOST_MERGE, relationship, interaction and change request removals) as removed",
    opportunity: "an object whose latest message removes it",
    exercise: "a longer stream (--count), which removes entities, relationships and interactions",
    // Without objectVersion only an object whose every state a consumer may hold last removes it.
    applies: (object, ctx) =>
      ctx.versioned ? object.winner.removes : statesToHold(object, ctx).every((e) => e.removes),
    // A live record of an object the latest message removed: the removal was ignored, whatever else the
    // record also fits (an older state, the removal's own objectVersion taken as a change). Only a record
    // of an older objectVersion whose state no message left is left to the order rule.
    judge(c, ctx) {
      const winner = firstWinner(c.object);
      if (!winner.removes || c.record.removed) return undefined;
      const before = olderReflected(c, ctx).find((e) => !e.removes);
      const version = c.record.objectVersion;
      // A live record at an older removal's objectVersion took that removal for a change.
      const removalTaken = c.object.entries.find(
        (e) => e.listed && e.removes && ctx.versioned && e.version === version && e.version < winner.version,
      );
      if (removalTaken && !before)
        return `${describeEntry(removalTaken)} removed the object, and the view holds it live with that objectVersion: taken for a change? The latest, ${describeEntry(winner)}, removed it too; ${describeRecord(c.record)}`;
      if (!before && version !== undefined && ctx.versioned && version < winner.version) return undefined;
      const taken =
        ctx.versioned && version === winner.version ? " with its objectVersion: taken for a change?" : "";
      return `${describeEntry(winner)}${namedByHeaderOnly(winner, ctx)} removed the object, but the view holds it live${before ? ` with the state of ${describeEntry(before)}` : taken}; ${describeRecord(c.record)}`;
    },
  },
  {
    id: "consumer/gdpr-removal-leaves-no-data",
    requirements: ["CONSUMER-GDPR-01"],
    title:
      "SHOULD hold none of an object's data after its GDPR removal (ENTITY_REMOVED_GDPR, RELATIONSHIP_REMOVED_GDPR)",
    opportunity: "an object whose latest message is a GDPR removal",
    exercise: "a longer stream (--count 1000 or more), which removes entities by GDPR requests",
    applies: (object, ctx) =>
      ctx.versioned ? object.winner.gdpr : statesToHold(object, ctx).some((e) => e.gdpr),
    // Data kept: members holding values that came from the object's messages (its attributes, a copy of
    // them), not members a consumer keeps for itself (a flag, the last event type's name).
    judge(c, ctx) {
      if (!c.record.removed) return undefined;
      const removal = statesToHold(c.object, ctx).find((e) => e.gdpr && versionFits(c, e, ctx));
      if (!removal) return undefined;
      const kept = dataKept(c, ctx);
      if (kept.length === 0) return undefined;
      return `${describeEntry(removal)} removed the object by a GDPR request, but the view still holds its ${kept.join(", ")} (values of the object's messages); ${describeRecord(c.record)}`;
    },
  },
  {
    id: "consumer/fallback-is-not-an-empty-object",
    requirements: ["CONSUMER-FALLBACK-01"],
    title:
      "MUST take a large-object fallback (no object, exceededQueueSizeLimit true) as the event it is: not for an empty or removed object, not dropped",
    opportunity: "an object whose latest message is a large-object fallback",
    exercise: "a stream with more fallbacks (the fallback-uri-in-header producer choice sends 15 %)",
    applies: (object) => object.winner.kind === "fallback",
    judge(c, ctx) {
      const winner = firstWinner(c.object);
      if (winner.kind !== "fallback") return undefined;
      // Dropped: the view holds an older message's state, as if the fallback had never come.
      const [older] = olderReflected(c, ctx);
      if (older && (c.record.objectVersion !== undefined || !sameState(c, winner, ctx))) {
        const payload = ctx.stream.messages[winner.position]?.payload;
        const where = payload && !("uri" in payload) ? " (its URI only in the sourceObjectUri header)" : "";
        return `${describeEntry(winner)}${where} is the latest, and the view holds the state of ${describeEntry(older)}, an older one: was the fallback dropped? It is the event itself, sent without object: take its objectVersion${winner.removes ? " and its removal" : ""} (read the URI and the type from the headers), and keep the attributes the last snapshot gave or none; ${describeRecord(c.record)}`;
      }
      if (winner.removes || !versionFits(c, winner, ctx)) return undefined;
      if (c.record.removed)
        return `${describeEntry(winner)} carries no object, yet the view holds the object removed; ${describeRecord(c.record)}`;
      if (!ctx.judgesAttributes || c.record.attributesEmpty !== true) return undefined;
      // The object's first message, or one after snapshots that gave no attributes: nothing was lost.
      if (!fallbackLosesAttributes(c.object, winner)) return undefined;
      return `${describeEntry(winner)} carries no object (exceededQueueSizeLimit), yet the view holds the object with empty attributes where an earlier snapshot gave attributes; keep what the last snapshot said, or give no attributes; ${describeRecord(c.record)}`;
    },
  },
  {
    id: "consumer/attributes-of-the-latest-state",
    requirements: ["CONSUMER-ATTRIBUTES-01"],
    title:
      "MUST give, where its view gives an object's attributes, those its messages leave at the latest state: a snapshot's as sent, and after one that leaves attributes out (JMSEventsFilteringFields does not list them) those earlier snapshots gave or none; a deltas message applied to the attributes it lists, the others left as they were",
    opportunity:
      "an object whose latest state is live and whose messages gave attribute values (its latest snapshot, one before a latest snapshot that leaves attributes out, or deltas with values), held in a view line that gives attributes",
    exercise:
      "a view that gives the attributes it holds (the line's attributes member); in deltas streams (--variants deltas, deltas-message, deltas-collection) the attributes the consumer built from the deltas; snapshots that leave attributes out: --variants attributes-filtered-out",
    applies: (object, ctx) => {
      if (ctx.stream.choice.payloadType === "deltas") return deltasGiveAttributes(object, ctx);
      const winner = firstWinner(object);
      if (!ctx.judgesAttributes || object.winner.removes || winner.kind !== "snapshot") return false;
      return leavesAttributesOut(winner)
        ? attributesGivenBefore(object, winner).length > 0
        : typeof winner.attributesText === "string";
    },
    judgesLine: (c) => c.record.attributes !== undefined && !c.record.removed,
    // Asked by the judge about a line that holds the latest state in every other respect: removed or
    // not, its objectVersion. Where the stream did not give an attribute (after a fallback, a deltas
    // member of another structure, a reference value), it is not judged. A snapshot that leaves
    // attributes out removes none: the filtering fields did not list them (filteredMismatch).
    judge(c, ctx) {
      const deltas = ctx.stream.choice.payloadType === "deltas";
      const filtered = deltas ? undefined : filteredMismatch(c, ctx);
      if (filtered !== undefined) return filtered;
      const wrong = deltas ? deltasMismatch(c, ctx, judgedUpTo(c, ctx)) : snapshotMismatch(c, ctx);
      if (wrong.length === 0) return undefined;
      const model = deltas
        ? "those the object's deltas leave (a deltas message changes only the attributes it lists)"
        : "the snapshot's";
      return `the view's attributes are not ${model} at ${describeEntry(firstWinner(c.object))}: ${wrong.slice(0, 3).join("; ")}${wrong.length > 3 ? ` (and ${wrong.length - 3} more)` : ""}; ${describeRecord(c.record)}`;
    },
  },
  {
    id: "consumer/unknown-types-and-fields-change-nothing",
    requirements: ["CONSUMER-UNKNOWN-01"],
    title:
      "SHOULD go on past event types in neither of the document's lists and fields it does not know, its view of the rest unchanged",
    opportunity:
      "an object with a message of an unlisted type or unknown fields, or with messages after the stream's first unlisted type",
    exercise:
      "a stream with legal variety (every producer choice has unlisted types such as ENTITY_MERGE_FAILED)",
    applies: (object, ctx) => {
      const first = ctx.stream.firstUnlisted;
      return object.entries.some(
        (e) => !e.listed || e.unknownFields || (first !== undefined && e.position > first),
      );
    },
    judge(c, ctx) {
      const winner = firstWinner(c.object);
      const unlisted = unlistedAt(c, ctx);
      if (unlisted && !sameState(c, winner, ctx)) return unlistedChanged(unlisted, c);
      const first = ctx.stream.firstUnlisted;
      if (first !== undefined && winner.position > first) {
        const before = c.object.entries.filter((e) => e.listed && e.position < first);
        const prefix = before.reduce<(typeof before)[number] | undefined>(
          (best, e) => (!best || e.version > best.version ? e : best),
          undefined,
        );
        if (prefix && reflects(c, prefix, ctx))
          return `the view holds the state of ${describeEntry(prefix)}, the latest before message #${first + 1} (${String(ctx.stream.firstUnlistedType)}, a type in neither of the document's lists): did the consumer stop there? The latest is ${describeEntry(winner)}; ${describeRecord(c.record)}`;
      }
      if (winner.unknownFields) {
        const [before] = olderReflected(c, ctx);
        if (before)
          return `${describeEntry(winner)}, the latest, carries the header ${UNKNOWN_HEADER} and the payload field ${UNKNOWN_PAYLOAD_FIELD}, which the document does not define, and the view holds the state of ${describeEntry(before)}, an older one: did the consumer drop the message for fields it does not know? Take them and go on; ${describeRecord(c.record)}`;
      }
      const kept = ctx.judgesAttributes ? unknownFieldsKept(c.record) : [];
      if (kept.length > 0 && holdsLatestState(c, ctx))
        return `the view holds the latest state, ${describeEntry(winner)}, but with ${kept.join(" and ")} among the object's attributes: the document does not define ${kept.length === 1 ? "that field" : "those fields"}, and the object has no such attribute; keep fields you do not know out of the attributes (any other member of the line is yours); ${describeRecord(c.record)}`;
      return undefined;
    },
  },
  {
    id: "consumer/re-send-changes-nothing",
    requirements: ["CONSUMER-RESEND-01"],
    title: "MUST leave its view unchanged by an exact re-send of a message it already had",
    opportunity: "an object with a message sent twice",
    exercise: "a stream with re-sends (the default producer choice re-sends 5 %, many-re-sends a quarter)",
    applies: (object) => object.entries.some((e) => e.resend),
    judge(c, ctx) {
      const winner = firstWinner(c.object);
      const again = c.object.entries.find((e) => e.resend && e.version === winner.version);
      if (!again || !versionFits(c, winner, ctx) || sameState(c, winner, ctx)) return undefined;
      return `${describeEntry(winner)} was sent again as ${describeEntry(again)}, and the view no longer holds its state; ${describeRecord(c.record)}`;
    },
  },
  {
    // Asked by the judge about a line that holds the latest state but for attributes the attributes rule
    // accepts: an empty set after a snapshot that leaves attributes out.
    id: "consumer/filtered-attributes-kept",
    requirements: ["CONSUMER-FILTER-01"],
    title:
      "SHOULD keep, after a snapshot whose object leaves attributes out (JMSEventsFilteringFields does not list them), the attributes earlier snapshots gave, not replace them with an empty set",
    opportunity:
      "an object whose latest message is a snapshot without attributes after one that gave attributes, held in a view line that gives attributes",
    exercise: "a stream whose filtering fields leave attributes out: --variants attributes-filtered-out",
    applies: (object, ctx) => {
      // Only a stream whose filtering fields leave attributes out has such snapshots: asked of every
      // object, the rule answers the others without looking at their messages.
      if (ctx.stream.choice.filteringFields !== "attributes-left-out-halfway") return false;
      const winner = firstWinner(object);
      return (
        ctx.judgesAttributes &&
        ctx.stream.choice.payloadType !== "deltas" &&
        !object.winner.removes &&
        winner.kind === "snapshot" &&
        leavesAttributesOut(winner) &&
        attributesGivenBefore(object, winner).length > 0
      );
    },
    judgesLine: (c) => c.record.attributes !== undefined && !c.record.removed,
    judge: (c, ctx) => filteredMismatch(c, ctx, true),
  },
  {
    // Judged on the view as a whole (consumer-judge.ts): a stream whose objectVersion comes as text is
    // judged as it comes and, where the view fails that, as without objectVersion.
    id: "consumer/object-version-text-read",
    requirements: ["CONSUMER-ORDER-02"],
    title:
      "SHOULD read an objectVersion that comes as a string of digits (as Pub/Sub and SNS attributes carry it) as the number it is, and order each object's messages by it",
    opportunity:
      "an object whose latest message is not the last to arrive, or whose timestamps do not rise with its objectVersion, in a stream whose objectVersion comes as text",
    exercise: "a stream whose objectVersion comes as a string of digits: --variants object-version-string",
    applies: () => false,
    judge: () => undefined,
  },
  {
    // Judged on the view's lines as a whole, not per object of the tenant (consumer-judge.ts): an
    // opportunity is an object of another tenant, which none of the tenant's objects is.
    id: "consumer/other-tenants-left-out",
    requirements: ["CONSUMER-TENANT-01"],
    title:
      "SHOULD keep only its tenant's objects where the destination carries other tenants' messages too (the tenantId header says whose a message is)",
    opportunity: "an object of another tenant whose messages the destination carried",
    exercise: "a destination that carries several tenants' messages: --variants shared-destination",
    applies: () => false,
    judge: () => undefined,
  },
];

export type ConsumerRule = Rule<"consumer", ConsumerRuleDeclaration>;

export const CONSUMER_RULES: readonly ConsumerRule[] = declared.map((rule) => defineRule("consumer", rule));

const ruleById = (id: string): ConsumerRule => CONSUMER_RULES.find((r) => r.id === id) as ConsumerRule;

/** The rule that answers for a record that no rule's judge explains: it does not hold the latest state. */
export const LATEST_RULE = CONSUMER_RULES[0] as ConsumerRule;

/** The rule that names a type in neither of the document's lists as the cause of a view's content. */
export const UNKNOWN_TYPES_RULE = ruleById("consumer/unknown-types-and-fields-change-nothing");

/** The rule that judges a large-object fallback taken for what it is not. */
export const FALLBACK_RULE = ruleById("consumer/fallback-is-not-an-empty-object");

/** The rule that names a re-send applied again. */
export const RESEND_RULE = ruleById("consumer/re-send-changes-nothing");

/** The rule that reports attributes replaced with nothing after a snapshot that leaves them out. */
export const FILTERED_RULE = ruleById("consumer/filtered-attributes-kept");

/** The rule that judges whether a view read an objectVersion that came as text. */
export const TEXT_VERSION_RULE = ruleById("consumer/object-version-text-read");

/** The rule that judges view lines of another tenant's objects. */
export const TENANT_RULE = ruleById("consumer/other-tenants-left-out");

/** The rule that judges a line's attributes where it holds the latest state otherwise. */
export const ATTRIBUTES_RULE = ruleById("consumer/attributes-of-the-latest-state");
