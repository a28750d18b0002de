// summary.md: the verdict and what to do next, short enough for a GitHub job summary.
import { drawnAtDepth, LEVELS } from "../check/index.ts";
import type { CheckResult, RunResult, TargetSummary } from "../result/model.ts";
import { evidenceLocation } from "./citations.ts";
import { CURL_VARIABLES, curlForCheck } from "./curl.ts";
import { markdownCode as code, escapeMarkdown as md } from "./escape.ts";
import { explorationFigures, exploredRequirements, exploredText, gapsText } from "./exploration.ts";
import { detailRows } from "./failure-detail.ts";
import {
  clientHeadline,
  commandEnd,
  commandOf,
  countOutcomes,
  outcomeCount,
  outcomeLabel,
  outcomeShort,
  presentOutcomes,
  replayCommand,
  subjectName,
  suiteOutcomes,
  targetVersionText,
} from "./outcome.ts";
import { RETRIES_MEAN, retryCount, retryLines, retrySummary } from "./retries.ts";

const verdictMark: Record<RunResult["verdict"], string> = {
  CERTIFIED: "🏅",
  CONFORMANT: "✅",
  "PASSED (subset)": "☑️",
  "NOT CONFORMANT": "❌",
  INCOMPLETE: "⚠️",
  BROKEN: "💥",
  INTERRUPTED: "⏹️",
};
/** A job summary is capped (1 MiB); long lists are cut and point at report.html. */
const MAX_ROWS = 50;

