// The Pact verifier's JSON result turned into the kit's report: each interaction with its outcome and the
// mismatches Pact found, plus the problems of states and requests the kit saw itself.
import type { VerificationProblem } from "./provider-session.ts";

export interface InteractionOutcome {
  description: string;
  ok: boolean;
  /** What Pact found wrong, one line each. */
  mismatches: string[];
}

export interface PactVerificationReport {
  /** "embedded reference" or the target's name. */
  target: string;
  pactFiles: string[];
  interactions: InteractionOutcome[];
  problems: VerificationProblem[];
  /** Lines the Pact verifier wrote about the run (colour codes removed). */
  output: string[];
  ok: boolean;
}

interface RawError {
  interaction?: string;
  mismatch?: {
    type?: string;
    message?: string;
    mismatches?: { mismatch?: string; type?: string; path?: string; key?: string }[];
  };
}

interface RawResult {
  result?: boolean;
  errors?: RawError[];
  interactionResults?: { description?: string; result?: string }[];
  output?: string[];
}

const ansi = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");

export function stripAnsi(text: string): string {
  return text.replace(ansi, "");
}

/** Parses what the verifier returned (its JSON result); undefined when it is not that JSON. */
export function parseVerifierResult(text: string): RawResult | undefined {
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed !== null && typeof parsed === "object" && "result" in parsed
      ? (parsed as RawResult)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Pact prints whole bodies in some mismatches; a report line keeps the start of them. */
const MAX_LINE = 400;

function shorten(line: string): string {
  return line.length > MAX_LINE
    ? `${line.slice(0, MAX_LINE)}... (${line.length - MAX_LINE} more characters)`
    : line;
}

function mismatchLines(error: RawError): string[] {
  return rawMismatchLines(error).map(shorten);
}

function rawMismatchLines(error: RawError): string[] {
  const mismatch = error.mismatch;
  if (!mismatch) return ["failed (no detail)"];
  if (mismatch.type === "error") return [mismatch.message ?? "error"];
  const lines = (mismatch.mismatches ?? []).map((m) => {
    const where = m.path ?? m.key;
    const text = stripAnsi(m.mismatch ?? m.type ?? "mismatch");
    return where && !text.includes(where) ? `${where}: ${text}` : text;
  });
  return lines.length > 0 ? lines : [mismatch.message ?? "failed"];
}

export function toReport(
  raw: RawResult,
  meta: {
    target: string;
    pactFiles: string[];
    problems: VerificationProblem[];
    redact: (text: string) => string;
  },
): PactVerificationReport {
  const errors = raw.errors ?? [];
  const interactions = (raw.interactionResults ?? []).map((result): InteractionOutcome => {
    const description = result.description ?? "";
    const found = errors.filter((error) => (error.interaction ?? "").endsWith(` - ${description}`));
    return {
      description,
      ok: result.result === "OK" && found.length === 0,
      mismatches: found.flatMap(mismatchLines).map(meta.redact),
    };
  });
  // Errors that name no interaction (a pact that could not be loaded) still fail the run.
  const orphaned = errors.filter(
    (error) => !interactions.some((i) => (error.interaction ?? "").endsWith(` - ${i.description}`)),
  );
  for (const error of orphaned)
    interactions.push({
      description: error.interaction ?? "verification",
      ok: false,
      mismatches: mismatchLines(error).map(meta.redact),
    });
  const problems = meta.problems;
  return {
    target: meta.target,
    pactFiles: meta.pactFiles,
    interactions,
    problems,
    output: (raw.output ?? []).flatMap((line) => stripAnsi(line).split("\n")).map(meta.redact),
    ok: raw.result === true && problems.length === 0 && interactions.every((i) => i.ok),
  };
}

/** The report as text: one line per failed interaction and problem, and a closing count. */
export function formatReport(report: PactVerificationReport): string {
  const lines: string[] = [];
  for (const interaction of report.interactions.filter((i) => !i.ok)) {
    lines.push(`FAILED "${interaction.description}"`);
    for (const mismatch of interaction.mismatches) lines.push(`  - ${mismatch}`);
  }
  for (const problem of report.problems) lines.push(`PROBLEM ${problem.source}: ${problem.message}`);
  const failed = report.interactions.filter((i) => !i.ok).length;
  lines.push(
    `${report.ok ? "verified" : "not verified"}: ${report.interactions.length - failed} of ${report.interactions.length} interactions in ${report.pactFiles.length} pact file(s) against ${report.target}` +
      (report.problems.length > 0 ? `; ${report.problems.length} state or request problem(s)` : ""),
  );
  return `${lines.join("\n")}\n`;
}
