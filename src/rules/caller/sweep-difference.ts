// The sweep judges differences: the same command run under a legal provider choice and under the default.
// A client that read a scan to its end under the default but, under the choice, stopped a scroll whose last
// answer still carried a scrollId (with records) and so read fewer records, depends on a choice the
// document leaves open (most often: it takes a page shorter than its limit for the end, and the short-pages
// choice serves 25 records a page). Judged only in a sweep, on a choice's run beside the default's; the
// finding names the choice and gives the evidence of both runs.
import { defineRule } from "../../check/index.ts";
import { sandboxChoice } from "../../reference/index.ts";
import type { CallerRule, CallerRuleDeclaration, RuleVerdict, Violation } from "./caller-rule.ts";
import { verdict } from "./caller-rule.ts";
import { refusedBeforeTheScroll, scrollIdSent } from "./scroll-lifecycle.ts";
import { parseJson, type Traffic, type TrafficExchange } from "./traffic.ts";

const SCANS = new Set(["scanLookups", "scanAutopilotStats", "scanAutopilotStatsByType"]);

/** What a client read of one scan (one method and path) in one run. */
interface ScanRead {
  records: number;
  /** Answers that carried a scrollId and records, whose id the client did not pass on after them. */
  abandoned: TrafficExchange[];
  /** Of those, the ones whose id a later request did send, refused before its scroll was looked at (an
   *  expired token, a 429): the client stopped on that refusal, not on the page. */
  leftOnRefusal: Set<TrafficExchange>;
  /** Answers without a scrollId (or with a null one): ends the client reached. */
  ends: number;
}

function scansRead(traffic: Traffic): Map<string, ScanRead> {
  const out = new Map<string, ScanRead>();
  const scans = traffic.exchanges.filter((x) => x.operation && SCANS.has(x.operation));
  // Every scroll id the client sent, in the body (any encoding) or the query string, with the last request
  // that sent it: a provider may keep one id a whole scroll, so an answer's id was passed on only by a
  // request after it. A request refused before its scroll was looked at passed nothing on.
  const sentLast = new Map<string, number>();
  const refusedLast = new Map<string, number>();
  for (const x of scans) {
    const sent = refusedBeforeTheScroll(x) ? refusedLast : sentLast;
    const body = scrollIdSent(x.body);
    if (body.kind === "id") sent.set(body.id, x.seq);
    for (const [, value] of new URLSearchParams(x.search)) sent.set(value, x.seq);
  }
  for (const x of scans) {
    const key = `${x.method} ${x.pathname}`;
    const read = out.get(key) ?? { records: 0, abandoned: [], leftOnRefusal: new Set(), ends: 0 };
    out.set(key, read);
    if (x.status !== 200) continue;
    const answer = parseJson(x.responseBody) as { scrollId?: unknown; values?: unknown } | undefined;
    if (answer === undefined || answer === null || typeof answer !== "object") continue;
    const values = Array.isArray(answer.values) ? answer.values.length : 0;
    read.records += values;
    const id = answer.scrollId;
    if (typeof id !== "string" || id === "") read.ends += 1;
    else if (values > 0 && (sentLast.get(id) ?? -1) <= x.seq) {
      read.abandoned.push(x);
      if ((refusedLast.get(id) ?? -1) > x.seq) read.leftOnRefusal.add(x);
    }
  }
  return out;
}

/** Judged only in a sweep, on a choice's run with the default's beside it (Traffic.baseline); not one of
 *  CALLER_RULES, which judge one run. */
export const SCANS_READ_UNDER_EVERY_CHOICE: CallerRule = defineRule<"caller", CallerRuleDeclaration>(
  "caller",
  {
    id: "client/scan-read-under-every-choice",
    requirements: ["CALLER-SWEEP-01"],
    title:
      "MUST read a scan to its end under every legal provider choice where it does under the default (only an answer without a scrollId ends a scroll)",
    opportunity:
      "a scan your client read to its end under the default, run again under another provider choice (lckit client check --variants)",
    breaks:
      "under the choice, fewer records read and a scroll stopped whose last answer still carried a scrollId and records (e.g. a page shorter than `limit` taken for the end under `short-pages`)",
    exercisedBy: "`--variants all` (the default and every choice)",
    judge(traffic: Traffic): RuleVerdict {
      const baseline = traffic.baseline;
      if (baseline === undefined)
        return {
          status: "not-exercised",
          reason: "judged only in a sweep (--variants), against the default's run",
        };
      // Under a choice that refused requests the default accepted, a scan left is the refusal's doing (the
      // client stopped on an error): the command's failure under the choice is client/command's finding.
      // A 429 and an expired-token answer refuse nothing the client asked: they are steps of the token's
      // and the gateway's states, after which the document says what the caller does (wait; a new token).
      const refusals = (t: Traffic) =>
        t.exchanges.filter((x) => x.status >= 400 && !refusedBeforeTheScroll(x)).length;
      if (refusals(traffic) > refusals(baseline.traffic))
        return {
          status: "not-exercised",
          reason: `under this choice the provider refused ${refusals(traffic) - refusals(baseline.traffic)} more request(s) than under the default, so a scan left here follows a refusal, not a page taken for the end; what the refusal did to your command is client/command's finding`,
        };
      const before = scansRead(baseline.traffic);
      const now = scansRead(traffic);
      const violations: Violation[] = [];
      const leftByFailure: string[] = [];
      let opportunities = 0;
      for (const [scan, read] of before) {
        if (read.abandoned.length > 0 || read.ends === 0) continue;
        const here = now.get(scan);
        if (here === undefined) continue;
        opportunities += 1;
        const stopped = here.abandoned[here.abandoned.length - 1];
        if (stopped === undefined || here.records >= read.records) continue;
        // Left on an expired-token answer or a 429 by a command that then failed: it said so, and what it
        // left is client/command's finding (the document does not say what a caller does after an
        // expired-token error). Left there by a command that exited 0, the records are lost in silence.
        if (here.leftOnRefusal.has(stopped) && traffic.commandFailed) {
          opportunities -= 1;
          leftByFailure.push(scan);
          continue;
        }
        const answer = parseJson(stopped.responseBody) as { values: unknown[] };
        const limit = new URLSearchParams(stopped.search).get("limit");
        violations.push({
          seq: stopped.seq,
          message: `${scan}: under the provider choice ${traffic.variant ?? "?"} your client read ${here.records} records and stopped after the answer at #${stopped.seq}, which carried ${answer.values.length} records${limit === null ? "" : ` (limit=${limit})`} and a scrollId it never passed on; under the default the same command read ${read.records} records to the end (${read.ends === 1 ? "an answer" : `${read.ends} answers`} without a scrollId). The choice: ${sandboxChoice(traffic.variant)?.description ?? traffic.variant}. The document: "Each response carries scrollId. The next request passes that scrollId in the request body to obtain the next page."; the end-of-results signal is not shown, so only an answer without a scrollId (or a null one) is the end, not a short page`,
        });
      }
      return verdict(
        opportunities,
        violations,
        leftByFailure.length > 0
          ? `your command failed under this choice after an expired-token answer or a 429 and left ${leftByFailure.join(", ")} there: a scan left by a command that says it failed is client/command's finding`
          : "no scan your client read to its end under the default was run again here (or the default's run was not beside this one)",
      );
    },
  },
);
