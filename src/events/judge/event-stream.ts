// Checks a whole stream of messages as it arrives: per-message checks, then the stream rules; keeps
// counts and a capped list of problems, never the messages themselves.

import { type EventProblem, escapeControls, safeProblem } from "../check/event-problem.ts";
import { walkMessage } from "../check/payload-fingerprint.ts";
import { ReferenceChanges } from "../check/reference-changes.ts";
import {
  type CompanionCounts,
  type LateProblem,
  ReferenceCompanions,
} from "../check/reference-companions.ts";
import { defaultMaxTrackedVersions, type StreamRuleOptions, StreamRules } from "../check/stream-rules.ts";
import { type InconclusiveRule, inconclusiveRules } from "../check/undecided-rules.ts";
import { EVENT_RULES, type EventRule, eventFinding, MESSAGE_RULES } from "../rules/index.ts";
import type { CompanionWindow } from "../streaming-config.ts";
import { defaultCompanionWindow, resolveStreamingConfig } from "../streaming-config.ts";
import type { MessageSource, TransportNotice } from "../transport/transport.ts";
import {
  type CheckOptions,
  defaultMaxDepth,
  inspectMessage,
  type JudgedMessages,
  judgedMessages,
} from "./event-message.ts";

export interface CheckStreamOptions extends CheckOptions, StreamRuleOptions {
  /** Problems kept in the result (default 1000); later ones are counted in droppedProblems. */
  maxProblems?: number;
  /** Called for every problem as it is found, kept or not (live output). */
  onProblem?: (problem: EventProblem) => void;
  /** Stops reading when aborted; the result covers what was read. */
  signal?: AbortSignal;
  /** Overrides the streaming configuration's companionWindow (defaults: 1000 messages, 60 s). */
  companionWindow?: Partial<CompanionWindow>;
}

export interface EventCheckResult {
  source: string;
  /** Messages read. */
  total: number;
  /** Messages without an error-level problem (warnings allowed). */
  valid: number;
  /** Messages with at least one error-level problem. */
  invalid: number;
  /** Messages with warnings only. */
  warned: number;
  /** Redeliveries (the same payload as data, any key order or spacing) under one (uri, objectVersion): legal, counted. */
  duplicates: number;
  /** Objects the stream rules forgot to keep memory flat (maxTrackedVersions); 0 on most streams. */
  evictedObjects: number;
  /** Messages delivered after a message of the same object with a higher objectVersion: legal, counted. */
  reordered: number;
  /** The reference-companion rules (EVENT-TYPES-04, EVENT-STREAM-02): pairs found, what stayed undecided. */
  companions: CompanionCounts;
  /** The rules that ran and could not decide (a companion the end of the stream cut off): neither passed
   *  nor failed; an undecided MUST rule fails the job unless --pass-inconclusive. */
  inconclusive: InconclusiveRule[];
  /** Problems by requirement id (errors and warnings). */
  byRule: Record<string, number>;
  /** By rule id: the messages the rule judged (its opportunities; none: it is not exercised). */
  opportunities: Record<string, number>;
  errors: number;
  warnings: number;
  problems: EventProblem[];
  droppedProblems: number;
  notices: TransportNotice[];
  durationMs: number;
}

/** The stream rules compare payloads by fingerprint: taken in the walk that checks a message's nesting,
 *  unless the source can recall messages (then only a payload whose (uri, objectVersion) comes again is
 *  fingerprinted, when it does). */
const fingerprintEach = { fingerprint: true } as const;
const fingerprintLater = {} as const;

