// Requests the transport sent again (a connection reset, a 502/503/504 on an idempotent read, a 429 waited
// out), in words a reader takes in at a glance: one short line per retry (what happened, how long the kit
// waited) and one line for the whole run ("3 requests retried in 2 checks: 2 after a reset, 1 after a 429
// (waited 2 s)"). A retry is no finding: it tells the reader the target was flaky, not that it is non-conformant.
// Written once here so html, markdown and junit say the same thing the same way.
import type { RetryCause, TransportRetry } from "../check/index.ts";
import type { CheckResult, RunResult } from "../result/model.ts";

export interface Retry {
  /** Exchange.id of the attempt that was retried (evidence.har's _exchangeId); -1 when it had none. */
  exchange: number;
  cause: RetryCause;
  /** The status answered (5xx, 429), when there was one. */
  status?: number;
  /** Milliseconds waited before the next attempt. */
  waitMs: number;
  /** One short line: "exchange 12: GET http://…/version: no answer (read ECONNRESET); sent again after 250 ms". */
  line: string;
}

/** Longest URL a line shows: the rest is in the evidence. */
const URL_CHARS = 120;

/** One retry of a check as a reader's line, from what the transport recorded. */
export function readRetry(retry: TransportRetry): Retry {
  const where = retry.exchange >= 0 ? `exchange ${retry.exchange}: ` : "";
  const space = retry.request.indexOf(" ");
  const request =
    space < 0
      ? clip(retry.request)
      : `${retry.request.slice(0, space)} ${clip(retry.request.slice(space + 1))}`;
  const { exchange, cause, waitMs } = retry;
  const base = { exchange, cause, waitMs, ...(retry.status === undefined ? {} : { status: retry.status }) };
  switch (cause) {
    case "rate-limit":
      return {
        ...base,
        line: `${where}${request} answered 429; waited ${seconds(waitMs)} (Retry-After), then sent again`,
      };
    case "status":
      return {
        ...base,
        line: `${where}${request} answered ${retry.status}; sent again once after ${seconds(waitMs)}`,
      };
    default:
      return {
        ...base,
        line: `${where}${request}: no answer (${clip(retry.error ?? "no answer")}); sent again once after ${seconds(waitMs)}`,
      };
  }
}

/** The retries of a check, as lines; empty when the transport sent nothing again for it. */
export function retryLines(check: CheckResult): string[] {
  return (check.retries ?? []).map((r) => readRetry(r).line);
}

/** "2 retries" / "1 retry": the count a compact view shows. */
export function retryCount(check: CheckResult): string {
  const n = check.retries?.length ?? 0;
  return `${n} ${n === 1 ? "retry" : "retries"}`;
}

/** The run's retries in one line, by cause: "3 requests retried in 2 checks: 2 after a reset, 1 after a
 *  429 (waited 2 s)". Undefined when nothing was retried (a run without retries shows no such line). */
export function retrySummary(result: RunResult): string | undefined {
  const all = result.checks.flatMap((c) => (c.retries ?? []).map(readRetry));
  if (all.length === 0) return undefined;
  const parts: string[] = [];
  const count = (cause: RetryCause) => all.filter((r) => r.cause === cause);
  const resets = count("reset");
  if (resets.length > 0) parts.push(`${resets.length} after a reset`);
  const connection = count("connection");
  if (connection.length > 0) parts.push(`${connection.length} after a connection failure`);
  const statuses = [...new Set(count("status").map((r) => r.status))].sort();
  for (const status of statuses)
    parts.push(`${count("status").filter((r) => r.status === status).length} after a ${status}`);
  const limited = count("rate-limit");
  if (limited.length > 0) {
    const waited = limited.reduce((sum, r) => sum + (r.waitMs ?? 0), 0);
    parts.push(
      `${limited.length} after a 429 (waited ${seconds(waited)}${limited.length > 1 ? " in all" : ""})`,
    );
  }
  const checks = result.checks.filter((c) => (c.retries ?? []).length > 0).length;
  return `${all.length} ${all.length === 1 ? "request" : "requests"} retried in ${checks} ${checks === 1 ? "check" : "checks"}: ${parts.join(", ")}`;
}

/** What every format says after the summary: the retries are no verdict on the target. */
export const RETRIES_MEAN =
  "a retry is no failure: the target was flaky, and each check judged the answer it finally got";

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}

function clip(text: string, max = URL_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
