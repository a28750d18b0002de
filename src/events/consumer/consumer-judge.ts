// The judge: the consumer's view against the stream's truth, by the consumer rules. Every object the view
// holds is compared with its latest state (its content: removed or not, its attributes where given; an
// older objectVersion whose content is the latest's is the latest state); a record that is not it is
// explained by the rules whose judge accounts for it. A record two rules explain (a removal that arrived
// before the change the view holds fits "last arrival wins" and "ignores removals" alike) goes to the rule
// the rest of the view shows broken; when neither is, to the one whose evidence is the cause (TIE_ORDER),
// naming the other; where no record holds a state after the stream's first unlisted type, the consumer
// stopped there, and a record the unknown-types rule explains is its. Without
// objectVersion every state a consumer may hold last is accepted (statesToHold). Objects not in the view
// are not judged, and the verdict says how many.

import type { Finding, Found } from "../../rules/finding.ts";
import { type Judged, judgeRules, type Outcome, outcomeOf, verdictOf } from "../../rules/judge.ts";
import {
  ATTRIBUTES_RULE,
  CONSUMER_RULES,
  type ConsumerRule,
  droppedLateChanged,
  FALLBACK_RULE,
  FILTERED_RULE,
  LATEST_RULE,
  RESEND_RULE,
  reappliedChanged,
  TENANT_RULE,
  TEXT_VERSION_RULE,
  UNKNOWN_TYPES_RULE,
  unlistedChanged,
} from "./consumer-rules.ts";
import { type ConsumerStream, OTHER_TENANT, type TruthEntry, type TruthObject } from "./consumer-stream.ts";
import type { ConsumerView } from "./consumer-view.ts";
import {
  describeEntry,
  describeRecord,
  firstWinner,
  holdsLatest,
  type JudgeContext,
  namedByHeaderOnly,
  type ObjectCase,
  olderReflected,
  reflects,
  sameState,
  skippedToLatest,
  unlistedAt,
} from "./object-state.ts";

/** The evidence of a consumer rule's finding (its `where` is the object's URI). */
export interface ConsumerEvidence {
  /** The message that should have won: its place in delivery (1-based), objectVersion, event type. */
  expected: { position: number; objectVersion: number; eventType: string; kind: TruthEntry["kind"] };
  /** What the view holds, as its line says it. */
  view: { line: number; removed: boolean; objectVersion?: number; attributes: "absent" | "empty" | "given" };
  /** Other rules whose judge explains the record as well. */
  alsoExplainedBy?: string[];
}

/** A consumer rule's finding: the one finding of every rule (src/rules/finding.ts), where = the URI. */
export type ConsumerFinding = Finding<ConsumerEvidence>;

/** A consumer rule's verdict from the one engine (src/rules/judge.ts). */
export type ConsumerRuleVerdict = Judged<ConsumerRule, ConsumerEvidence>;

export interface ConsumerJudgement {
  verdicts: ConsumerRuleVerdict[];
  /** Objects of the stream the view holds and the judge compared. */
  judged: number;
  objects: number;
  /** Objects of the stream the view has no line for (not judged). */
  missing: number;
  /** View lines about objects the stream never had (not judged). */
  foreign: number;
}

function foundOf(c: ObjectCase, message: string, alsoExplainedBy: string[]): Found<ConsumerEvidence> {
  const winner = firstWinner(c.object);
  const { record } = c;
  return {
    where: c.object.uri,
    message,
    evidence: {
      expected: {
        position: winner.position + 1,
        objectVersion: winner.version,
        eventType: winner.type,
        kind: winner.kind,
      },
      view: {
        line: record.line,
        removed: record.removed,
        ...(record.objectVersion === undefined ? {} : { objectVersion: record.objectVersion }),
        attributes: record.attributes === undefined ? "absent" : record.attributesEmpty ? "empty" : "given",
      },
      ...(alsoExplainedBy.length > 0 ? { alsoExplainedBy } : {}),
    },
  };
}

