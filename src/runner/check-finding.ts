// An HTTP check's finding: what a check throws when the target does not conform (a CheckFailure, which
// stays the way a check stops at its first finding) made the kit's one Finding (src/rules/finding.ts), as
// the findings of caller, consumer and event rules are; and what a report shows of it.
import {
  type CheckFailure,
  type Counterexample,
  type Exchange,
  type FailureDetail,
  failureDetail,
  requestOf,
} from "../check/index.ts";
import { citation } from "../result/evidence.ts";
import type { CheckResult } from "../result/model.ts";
import type { Finding, Found } from "../rules/finding.ts";

/** The evidence of an HTTP check's finding: the exchange it is about, the failure as data the check gave,
 *  and for a property the counterexample to replay. */
export interface HttpEvidence {
  /** The id (Exchange.id, evidence.har's _exchangeId) of the exchange the finding is about: the last one
   *  its detail names as its request, else the check's last (what it judged last); absent when the check
   *  sent none. */
  exchange?: number;
  details?: FailureDetail;
  counterexample?: Counterexample;
}

/** The finding of a failure a check threw, judged on `exchanges` (the check's own, in the order sent);
 *  `fallback` is the counterexample read from fast-check's text when the check gave none. */
export function foundOfFailure(
  failure: CheckFailure,
  exchanges: readonly Exchange[],
  fallback?: Counterexample,
): Found<HttpEvidence> {
  const counterexample = failure.details.counterexample ?? fallback;
  return foundOf(failure.message, failureDetail(failure), exchanges, { counterexample });
}

/** A finding the runner makes for a check (a body the target garbled, a wait the target imposed), about
 *  `about` when the runner knows the exchange. */
export function foundOf(
  message: string,
  details: FailureDetail | undefined,
  exchanges: readonly Exchange[],
  {
    counterexample,
    about = aboutOf(details, exchanges),
  }: { counterexample?: Counterexample; about?: Exchange } = {},
): Found<HttpEvidence> {
  return {
    where: whereOf(about),
    ...(details?.expected === undefined ? {} : { expected: details.expected }),
    ...(details?.actual === undefined ? {} : { actual: details.actual }),
    message,
    evidence: {
      ...(about?.id === undefined ? {} : { exchange: about.id }),
      ...(details === undefined ? {} : { details }),
      ...(counterexample === undefined ? {} : { counterexample }),
    },
  };
}

/** The exchange a failure is about: the last its detail names as its request, else the last sent (the
 *  one the failure was judged on, as the report's curl line picks it). */
function aboutOf(details: FailureDetail | undefined, exchanges: readonly Exchange[]): Exchange | undefined {
  const request = details?.request;
  const cited =
    request === undefined ? undefined : exchanges.findLast((x) => citation({ request }, x) === "request");
  return cited ?? exchanges.at(-1);
}

function whereOf(exchange: Exchange | undefined): string {
  if (exchange === undefined) return "the check, before any exchange";
  if (exchange.id !== undefined) return `exchange #${exchange.id}`;
  const { method, path } = requestOf(exchange.request.method, exchange.request.url);
  return `${method} ${path}`;
}

/** What a failed HTTP check's result shows of its finding (a check stops at its first: there is one): its
 *  sentence, its detail and the counterexample. The evidence exchanges are the runner's to pick. */
export function httpFailure(findings: readonly Finding<HttpEvidence>[]): Partial<CheckResult> {
  const [finding] = findings;
  if (finding === undefined) return {};
  const { details, counterexample } = finding.evidence;
  return {
    message: finding.message,
    ...(details === undefined ? {} : { details }),
    ...(counterexample === undefined ? {} : { counterexample }),
  };
}