/** The fingerprint of a recalled message's payload, with the same nesting bound as the check. */
function recalledFingerprint(body: string | undefined, maxDepth: number): number | undefined {
  if (body === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  return walkMessage(parsed, maxDepth, true).fingerprint;
}

export async function checkStream(
  source: MessageSource,
  options: CheckStreamOptions = {},
): Promise<EventCheckResult> {
  const started = performance.now();
  const maxProblems = options.maxProblems ?? 1000;
  const recall = source.recall?.bind(source);
  const maxDepth = options.maxDepth ?? defaultMaxDepth;
  const rules = new StreamRules({
    ...(options.maxTrackedVersions === undefined ? {} : { maxTrackedVersions: options.maxTrackedVersions }),
    ...(recall ? { recall: (ref: number) => recalledFingerprint(recall(ref), maxDepth) } : {}),
  });
  const forStreamRules = recall ? fingerprintLater : fingerprintEach;
  const companions = new ReferenceCompanions({
    ...(options.config ? { config: resolveStreamingConfig(options.config) } : {}),
    ...(options.companionWindow ? { window: options.companionWindow } : {}),
    maxTracked: options.maxTrackedVersions ?? defaultMaxTrackedVersions,
  });
  const referenceChanges = new ReferenceChanges(options.maxTrackedVersions ?? defaultMaxTrackedVersions);
  const judged = judgedMessages();
  const result: EventCheckResult = {
    source: escapeControls(source.description),
    total: 0,
    valid: 0,
    invalid: 0,
    warned: 0,
    duplicates: 0,
    evictedObjects: 0,
    reordered: 0,
    companions: {
      paired: 0,
      excused: 0,
      referenceTypes: [],
      undecided: [],
      window: defaultCompanionWindow,
      forgotten: 0,
    },
    inconclusive: [],
    byRule: {},
    opportunities: {},
    errors: 0,
    warnings: 0,
    problems: [],
    droppedProblems: 0,
    notices: [],
    durationMs: 0,
  };
  const record = (found: EventProblem): void => {
    // Input text (a type, a URI, a parse error's excerpt) may hold control bytes: escaped once, here.
    const problem = safeProblem(found);
    result.byRule[problem.requirement] = (result.byRule[problem.requirement] ?? 0) + 1;
    if (problem.evidence.severity === "error") result.errors += 1;
    else result.warnings += 1;
    if (result.problems.length < maxProblems) result.problems.push(problem);
    else result.droppedProblems += 1;
    options.onProblem?.(problem);
  };
  const lateFinding = (found: LateProblem): void => {
    record(eventFinding(found.problem));
    if (found.newlyInvalid) {
      result.invalid += 1;
      result.valid -= 1;
    }
  };
  try {
    for await (const raw of source.messages()) {
      if (options.signal?.aborted) break;
      result.total += 1;
      const { problems, facts } = inspectMessage(raw, options, forStreamRules, judged);
      let errors = 0;
      for (const problem of problems) {
        if (problem.evidence.severity === "error") errors += 1;
        record(problem);
      }
      // The stream rules' findings are MUST rules' (EVENT-HEADERS-03, EVENT-STREAM-01/02): errors.
      for (const problem of rules.observe(facts, raw.position, errors > 0, raw.ref)) {
        errors += 1;
        record(eventFinding(problem));
      }
      const changed = referenceChanges.observe(facts, raw.position);
      if (changed !== undefined) {
        errors += 1;
        record(eventFinding(changed));
      }
      // Findings of messages leaving the companion window (counted for their own message, not this one).
      const late = companions.observe(facts, raw.position, errors > 0, changed !== undefined);
      if (errors > 0) result.invalid += 1;
      else {
        result.valid += 1;
        if (problems.length > 0) result.warned += 1;
      }
      for (const found of late) lateFinding(found);
    }
    // GDPR findings are final only at the end: a re-creation may still arrive out of order.
    const late = rules.finish();
    for (const problem of late.problems) record(eventFinding(problem));
    result.invalid += late.newlyInvalid;
    result.valid -= late.newlyInvalid;
    const ended = companions.finish();
    for (const found of ended.late) lateFinding(found);
    result.companions = ended.counts;
    result.inconclusive = inconclusiveRules(ended.counts).filter(
      (entry) => (result.byRule[entry.rule] ?? 0) === 0,
    );
  } finally {
    result.notices = source
      .notices()
      .map((notice) => ({ ...notice, message: escapeControls(notice.message) }));
    await source.close();
  }
  const counts = rules.counts();
  if (counts.uncompared > 0) {
    result.notices.push({
      kind: "gap",
      message: `${counts.uncompared} message${counts.uncompared === 1 ? " was" : "s were"} not compared with the earlier message of the same (uri, objectVersion), as the source could no longer read that one again (was the file changed during the check?); check a file that stays as it is`,
      at: Date.now(),
    });
  }
  // What the memory bound made the rules forget is said, never dropped silently.
  const maxTracked = options.maxTrackedVersions ?? defaultMaxTrackedVersions;
  for (const message of boundNotices(
    counts.evictedObjects,
    result.companions.forgotten,
    referenceChanges.evicted,
    maxTracked,
  ))
    result.notices.push({ kind: "memory-bound", message, at: Date.now() });
  result.duplicates = counts.duplicates;
  result.evictedObjects = counts.evictedObjects;
  result.reordered = counts.reordered;
  result.opportunities = opportunitiesOf(judged, result.total);
  result.durationMs = performance.now() - started;
  return result;
}

/** Each rule's opportunities: the messages its judge ran on; for a rule found elsewhere, those of the
 *  rule whose walk finds it, every message (reading judges each), or the messages read as an object. */
function opportunitiesOf(judged: JudgedMessages, total: number): Record<string, number> {
  const byJudge = new Map(MESSAGE_RULES.map((r, index) => [r.id, judged.byJudge[index] as number]));
  const of = (rule: EventRule): number => {
    if (typeof rule.judge === "function") return byJudge.get(rule.id) ?? 0;
    const { judgedWith } = rule.judge;
    return judgedWith === undefined ? judged.read : judgedWith === "every message" ? total : of(judgedWith);
  };
  return Object.fromEntries(EVENT_RULES.map((rule) => [rule.id, of(rule)]));
}

/** The notices of state the memory bound (--max-tracked) dropped, each naming what it could no longer
 *  compare and how to keep more. */
export function boundNotices(
  evictedObjects: number,
  forgottenEntities: number,
  forgottenReferences: number,
  maxTracked: number,
): string[] {
  const notices: string[] = [];
  const raise = `raise --max-tracked (now ${maxTracked}) to keep more`;
  if (evictedObjects > 0)
    notices.push(
      `${evictedObjects} object(s) seen longest ago were forgotten to keep within --max-tracked (uri, objectVersion) pairs: a redelivery, a reused objectVersion or a message after ENTITY_REMOVED_GDPR about them later in the stream was compared afresh, not with what came before (EVENT-HEADERS-03, EVENT-STREAM-01); ${raise} (about 90 bytes a pair)`,
    );
  if (forgottenEntities > 0)
    notices.push(
      `${forgottenEntities} entity(ies) with events in the companion window were forgotten (more than --max-tracked at once): their ENTITY_CHANGED no longer counted as a companion (EVENT-TYPES-04, EVENT-STREAM-02); ${raise} or narrow the companion window`,
    );
  if (forgottenReferences > 0)
    notices.push(
      `${forgottenReferences} entity(ies) with reference attribute values were forgotten (more than --max-tracked): their next snapshot was not compared with the one before (EVENT-STREAM-02); ${raise}`,
    );
  return notices;
}
