// Runs the `run:` steps of a composite action (action.yml) on this machine the way a GitHub runner would:
// bash --noprofile --norc -eo pipefail, env built from the step's `env:` with the expressions it uses
// (inputs.*, github.*, runner.*, steps.<id>.outputs.*) evaluated, GITHUB_OUTPUT per step, one
// GITHUB_STEP_SUMMARY file. `uses:` steps (setup-node, upload-artifact) are recorded, not run: they need
// GitHub's services.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

export interface ActionStep {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  shell?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}

export interface ActionFile {
  name: string;
  description: string;
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs?: Record<string, { description: string; value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

export interface StepRun {
  step: string;
  ran: boolean;
  code: number;
  stdout: string;
  stderr: string;
}

export interface ActionRun {
  steps: StepRun[];
  outputs: Record<string, Record<string, string>>;
  summary: string;
  /** Exit code of the first failed step that ran, 0 when all passed. */
  code: number;
}

export function readAction(file: string): ActionFile {
  return parse(readFileSync(file, "utf8")) as ActionFile;
}

/** Every ${{ ... }} in a text. */
export function expressions(text: string): string[] {
  return [...text.matchAll(/\$\{\{\s*(.*?)\s*\}\}/g)].map((m) => m[1] ?? "");
}

export function runAction(
  actionDir: string,
  options: { inputs: Record<string, string>; workspace: string; temp: string; runNumber?: string },
): ActionRun {
  const action = readAction(join(actionDir, "action.yml"));
  const inputs = Object.fromEntries(
    Object.entries(action.inputs).map(([name, spec]) => [name, options.inputs[name] ?? spec.default ?? ""]),
  );
  for (const name of Object.keys(options.inputs))
    if (!(name in action.inputs)) throw new Error(`action.yml has no input "${name}"`);
  const context = {
    github: { action_path: actionDir, run_number: options.runNumber ?? "7", run_id: "1", run_attempt: "1" },
    runner: { temp: options.temp },
  };
  const outputs: Record<string, Record<string, string>> = {};
  const evaluate = (expression: string): string => {
    const parts = expression.split(".");
    if (parts[0] === "inputs") return inputs[parts.slice(1).join(".")] ?? "";
    if (parts[0] === "steps" && parts[2] === "outputs")
      return outputs[parts[1] ?? ""]?.[parts[3] ?? ""] ?? "";
    if (parts[0] === "github") return context.github[parts[1] as keyof typeof context.github] ?? "";
    if (parts[0] === "runner") return context.runner[parts[1] as keyof typeof context.runner] ?? "";
    throw new Error(`the local runner cannot evaluate \${{ ${expression} }}`);
  };
  const substitute = (text: string) => text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, e: string) => evaluate(e));

  mkdirSync(options.temp, { recursive: true });
  const summaryFile = join(options.temp, "step-summary.md");
  writeFileSync(summaryFile, "");
  const steps: StepRun[] = [];
  let failed = 0;
  for (const [index, step] of action.runs.steps.entries()) {
    const label = step.name ?? step.id ?? `step ${index + 1}`;
    // A runner skips a step after a failure unless its condition says always().
    const always = (step.if ?? "").includes("always()");
    if (step.uses !== undefined || step.run === undefined || (failed !== 0 && !always)) {
      steps.push({ step: label, ran: false, code: 0, stdout: "", stderr: "" });
      continue;
    }
    const outputFile = join(options.temp, `output-${index}`);
    writeFileSync(outputFile, "");
    const env = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([k, v]) => [k, substitute(String(v))]),
    );
    const script = join(options.temp, `step-${index}.sh`);
    writeFileSync(script, step.run);
    const got = spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", script], {
      cwd: options.workspace,
      encoding: "utf8",
      env: {
        ...process.env,
        ...env,
        GITHUB_OUTPUT: outputFile,
        GITHUB_STEP_SUMMARY: summaryFile,
        RUNNER_TEMP: options.temp,
        GITHUB_ACTION_PATH: actionDir,
        CI: "true",
      },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 180_000,
    });
    const code = got.status ?? 1;
    if (step.id !== undefined) {
      const lines = readFileSync(outputFile, "utf8").split("\n").filter(Boolean);
      outputs[step.id] = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
      );
    }
    steps.push({ step: label, ran: true, code, stdout: got.stdout, stderr: got.stderr });
    if (code !== 0 && failed === 0) failed = code;
  }
  return { steps, outputs, summary: readFileSync(summaryFile, "utf8"), code: failed };
}