/** Makes ahead of the view what judging it compares first: the attributes of each object's latest state
 *  as sent (their canonical text only matters to a view that holds them in another key order). A check
 *  calls it while the consumer runs. */
export function prepareJudging(stream: ConsumerStream): void {
  if (stream.choice.payloadType !== "snapshot") return;
  for (const object of stream.objects.values()) void firstWinner(object).attributesText;
}

const failsMust = (judgement: ConsumerJudgement) =>
  judgement.verdicts.some((v) => v.status === "failed" && v.rule.level === "MUST");

/** The judgement with the text-version rule's verdict replaced by `outcome`. */
function withTextVerdict(
  judgement: ConsumerJudgement,
  outcome: Outcome<ConsumerEvidence>,
): ConsumerJudgement {
  return {
    ...judgement,
    verdicts: judgement.verdicts.map((v) =>
      v.rule === TEXT_VERSION_RULE ? { ...verdictOf(TEXT_VERSION_RULE, outcome), rule: v.rule, ms: v.ms } : v,
    ),
  };
}

/** The view against the stream's truth. An objectVersion that comes as a string of digits is the number
 *  the document means, but a consumer may take a header it finds not to be a number as absent (the document
 *  calls it a number; how a transport carries it is not shown): a view that fails the MUST rules read with
 *  objectVersion and passes them read without it (every state a consumer may hold last is accepted) is
 *  judged as without it, and the text-version rule reports what reading the digits would have given. */
export function judgeView(stream: ConsumerStream, view: ConsumerView): ConsumerJudgement {
  const judged = judgeWith(stream, view, stream.choice.objectVersion !== "absent");
  if (stream.choice.objectVersion !== "string" || !failsMust(judged)) return judged;
  const asAbsent = judgeWith(stream, view, false);
  if (failsMust(asAbsent))
    return withTextVerdict(judged, {
      status: "not-exercised",
      reason:
        "the view fails the MUST rules whether its objectVersion is read as a number or not read at all, so whether it read the digits cannot be told",
    });
  const found = judged.verdicts.flatMap((v) =>
    v.status === "failed" && v.rule.level === "MUST"
      ? v.findings.map(({ where, message, evidence }) => ({
          where,
          message: `objectVersion came as a string of digits, and the view holds what a consumer holds that does not read it (accepted at MUST, as without objectVersion); read as the number it is (${v.rule.id}): ${message}`,
          evidence,
        }))
      : [],
  );
  const order = judged.verdicts.find((v) => v.rule === LATEST_RULE);
  const opportunities = order && "opportunities" in order ? order.opportunities : found.length;
  return withTextVerdict(asAbsent, outcomeOf(Math.max(opportunities, found.length), found, ""));
}