export function renderMarkdown(result: RunResult): string {
  const out: string[] = [];
  const cause = clientHeadline(result);
  out.push(
    `## ${verdictMark[result.verdict]} ${result.verdict}: ${cause === undefined ? "" : `${md(cause)} · `}${md(subjectName(result))}`,
    "",
  );
  out.push(md(result.verdictReason), "");
  const retries = retrySummary(result);
  if (retries !== undefined)
    out.push(`**Retries:** ${md(retries)}; ${md(RETRIES_MEAN)}. Each is listed under Retries below.`, "");
  if (result.certification) {
    const c = result.certification;
    out.push(
      `**Certificate ${c.certified ? "granted" : "refused"}**: ${md(c.reason)}. Target ${md(c.target)}, ` +
        `/version ${code(JSON.stringify(c.targetVersion))}, kit ${md(c.kitVersion)}, catalogue sha256 ` +
        `${code(c.catalogueSha256)}, contract sha256 ${code(c.contractSha256)}, seed ${c.seed}, ${c.runs} runs, ` +
        `${code(c.startedAt)} to ${code(c.finishedAt)}.`,
      "",
    );
    for (const m of c.missing)
      out.push(`- ${code(m.id)} did not run: ${md(m.reason)}. To run it: ${md(m.fix)}`);
    if (c.missing.length > 0) out.push("");
  }
  if (result.baseline)
    out.push(
      `Judged under the baseline ${code(result.baseline.file)}: ${result.baseline.waived.length} known failures ` +
        `waived, ${result.baseline.expired.length} waivers expired (failing again), ${result.baseline.unused.length} unused.`,
      "",
    );
  if (result.interruption)
    out.push(
      `**The run ended early** (${md(result.interruption.cause)} at ${code(result.interruption.at)}): ` +
        `${md(result.interruption.message)}. Checks it did not get to are listed as skipped with that reason.`,
      "",
    );
  const left = result.configuration?.leftChanged ?? [];
  if (left.length > 0)
    out.push(
      `**Configuration left changed** (${left.length}): ${md(left.join("; "))}. Put it back with ` +
        `${code(`lckit restore ${result.configuration?.journal ?? "<journal>"} --target <target file>`)}.`,
      "",
    );
  out.push(subjectLine(result), "");
  const command = commandOf(result);
  if (command !== undefined) {
    // A client or consumer check ran the team's command: how it ended, and its last lines when it failed.
    const end =
      command.startError !== undefined
        ? md(commandEnd(command))
        : command.timedOut
          ? "hung past its time limit"
          : command.signal !== null
            ? `killed by ${code(command.signal)}`
            : `exit ${code(String(command.exitCode))}`;
    out.push(`Your command ${code(command.argv.join(" "))}: ${end}.`, "");
    if (
      command.outputTail !== undefined &&
      (command.exitCode !== 0 || command.signal !== null || command.timedOut)
    )
      out.push(
        "<details open><summary>The last lines of its output</summary>",
        "",
        "```text",
        command.outputTail.replace(/```/g, "` ` `"),
        "```",
        "",
        "</details>",
        "",
      );
  }
  const version = targetVersionText(result);
  if (result.subject.kind === "provider")
    out.push(
      `Target /version: ${version === undefined ? "not asked (lckit run --certify asks GET /version)" : code(clip(version, 200))}`,
      "",
    );
  const spec = result.spec;
  out.push(
    `${command === undefined ? "Certified" : "Judged"} against the requirement catalogue ${code(spec.catalogue.file)} ${md(spec.catalogue.version)} ` +
      `(${spec.catalogue.requirements} requirements, sha256 ${code(spec.catalogue.sha256.slice(0, 16))}…) and the ` +
      `contract ${md(spec.contractVersion)} (sha256 ${code(spec.contract.slice(0, 16))}…)` +
      (spec.interfaceDocument === null
        ? "."
        : `; interface document ${md(spec.interfaceDocumentFile ?? "copy")} sha256 ${code(spec.interfaceDocument.slice(0, 16))}….`),
    "",
  );
  const selection = command === undefined ? selectionText(result) : "";
  if (selection) out.push(`Selection: ${selection}`, "");

  out.push(...outcomeTables(result));

  const failed = result.checks.filter((c) => c.status === "failed");
  // MUST failures (waived ones among them, marked), then SHOULD/MAY findings: warnings, folded.
  const mustFailed = failed.filter((c) => c.level === "MUST");
  const findings = failed.filter((c) => c.level !== "MUST");
  if (mustFailed.length > 0) {
    out.push(`### MUST failures (${mustFailed.length})`, "");
    out.push(...failureTable(result, mustFailed));
  } else out.push("### MUST failures (0)", "", "No MUST check failed.", "");
  if (findings.length > 0) {
    out.push(
      `<details${mustFailed.length === 0 ? " open" : ""}><summary><b>SHOULD/MAY findings (${findings.length})</b>: warnings, not failures</summary>`,
      "",
    );
    out.push(...failureTable(result, findings));
    out.push("</details>", "");
  }
  if (failed.length > 0) {
    const curls = failed.slice(0, MAX_ROWS).flatMap((c) => {
      const line = curlForCheck(c);
      return line === undefined ? [] : [`${c.id}:`, "```sh", line, "```"];
    });
    if (curls.length > 0)
      out.push(
        `<details><summary>curl reproductions (last exchange of each failure; set ${CURL_VARIABLES.map((v) => `$${v}`).join(", ")} as needed: no secret is in these lines)</summary>`,
        "",
        ...curls,
        "",
        "</details>",
        "",
      );
  }

  const broken = result.checks.filter((c) => c.status === "broken");
  if (broken.length > 0) {
    out.push(`### Broken: faults of the kit (${broken.length})`, "");
    out.push("| Check | Error |", "|---|---|");
    for (const c of broken.slice(0, MAX_ROWS))
      out.push(`| ${code(c.id)} | ${md(clip(c.message ?? "", 300))}${whereNote(c)} |`);
    out.push("");
  }

  // Every check the transport retried for, passed ones too: a flaky target is visible, never a failure.
  const retried = result.checks.filter((c) => (c.retries ?? []).length > 0);
  if (retried.length > 0) {
    out.push(`### Retries (${retried.length} ${retried.length === 1 ? "check" : "checks"})`, "");
    for (const c of retried.slice(0, MAX_ROWS)) {
      const where = evidenceLocation(c);
      out.push(
        `- ${code(c.id)} ${c.status}, ${retryCount(c)}${where === undefined ? "" : `; evidence ${code(where)}`}`,
      );
      for (const line of retryLines(c)) out.push(`  - ${code(line)}`);
    }
    if (retried.length > MAX_ROWS)
      out.push("", `... and ${retried.length - MAX_ROWS} more: see report.html.`);
    out.push("");
  }

  const undecided = result.checks.filter((c) => c.status === "inconclusive");
  if (undecided.length > 0) {
    out.push(`### Checks that could not decide (${undecided.length})`, "");
    out.push(
      "| Check | Level | What the kit saw | The two readings | What decides it |",
      "|---|---|---|---|---|",
    );
    for (const c of undecided.slice(0, MAX_ROWS)) {
      const u = c.undecided;
      out.push(
        `| ${code(c.id)} | ${c.level} | ${md(clip(u?.saw ?? c.reason ?? "", 300))} | ${md(u ? `${u.readings[0]} (conforming) / ${u.readings[1]} (not)` : "")} | ${md(u?.decideBy ?? "")} |`,
      );
    }
    if (undecided.length > MAX_ROWS)
      out.push("", `... and ${undecided.length - MAX_ROWS} more: see report.html.`);
    out.push("");
  }

  const skippedMust = result.checks.filter((c) => c.status === "skipped" && c.level === "MUST");
  if (skippedMust.length > 0) {
    out.push(`### MUST checks that did not run (${skippedMust.length})`, "");
    out.push("| Check | Why |", "|---|---|");
    for (const c of skippedMust.slice(0, MAX_ROWS)) out.push(`| ${code(c.id)} | ${md(c.reason ?? "")} |`);
    if (skippedMust.length > MAX_ROWS)
      out.push("", `... and ${skippedMust.length - MAX_ROWS} more: see report.html.`);
    out.push("");
  }

  // A caller rule the client's traffic gave nothing to judge: never a pass; what would exercise it.
  const notExercised = result.checks.filter((c) => c.status === "not-exercised");
  if (notExercised.length > 0) {
    out.push(`### Rules not exercised (${notExercised.length})`, "");
    out.push(
      "| Rule | Level | What your client's traffic lacked, and what would exercise it |",
      "|---|---|---|",
    );
    for (const c of notExercised.slice(0, MAX_ROWS))
      out.push(
        `| ${code(c.id)} | ${c.level}${c.exerciseRequired ? " (required)" : ""} | ${md(c.reason ?? "")} |`,
      );
    out.push("");
  }

  const f = result.coverage.figures;
  out.push("### Requirement coverage", "");
  if (result.coverage.catalogue === null) out.push("No requirement catalogue was found.", "");
  else {
    out.push(
      `${f.proven} of ${f.total} requirements proven (${pct(f.proven, f.total)}), ${f.failing} failing, ` +
        `${f.broken} broken, ${f.undecided > 0 ? `${f.undecided} undecided, ` : ""}${f["not-run"]} not run, ` +
        `${f.untested} untested (no check traces to them)` +
        (f.elsewhere > 0 ? `, ${f.elsewhere} checked by another command of the kit.` : "."),
      "",
    );
    const untested = result.coverage.requirements.filter((r) => r.status === "untested");
    if (untested.length > 0) {
      const notCheckable = untested.filter((r) => r.notCheckable !== undefined).length;
      out.push(
        `<details><summary>Untested requirements (${untested.length}${notCheckable > 0 ? `, ${notCheckable} not checkable` : ""})</summary>`,
        "",
      );
      for (const r of untested)
        out.push(
          `- ${code(r.id)} ${md(r.text ?? "")}${r.notCheckable === undefined ? "" : ` **Not checkable:** ${md(r.notCheckable)}`}`,
        );
      out.push("", "</details>", "");
    }
    const explored = exploredRequirements(result);
    const figures = explorationFigures(result);
    if (figures !== undefined) {
      out.push(`<details><summary>${md(figures)}</summary>`, "");
      for (const r of explored) {
        const reached = exploredText(r);
        const gaps = gapsText(r);
        out.push(
          `- ${code(r.id)} ${reached === "" ? "nothing reached" : md(reached)}${gaps === "" ? "" : `. **Gaps:** ${md(gaps)}`}`,
        );
      }
      out.push("", "</details>", "");
    }
    if (result.coverage.unknown.length > 0) {
      out.push(
        `Requirement ids used by checks but missing from the catalogue: ${result.coverage.unknown.map((u) => code(u.id)).join(", ")}`,
        "",
      );
    }
  }
  // The summary does not know where --report-dir put it; report.html is always its neighbour.
  out.push(
    `Full report: ${code("report.html")} beside this summary, in the run's folder ${code(result.runId)}`,
    "",
  );
  return out.join("\n");
}

/** The checks' rows (cut at MAX_ROWS): what went wrong with expected and actual, and how to replay it. */
function failureTable(result: RunResult, checks: readonly CheckResult[]): string[] {
  const out = ["| Check | Level | Requirements | What went wrong | Replay |", "|---|---|---|---|---|"];
  for (const c of checks.slice(0, MAX_ROWS))
    out.push(
      `| ${code(c.id)} | ${c.level} | ${md(c.requirements.join(", "))} | ${waiverNote(c)}${md(clip(c.message ?? "", 300))}${detailNote(c)}${whereNote(c)} | ${code(replayCommand(result, c))} |`,
    );
  if (checks.length > MAX_ROWS) out.push("", `... and ${checks.length - MAX_ROWS} more: see report.html.`);
  out.push("");
  return out;
}

/** Squares per suite bar. */
const BAR = 10;
const SQUARES: Record<string, string> = {
  passed: "🟩",
  failure: "🟥",
  finding: "🟨",
  waived: "⬛",
  skipped: "⬜",
  broken: "🟪",
  inconclusive: "🟧",
};
/** Pie slice colours (GitHub's Mermaid takes them as pie1, pie2, ... in slice order). */
const PIE: Record<string, string> = {
  passed: "#1a7f37",
  failure: "#cf222e",
  finding: "#9a6700",
  waived: "#57606a",
  skipped: "#afb8c1",
  broken: "#6e40c9",
  inconclusive: "#bc4c00",
};

/** The first screen's figures: checks per level by outcome, a pie of all checks (Mermaid, which GitHub
 *  draws), and one bar of squares per suite. Failures are MUST checks; SHOULD/MAY ones are findings. */
function outcomeTables(result: RunResult): string[] {
  const all = countOutcomes(result.checks);
  const columns = presentOutcomes(all);
  if (columns.length === 0) return ["No check ran.", ""];
  const out = [
    `| Level | ${columns.map(outcomeShort).join(" | ")} |`,
    `|---|${columns.map(() => "---:").join("|")}|`,
  ];
  for (const level of LEVELS) {
    const counts = countOutcomes(result.checks.filter((c) => c.level === level));
    out.push(`| ${level} | ${columns.map((o) => counts[o] ?? 0).join(" | ")} |`);
  }
  out.push(`| **all** | ${columns.map((o) => `**${all[o] ?? 0}**`).join(" | ")} |`, "");
  out.push(
    "_failures: MUST checks that failed; findings: SHOULD/MAY checks that failed (warnings, not failures)._",
    "",
  );
  const colours = columns.map((o, i) => `"pie${i + 1}": "${PIE[o] ?? "#8c959f"}"`).join(", ");
  out.push(
    "```mermaid",
    `%%{init: {"themeVariables": {${colours}}}}%%`,
    "pie showData",
    "  title Checks by outcome",
    ...columns.map((o) => `  "${outcomeLabel(o)}" : ${all[o] ?? 0}`),
    "```",
    "",
  );
  out.push("| Suite | Checks | | Outcomes |", "|---|---:|---|---|");
  for (const { suite, total, counts } of suiteOutcomes(result)) {
    const present = presentOutcomes(counts);
    out.push(
      `| ${md(suite)} | ${total} | ${bar(counts, present, total)} | ${present.map((o) => outcomeCount(o, counts[o] ?? 0)).join(", ")} |`,
    );
  }
  out.push("", `Squares: ${columns.map((o) => `${SQUARES[o] ?? "▫️"} ${outcomeLabel(o)}`).join(", ")}.`, "");
  return out;
}

/** BAR squares in proportion, each outcome present keeping at least one. */
function bar(counts: Record<string, number>, present: readonly string[], total: number): string {
  const widths = present.map((o) => Math.max(1, Math.round(((counts[o] ?? 0) / total) * BAR)));
  // Rounding may overshoot: take the excess from the widest.
  while (widths.reduce((a, b) => a + b, 0) > BAR) {
    const i = widths.indexOf(Math.max(...widths));
    widths[i] = (widths[i] ?? 1) - 1;
  }
  return present.map((o, i) => (SQUARES[o] ?? "▫️").repeat(widths[i] ?? 0)).join("");
}

/** A failure under a waiver says so first: WAIVED (known failure) or WAIVER EXPIRED (failing again). */
function waiverNote(c: CheckResult): string {
  const w = c.waiver;
  if (w === undefined) return "";
  return `**${w.expired ? "WAIVER EXPIRED" : "WAIVED"}** (until ${md(w.expires)}, ${md(w.who)}: ${md(clip(w.reason, 120))}) `;
}

/** The failure's detail after its sentence, on one line of the table cell ("expected: ...; record: ..."). */
function detailNote(c: CheckResult): string {
  const rows = detailRows(c);
  if (rows.length === 0) return "";
  return `<br>${rows.map((r) => `**${r.label}** ${r.label === "expected" ? md(clip(r.value, 200)) : code(clip(r.value, 200))}`).join("; ")}`;
}

/** Where a failure's evidence is, and how many of its requests were retried, after its detail. */
function whereNote(c: CheckResult): string {
  const where = evidenceLocation(c);
  const parts = [
    ...(where === undefined ? [] : [`**evidence** ${code(where)}`]),
    ...((c.retries ?? []).length > 0 ? [`**${retryCount(c)}** (see Retries)`] : []),
  ];
  return parts.length === 0 ? "" : `<br>${parts.join("; ")}`;
}

/** The line under the headline: what was judged, where, and the run's figures. */
function subjectLine(result: RunResult): string {
  const { subject } = result;
  const run = `run ${code(result.runId)}`;
  const took = `${(result.durationMs / 1000).toFixed(1)} s`;
  const kit = `${md(result.kit.name)} ${md(result.kit.version)}`;
  const urls = (t: TargetSummary) =>
    `${code(t.baseUrl)}${t.rdmUrl === t.baseUrl ? "" : ` and ${code(t.rdmUrl)}`}, tenant ${code(t.tenant)}`;
  switch (subject.kind) {
    case "provider":
      return (
        `Target ${urls(subject.target)} · ${run} · seed ${code(String(result.seed))} · ` +
        `${result.runs} runs per property${drawnAtDepth(result.runs, result.depth)} · ${result.requestsSent} requests · ${took} · ${kit}`
      );
    case "events":
      return `Messages from ${code(subject.source)} · ${run} · ${took} · ${kit}`;
    case "caller": {
      const sandbox = result.target === undefined ? "" : `Sandbox ${urls(result.target)}, `;
      return `${sandbox}provider choice ${code(subject.choice)} · ${run} · ${result.requestsSent} requests recorded · ${took} · ${kit}`;
    }
    case "consumer":
      return (
        `Stream of producer choice ${code(subject.choice)} by ${code(subject.delivery)}: ${subject.delivered} of ` +
        `${subject.messages} messages delivered · ${run} · ${took} · ${kit}`
      );
    case "traffic":
      return `Traffic from ${code(subject.source)}: ${subject.exchanges} exchanges, parties ${subject.parties.map(code).join(", ")} · ${run} · ${took} · ${kit}`;
  }
}

function selectionText(result: RunResult): string {
  const s = result.selection;
  const parts: string[] = [];
  if (s.suites.length > 0) parts.push(`suites ${s.suites.map(code).join(", ")}`);
  if (s.checks.length > 0) parts.push(`checks ${s.checks.map(code).join(", ")}`);
  if (s.level !== "MAY") parts.push(`level ${s.level} and stricter`);
  if (s.allow.length > 0) parts.push(`allowed ${s.allow.join(", ")}`);
  if (result.counts.notSelected > 0) parts.push(`${result.counts.notSelected} checks not selected`);
  return parts.join("; ");
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function pct(n: number, total: number): string {
  return total === 0 ? "0%" : `${Math.round((100 * n) / total)}%`;
}
