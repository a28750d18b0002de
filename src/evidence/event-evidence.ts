// events.ndjson: the event messages an `lckit events check` run read, written beside report.json as they
// arrive (memory stays flat on an endless broker stream), one message a line in the form the checker
// reads back (`lckit events check events.ndjson` finds the same problems), redacted with the Redactor
// rules of the reports. Each failed event check cites the lines of the messages that broke its rule
// (CheckResult.eventLines); the manifest covers the file and `lckit report verify` checks the citations.
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { EventProblem } from "../events/check/event-problem.ts";
import type { MessageSource, RawMessage } from "../events/transport/transport.ts";
import { Redactor } from "../redaction/redact.ts";
import { newRunId } from "../result/assemble.ts";
import { EVENTS_FILE } from "../result/evidence.ts";
import type { RunResult } from "../result/model.ts";

export { EVENTS_FILE };
/** Lines a check cites at most (its first problems; the report's log lists the same ones). */
export const CITED_LINES = 20;
/** Positions of recent messages remembered for problems found after their message (stream rules that
 *  decide at the end); older ones are remembered only when a problem was found on them. */
const RECENT_POSITIONS = 4096;
/** Positions with a problem remembered at most (problems beyond are counted, not listed, anyway). */
const PROBLEM_POSITIONS = 10_000;

export class EventEvidence {
  readonly folder: string;
  readonly file: string;
  private fd: number | undefined;
  private readonly redactor = new Redactor();
  private lines = 0;
  private current: { position: string; line: number } | undefined;
  private readonly recent = new Map<string, number>();
  private readonly withProblem = new Map<string, number>();

  /** Creates <root>/<run id>/ and opens events.ndjson in it; the report is written into the same folder. */
  constructor(
    root: string,
    readonly runId: string = newRunId(),
  ) {
    this.folder = join(root, runId);
    mkdirSync(this.folder, { recursive: true });
    this.file = join(this.folder, EVENTS_FILE);
    this.fd = openSync(this.file, "w");
  }

  /** The same source, each message also written to events.ndjson before the checker sees it. */
  tap(source: MessageSource): MessageSource {
    const messages = async function* (this: EventEvidence): AsyncIterable<RawMessage> {
      for await (const raw of source.messages()) {
        this.record(raw);
        yield raw;
      }
    }.bind(this);
    const tapped: MessageSource = {
      description: source.description,
      messages,
      notices: () => source.notices(),
      close: () => source.close(),
    };
    // Messages pass unchanged, refs included: the checker may still read one again from the source.
    const recall = source.recall?.bind(source);
    if (recall) tapped.recall = recall;
    return tapped;
  }

  /** To be called for every problem as it is found (CheckStreamOptions.onProblem). */
  observe(problem: EventProblem): void {
    const { position } = problem.evidence;
    const line = this.current?.position === position ? this.current.line : this.recent.get(position);
    if (line !== undefined && this.withProblem.size < PROBLEM_POSITIONS) this.withProblem.set(position, line);
  }

  /** The line of events.ndjson holding the message at this position, when known. */
  lineNumberOf(position: string): number | undefined {
    return this.withProblem.get(position) ?? this.recent.get(position);
  }

  /** Closes the file and returns the run result with each failed event check citing its lines, redacted
   *  with the same rules as the file. `problems` are the checker's (EventCheckResult.problems). */
  finish(result: RunResult, problems: readonly EventProblem[]): RunResult {
    this.close();
    const byCheck = new Map<string, number[]>();
    for (const p of problems) {
      const line = this.lineNumberOf(p.evidence.position);
      if (line === undefined) continue;
      const lines = byCheck.get(p.rule) ?? [];
      if (lines.length < CITED_LINES && !lines.includes(line)) lines.push(line);
      byCheck.set(p.rule, lines);
    }
    // A log line starts with the message's position in the source ("line 12", "amqp delivery 4031"); the
    // line of events.ndjson follows it, so every format shows where to look in the bundle.
    const where = (entry: string): string => {
      const position = problems.find((x) => entry.startsWith(`${x.evidence.position} `))?.evidence.position;
      const line = position === undefined ? undefined : this.lineNumberOf(position);
      return position === undefined || line === undefined
        ? entry
        : `${position} (${EVENTS_FILE} line ${line})${entry.slice(position.length)}`;
    };
    const linked: RunResult = {
      ...result,
      checks: result.checks.map((c) => {
        const lines = c.status === "failed" ? byCheck.get(c.id) : undefined;
        if (lines === undefined || lines.length === 0) return c;
        return { ...c, eventLines: lines, ...(c.log === undefined ? {} : { log: c.log.map(where) }) };
      }),
    };
    return this.redactor.deep(linked);
  }

  /** Messages written so far (the file's line count). */
  get written(): number {
    return this.lines;
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }

  private record(raw: RawMessage): void {
    if (this.fd === undefined) return;
    this.lines += 1;
    writeSync(this.fd, `${this.redactor.text(ndjsonLineOf(raw))}\n`);
    this.current = { position: raw.position, line: this.lines };
    this.recent.set(raw.position, this.lines);
    if (this.recent.size > RECENT_POSITIONS) {
      const oldest = this.recent.keys().next().value;
      if (oldest !== undefined) this.recent.delete(oldest);
    }
  }
}

/** One message as one NDJSON line the checker reads back alike: an NDJSON line as it came; a message
 *  with transport headers (a broker) as the envelope {"headers", "payload"}. A body that is no JSON
 *  stays text (as a JSON string when it would break the line), so it fails the same way again; a message
 *  too long to hold is a JSON string saying so. */
export function ndjsonLineOf(raw: RawMessage): string {
  // A message too long to hold was never read: the line says so instead of holding nothing.
  if (raw.tooLarge !== undefined)
    return JSON.stringify(
      `message of ${raw.tooLarge.bytes} bytes, not kept: longer than ${raw.tooLarge.limit}`,
    );
  // Only a line feed would split the line: a carriage return is JSON whitespace, and the reader keeps it.
  if (raw.headers === undefined) return raw.body.includes("\n") ? JSON.stringify(raw.body) : raw.body;
  let payload: unknown;
  try {
    payload = JSON.parse(raw.body);
  } catch {
    return JSON.stringify(raw.body);
  }
  return JSON.stringify({ headers: raw.headers, payload });
}

/** Lines of events.ndjson (for verification): counts newline-terminated lines. */
export function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n += 1;
  return n;
}
