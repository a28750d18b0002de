// Requests the transport sent again (a connection reset, a 502/503/504 on an idempotent read, a 429 waited
// out), in words a reader takes in at a glance: one short line per retry (what happened, how long the kit
// waited) and one line for the whole run ("3 requests retried in 2 checks: 2 after a reset, 1 after a 429
// (waited 2 s)"). A retry is no finding: it tells the reader the target was flaky, not that it is non-conformant.
// Written once here so html, markdown and junit say the same thing the same way.
import type { CheckResult, RunResult } from "../result/model.ts";
import { RETRY_BACKOFF_MS } from "../target/target-fetch.ts";

export type RetryCause = "reset" | "connection" | "status" | "rate-limit" | "other";

export interface Retry {
  /** Exchange.id of the attempt that was retried (evidence.har's _exchangeId); -1 when it had none. */
  exchange: number;
  cause: RetryCause;
  /** The status answered (5xx, 429), when there was one. */
  status?: number;
  /** Milliseconds waited before the next attempt. */
  waitMs?: number;
  /** One short line: "exchange 12: GET http://…/version: no answer (read ECONNRESET); sent again after 250 ms". */
  line: string;
}

/** Longest URL a line shows: the rest is in the evidence. */
const URL_CHARS = 120;

// The transport writes each note as "<method> <url> -> <status or error>: <what it did>" (CheckScope.retried);
// the error may hold ": " itself, so each form is matched from the end.
const shape = /^(\S+) (\S+) -> ([\s\S]*)$/;
const connectionRetry = /^([\s\S]*): retried once \(a connection-level failure before any answer\)$/;
const statusRetry = /^(\d{3}): \d{3}: retried once$/;
const rateLimitRetry = /^429: 429: waited (\d+) ms, then retried$/;

/** One retry of a check, read from the transport's note; a note in an unknown form is shown as it is. */
export function readRetry(retry: { exchange: number; note: string }): Retry {
  const where = retry.exchange >= 0 ? `exchange ${retry.exchange}: ` : "";
  const parts = shape.exec(retry.note);
  const request = parts === null ? "" : `${parts[1]} ${clip(parts[2] ?? "")}`;
  const outcome = parts?.[3] ?? "";
  const limited = rateLimitRetry.exec(outcome);
  if (parts && limited) {
    const waitMs = Number(limited[1]);
    return {
      exchange: retry.exchange,
      cause: "rate-limit",
      status: 429,
      waitMs,
      line: `${where}${request} answered 429; waited ${seconds(waitMs)} (Retry-After), then sent again`,
    };
  }
  const status = statusRetry.exec(outcome);
  if (parts && status) {
    return {
      exchange: retry.exchange,
      cause: "status",
      status: Number(status[1]),
      waitMs: RETRY_BACKOFF_MS,
      line: `${where}${request} answered ${status[1]}; sent again once after ${seconds(RETRY_BACKOFF_MS)}`,
    };
  }
  const dropped = connectionRetry.exec(outcome);
  if (parts && dropped) {
    const error = dropped[1] ?? "";
    return {
      exchange: retry.exchange,
      cause: /reset|hang up|EPIPE/i.test(error) ? "reset" : "connection",
      waitMs: RETRY_BACKOFF_MS,
      line: `${where}${request}: no answer (${clip(error)}); sent again once after ${seconds(RETRY_BACKOFF_MS)}`,
    };
  }
  return { exchange: retry.exchange, cause: "other", line: `${where}${clip(retry.note, 300)}` };
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
  const other = count("other");
  if (other.length > 0) parts.push(`${other.length} for another reason`);
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