function judgeWith(stream: ConsumerStream, view: ConsumerView, versioned: boolean): ConsumerJudgement {
  const ctx: JudgeContext = {
    stream,
    versioned,
    judgesAttributes: stream.choice.payloadType === "snapshot",
  };
  const started = performance.now();
  const cases: ObjectCase[] = [];
  let missing = 0;
  for (const object of stream.objects.values()) {
    const record = view.records.get(object.uri);
    if (!record) {
      missing += 1;
      continue;
    }
    cases.push({ object, record });
  }
  let foreign = 0;
  // Lines of another tenant's objects (a destination shared by tenants): the tenant rule's findings.
  const otherTenant: Found<ConsumerEvidence>[] = [];
  for (const [uri, record] of view.records) {
    if (stream.objects.has(uri)) continue;
    const object = stream.otherTenantObjects.get(uri);
    if (!object) {
      foreign += 1;
      continue;
    }
    otherTenant.push(
      foundOf(
        { object, record },
        `the view holds ${uri}, an object of tenant ${OTHER_TENANT} (its messages carry the tenantId header "${OTHER_TENANT}"), not the consumer's tenant (LCKIT_TENANT): the destination carries other tenants' messages too; keep only those whose tenantId is your tenant's; ${describeRecord(record)}`,
        [],
      ),
    );
  }

  // Each record that is not the latest state, with the rules that explain it.
  // `causes`: the rules that name what changed the record (an unlisted type, a re-send applied again, a
  // delta dropped as stale), reported as well as the rule that judges its content.
  const explained: {
    c: ObjectCase;
    by: { rule: ConsumerRule; message: string }[];
    causes: { rule: ConsumerRule; message: string }[];
  }[] = [];
  // Records of an older objectVersion whose content is the latest's, by the types of the messages skipped.
  const skipped = new Map<string, number>();
  const deltasStream = stream.choice.payloadType === "deltas";
  let skippers = 0;
  for (const c of cases) {
    const latest = holdsLatest(c, ctx);
    // A line that holds the latest state but for its attributes is the attributes rule's alone: in a
    // snapshot stream one holdsLatest refused, in a deltas stream one it accepted (it does not read
    // attributes there; the rule holds them to what the deltas leave).
    const attributes = latest === deltasStream ? ATTRIBUTES_RULE.judge(c, ctx) : undefined;
    if (attributes !== undefined) {
      const unlisted = unlistedAt(c, ctx);
      const reapplied = reappliedChanged(c, ctx);
      const droppedLate = droppedLateChanged(c, ctx);
      const causes = [
        ...(unlisted ? [{ rule: UNKNOWN_TYPES_RULE, message: unlistedChanged(unlisted, c) }] : []),
        ...(reapplied ? [{ rule: RESEND_RULE, message: reapplied }] : []),
        ...(droppedLate ? [{ rule: LATEST_RULE, message: droppedLate }] : []),
      ];
      explained.push({ c, by: [{ rule: ATTRIBUTES_RULE, message: attributes }], causes });
      continue;
    }
    // Attributes replaced with nothing after a snapshot that leaves them out: the MUST rule accepts it,
    // the SHOULD rule reports the kit's preference, and no other rule judges the line.
    const emptied = !latest && !deltasStream ? FILTERED_RULE.judge(c, ctx) : undefined;
    if (emptied !== undefined) {
      explained.push({ c, by: [{ rule: FILTERED_RULE, message: emptied }], causes: [] });
      continue;
    }
    if (latest) {
      const types = skippedToLatest(c, ctx);
      if (types) {
        skippers += 1;
        for (const type of types) skipped.set(type, (skipped.get(type) ?? 0) + 1);
      }
      continue;
    }
    // A message of an unlisted type that gave the record its objectVersion and changed its content: the
    // unknown-types rule names the cause, and the content is judged by the rules that judge content.
    const unlisted = unlistedAt(c, ctx);
    const cause =
      unlisted && !sameState(c, firstWinner(c.object), ctx) ? unlistedChanged(unlisted, c) : undefined;
    const by: { rule: ConsumerRule; message: string }[] = [];
    for (const rule of CONSUMER_RULES) {
      if ((rule === LATEST_RULE && !ctx.versioned) || rule === ATTRIBUTES_RULE || rule === FILTERED_RULE)
        continue;
      if (cause !== undefined && rule === UNKNOWN_TYPES_RULE) continue;
      const message = rule.judge(c, ctx);
      if (message !== undefined) by.push({ rule, message });
    }
    // The unlisted message, not a re-send, changed the record: the re-send rule does not name it.
    if (cause !== undefined && by.some((b) => b.rule !== RESEND_RULE))
      by.splice(0, by.length, ...by.filter((b) => b.rule !== RESEND_RULE));
    if (by.length === 0 && cause !== undefined && unlisted)
      by.push({
        rule: LATEST_RULE,
        // The cause is named here too: at MUST this is the finding a team reads first.
        message: `the view's content is not the latest state, ${describeLatest(c.object)}, though it gives a higher objectVersion (${String(c.record.objectVersion)}), that of ${describeEntry(unlisted)}, a type in neither of the document's lists, which changes nothing; ${describeRecord(c.record)}`,
      });
    if (by.length === 0) {
      // An older state that arrived before the latest message: the later messages were not taken.
      const [older] = olderReflected(c, ctx);
      by.push({
        rule: LATEST_RULE,
        message: older
          ? `the view holds the state of ${describeEntry(older)}, an older objectVersion, though the latest, ${describeLatest(c.object)}${namedByHeaderOnly(firstWinner(c.object), ctx)}, arrived after it and changed the object: was a later message dropped? ${describeRecord(c.record)}`
          : `the view does not hold the latest state, ${describeLatest(c.object)}, nor that of any one message of the object; ${describeRecord(c.record)}`,
      });
    }
    explained.push({
      c,
      by,
      causes: cause === undefined ? [] : [{ rule: UNKNOWN_TYPES_RULE, message: cause }],
    });
  }
  const shown = new Set(explained.filter((e) => e.by.length === 1).map((e) => e.by[0]?.rule));
  // The view as a whole shows the consumer stopped at the stream's first unlisted type: no record holds
  // the state of a message after it. A record the unknown-types rule explains is then its finding,
  // whatever else it fits: a removal after the stop was never read, not ignored.
  const first = stream.firstUnlisted;
  const stopped =
    first !== undefined &&
    ctx.versioned &&
    cases.length > 0 &&
    cases.every((c) => !c.object.entries.some((e) => e.listed && e.position > first && reflects(c, e, ctx)));
  const findings = new Map<ConsumerRule, Found<ConsumerEvidence>[]>(CONSUMER_RULES.map((r) => [r, []]));
  findings.set(TENANT_RULE, otherTenant);
  const extra = new Map<ConsumerRule, number>(CONSUMER_RULES.map((r) => [r, 0]));
  for (const { c, by, causes } of explained) {
    const atStop = stopped ? by.filter((b) => b.rule === UNKNOWN_TYPES_RULE) : [];
    // A latest message sent as a fallback that the record does not hold: the removal rule names a removal
    // (ignored, whatever else it also explains), the fallback rule any other; a re-send it also fits is
    // settled as before (a removal re-sent and toggled).
    const winner = firstWinner(c.object);
    const named = winner.removes ? REMOVAL_RULE_ID : FALLBACK_RULE.id;
    const asFallback =
      winner.kind === "fallback" && !by.some((b) => b.rule === RESEND_RULE)
        ? by.filter((b) => b.rule.id === named)
        : [];
    const settled =
      by.length === 1
        ? by
        : atStop.length > 0
          ? atStop
          : asFallback.length > 0
            ? asFallback
            : by.filter((b) => shown.has(b.rule));
    // None shown broken elsewhere: the one whose evidence is the cause rather than the symptom (TIE_ORDER).
    const to =
      settled.length > 0 ? settled : [...by].sort((a, b) => tieRank(a.rule) - tieRank(b.rule)).slice(0, 1);
    for (const { rule, message } of to) {
      const others = by.filter((b) => b.rule !== rule).map((b) => b.rule.id);
      (findings.get(rule) as Found<ConsumerEvidence>[]).push(foundOf(c, message, others));
      if (!rule.applies(c.object, ctx)) extra.set(rule, (extra.get(rule) ?? 0) + 1);
    }
    for (const { rule, message } of causes) {
      if (to.some((b) => b.rule === rule)) continue;
      (findings.get(rule) as Found<ConsumerEvidence>[]).push(
        foundOf(
          c,
          message,
          to.map((b) => b.rule.id),
        ),
      );
      if (!rule.applies(c.object, ctx)) extra.set(rule, (extra.get(rule) ?? 0) + 1);
    }
  }
  const judgeMs = performance.now() - started;
  const verdicts = judgeRules(
    CONSUMER_RULES,
    (rule) => {
      // Read with objectVersion as it came, a view of a text-version stream gave the rule its judgement:
      // it passed where the order rule's opportunities did.
      if (rule === TEXT_VERSION_RULE) {
        const text = stream.choice.objectVersion === "string" && ctx.versioned;
        return outcomeOf<ConsumerEvidence>(
          text ? cases.filter((c) => LATEST_RULE.applies(c.object, ctx)).length : 0,
          [],
          stream.choice.objectVersion === "string"
            ? "no object's latest message arrived before an older one or carried an older timestamp, so reading the digits changed nothing"
            : `the stream's objectVersion ${stream.choice.objectVersion === "absent" ? "is absent" : "comes as a number"}; to exercise it: ${rule.exercise}`,
        );
      }
      const opportunities =
        (rule === LATEST_RULE && !ctx.versioned
          ? 0
          : cases.filter((c) => rule.applies(c.object, ctx) && (rule.judgesLine?.(c) ?? true)).length) +
        (extra.get(rule) ?? 0) +
        (rule === TENANT_RULE ? stream.otherTenantObjects.size : 0);
      const note =
        rule === LATEST_RULE && skippers > 0
          ? `${skippers} object(s) hold an older objectVersion whose content is the latest's: the consumer skipped ${[
              ...skipped,
            ]
              .map(([type, n]) => `${type} (${n})`)
              .join(", ")}, which changed nothing the view holds`
          : undefined;
      const why =
        rule === LATEST_RULE && !ctx.versioned
          ? stream.choice.objectVersion === "string"
            ? `objectVersion came as a string of digits, which the view does not read (${TEXT_VERSION_RULE.id} says what reading it gives), so it is judged as without objectVersion`
            : "the stream carries no objectVersion (JMSEventsFilteringFields does not list it), so no order of an object's messages is given"
          : cases.length === 0
            ? "the view holds none of the stream's objects"
            : unjudgedLines(rule, cases, ctx);
      return outcomeOf(
        opportunities,
        findings.get(rule) ?? [],
        `${why}; to exercise it: ${rule.exercise}`,
        note,
      );
    },
    {
      sharedMs: judgeMs,
      // Findings no other rule explains first: the report's first finding is the plainest evidence.
      order: (a, b) =>
        Number(a.evidence.alsoExplainedBy !== undefined) - Number(b.evidence.alsoExplainedBy !== undefined),
    },
  );
  return {
    verdicts,
    judged: cases.length,
    objects: stream.objects.size,
    missing,
    foreign,
  };
}

/** Which rule takes a record that several rules explain and none of them is shown broken by a record of
 *  its own: the order rule (an older state that arrived later or has the later timestamp is how the
 *  consumer ordered, the removal it lost is the symptom), then a re-send (a removal re-sent and toggled),
 *  then a fallback (a removal sent as a fallback and dropped), then the removal, the GDPR rule, and last
 *  the unknown-fields rule (a latest message carrying fields of no definition may be a coincidence). */

const REMOVAL_RULE_ID = "consumer/removal-not-live";

const TIE_ORDER = [
  "consumer/latest-by-object-version",
  "consumer/re-send-changes-nothing",
  "consumer/fallback-is-not-an-empty-object",
  "consumer/removal-not-live",
  "consumer/gdpr-removal-leaves-no-data",
  "consumer/attributes-of-the-latest-state",
  "consumer/unknown-types-and-fields-change-nothing",
];
const tieRank = (rule: ConsumerRule) => {
  const at = TIE_ORDER.indexOf(rule.id);
  return at < 0 ? TIE_ORDER.length : at;
};

/** Why a rule had no opportunity: the stream gave none, or the view's lines leave out what it judges. */
function unjudgedLines(rule: ConsumerRule, cases: ObjectCase[], ctx: JudgeContext): string {
  const applies = rule.judgesLine ? cases.filter((c) => rule.applies(c.object, ctx)).length : 0;
  return applies > 0
    ? `the stream gave ${applies} object(s) to judge, but the view's lines for them leave out what the rule judges (${rule.opportunity})`
    : `the stream gave no opportunity (${rule.opportunity})`;
}

function describeLatest(object: TruthObject): string {
  const w = firstWinner(object);
  return `that of message #${w.position + 1} (${w.type}, objectVersion ${w.version})`;
}
