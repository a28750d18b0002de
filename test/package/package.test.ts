// The kit as users get it: `npm pack` (which builds dist/ in prepack), the tarball installed into a fresh
// temporary project from the npm registry, and there the CLI, the library API (plain .mjs) and its types
// (tsc --strict) used the way another repository would. Run on this Node, and on Node 22 and 24 when the
// `node` package of the npm registry can be installed (otherwise the test says so and checks this Node).
import "../support/background.ts";
import { execFile, spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type FaultName, startSandbox } from "../../src/reference/index.ts";
import { acquireBroker, holdBroker } from "../broker/broker.ts";
import { type DocBlock, docBlocks, runDocBlock } from "./doc-blocks.ts";
import { runAction } from "./run-action.ts";

// Installs and builds on 2 shared cores: generous limits that only guard against a hang.
vi.setConfig({ testTimeout: 180_000 });

const repo = join(import.meta.dirname, "..", "..");
const kit = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { name: string; version: string };
const work = mkdtempSync(join(tmpdir(), "lckit-package-"));
const project = join(work, "consumer");
const npmFlags = ["--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"];
/** Node versions beyond this one that the package must run on (the current LTS lines). */
const OTHER_NODES = ["22", "24"];

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (no shell); a time limit only guards against a hang of the tool itself. */
function run(
  file: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
  timeout = 180_000,
): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        cwd,
        env: { ...process.env, NO_COLOR: "1", ...env },
        maxBuffer: 64 * 1024 * 1024,
        timeout,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

function say(line: string): void {
  process.stdout.write(`package test: ${line}\n`);
}

const du = async (dir: string) => (await run("du", ["-sh", dir], work)).stdout.split("\t")[0] ?? "?";

let tarball = "";
/** node binaries by major version; missing where the registry could not provide one. */
const nodes = new Map<string, string>([["this", process.execPath]]);

beforeAll(async () => {
  // The pack builds dist/ (a full tsc): minutes on 2 cores that other test files share.
  const packed = await run("npm", ["pack", "--pack-destination", work, ...npmFlags], repo, {}, 480_000);
  expect(packed.code, packed.stderr).toBe(0);
  const name = readdirSync(work).find((f) => f.endsWith(".tgz"));
  expect(name, `npm pack wrote no tarball: ${packed.stderr}`).toBeDefined();
  tarball = join(work, name ?? "");

  mkdirSync(project);
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" }),
  );
  const installed = await run("npm", ["install", "--save-dev", tarball, ...npmFlags], project);
  expect(installed.code, installed.stderr).toBe(0);
  say(
    `installed ${kit.name}@${kit.version}: node_modules ${await du(join(project, "node_modules"))}, ` +
      `${readdirSync(join(project, "node_modules")).filter((n) => !n.startsWith(".")).length} entries ` +
      "(measure: du -sh node_modules; ls node_modules | wc -l)",
  );

  // Other Node lines from the npm registry's `node` package, each in its own folder, side by side.
  await Promise.all(
    OTHER_NODES.map(async (major) => {
      const dir = join(work, `node${major}`);
      mkdirSync(dir);
      writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `node${major}`, private: true }));
      const got = await run("npm", ["install", `node@${major}`, ...npmFlags], dir);
      const bin = join(dir, "node_modules", "node", "bin", "node");
      const version = existsSync(bin) ? (await run(bin, ["--version"], dir)).stdout.trim() : "";
      if (got.code === 0 && version.startsWith(`v${major}.`)) {
        nodes.set(major, bin);
        say(`Node ${version} installed from the npm registry: the package is checked on it too`);
      } else
        say(
          `NOT CHECKED ON NODE ${major}: the npm registry's node@${major} could not be installed here ` +
            `(${(got.stderr.trim().split("\n").pop() ?? "").slice(0, 200) || `got "${version}"`}); only Node ${process.version} and the others listed are verified`,
        );
    }),
  );
}, 720_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** runner.temp of the Action's runs: one job's, shared by its steps as on a GitHub runner, so the first run
 *  installs the kit into a cold $RUNNER_TEMP/lckit and the later runs of the job find it there (npm install
 *  then only checks it), instead of six cold installs of the same tarball. */
const runnerTemp = join(work, "runner-temp");

/** Each step of an Action run with its exit code and output tails: the message of a failed expectation. */
function stepsContext(
  steps: { step: string; code: number | null; stdout: string; stderr: string }[],
): string {
  return steps
    .map((s) => `${s.step}: ${s.code}\n${s.stdout.slice(-1500)}${s.stderr.slice(-1500)}`)
    .join("\n");
}

describe("the tarball npm pack produces", () => {
  it("holds the compiled kit and the contract artefacts, and no tests, benches, CI files or TypeScript sources", async () => {
    const listed = await run("tar", ["tzf", tarball], work);
    const files = listed.stdout.split("\n").filter(Boolean);
    for (const expected of [
      "package/bin/lckit.mjs",
      "package/dist/src/index.js",
      "package/dist/src/index.d.ts",
      "package/dist/src/cli/main.js",
      "package/dist/suites/index.js",
      "package/openapi/platform.yaml",
      "package/event-schemas/message.schema.json",
      "package/requirements/catalogue.yaml",
      "package/fixtures/reference/tenants.yaml",
      "package/src/report/report.schema.json",
    ])
      expect(files, expected).toContain(expected);
    const unwanted = files.filter(
      (f) =>
        /^package\/(test|bench|\.github|scripts|reports|pacts)\//.test(f) ||
        /\.ts$/.test(f.replace(/\.d\.ts$/, "")),
    );
    expect(unwanted).toEqual([]);
  });

  it("installs without Prism, Pact or a TypeScript loader", () => {
    const modules = join(project, "node_modules");
    for (const heavy of ["@stoplight/prism-cli", "@pact-foundation/pact", "tsx", "typescript"])
      expect(existsSync(join(modules, heavy)), heavy).toBe(false);
    // Before the split every command dragged ~370 packages in; the runtime needs a couple of dozen.
    expect(readdirSync(modules).filter((n) => !n.startsWith(".")).length).toBeLessThan(40);
  });
});

// The Node lines side by side: their checks mostly wait (the embedded run's clocks), and each writes files of
// its own (reports-<major>, entity-<major>.ndjson, use-kit-<major>.mjs).
describe.concurrent.each(["this", ...OTHER_NODES])("installed, on Node %s", (major) => {
  const node = () => nodes.get(major);
  const lckit = (args: string[]) => {
    const bin = node();
    if (bin === undefined) throw new Error("no node binary");
    return run(bin, [join(project, "node_modules", ".bin", "lckit"), ...args], project);
  };
  const available = () => {
    if (node() !== undefined) return true;
    say(`Node ${major}: not available (see above), its checks are not run`);
    return false;
  };

  it("lckit --version prints the package's version", async ({ expect }) => {
    if (!available()) return;
    const got = await lckit(["--version"]);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toBe(`lckit (${kit.name}) ${kit.version}\n`);
  });

  it("lckit run certifies the embedded reference: CONFORMANT, the catalogue and contract identified", async ({
    expect,
  }) => {
    if (!available()) return;
    const got = await lckit(["run", "--runs", "2", "--seed", "1", "--report-dir", `reports-${major}`]);
    expect(got.code, got.stderr.slice(-2000)).toBe(0);
    expect(got.stdout).toMatch(/verdict: CONFORMANT /);
    const dir = join(project, `reports-${major}`);
    const runDir = readdirSync(dir)[0] ?? "";
    const report = JSON.parse(readFileSync(join(dir, runDir, "report.json"), "utf8"));
    expect(report.spec.catalogue).toMatchObject({
      file: "requirements/catalogue.yaml",
      version: kit.version,
    });
    expect(report.spec.catalogue.sha256).toBe(
      (await run("sha256sum", [join(repo, "requirements", "catalogue.yaml")], repo)).stdout.split(" ")[0],
    );
    expect(readFileSync(join(dir, runDir, "summary.md"), "utf8")).not.toMatch(/\.\.\/shared|not found/);
  });

  it("lckit events check reads a fixture stream", async ({ expect }) => {
    if (!available()) return;
    const fixture = join(project, `entity-${major}.ndjson`);
    cpSync(join(repo, "fixtures", "events", "valid", "entity.ndjson"), fixture);
    const good = await lckit(["events", "check", fixture]);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toMatch(/every message conforms/);
    const bad = await lckit(["events", "check", join(repo, "fixtures", "events", "invalid.ndjson")]);
    expect(bad.code).toBe(1);
  });

  it("a plain .mjs imports the library API and the exported contract files", async ({ expect }) => {
    if (!available()) return;
    const script = join(project, `use-kit-${major}.mjs`);
    writeFileSync(
      script,
      [
        'import { allChecks, loadCatalogue, renderJunit, startEmbeddedTarget, planRun, runPlan } from "lookup-conformance-kit";',
        'import { readFileSync } from "node:fs";',
        // The sandbox's own entry: the reference alone, without the checks, reports and event tools.
        'import { startSandbox } from "lookup-conformance-kit/sandbox";',
        'const schema = JSON.parse(readFileSync(new URL(import.meta.resolve("lookup-conformance-kit/report.schema.json")), "utf8"));',
        'const openapi = readFileSync(new URL(import.meta.resolve("lookup-conformance-kit/openapi/platform.yaml")), "utf8");',
        'const events = import.meta.resolve("lookup-conformance-kit/event-schemas/message.schema.json");',
        'const catalogue = import.meta.resolve("lookup-conformance-kit/requirements/catalogue.yaml");',
        // The example data a team copies, by the package's name (package.json "exports" ./examples/*).
        'const example = readFileSync(new URL(import.meta.resolve("lookup-conformance-kit/examples/sandbox-data.yaml")), "utf8");',
        "const embedded = await startEmbeddedTarget();",
        'const plan = planRun(allChecks, { target: embedded.target, suites: ["service"] });',
        "const result = await runPlan(plan, { fetch: embedded.fetch, clock: embedded.clock, seed: 1, runs: 1 });",
        "const sandbox = await startSandbox();",
        "const [client] = sandbox.clients;",
        'const token = await fetch(sandbox.baseUrl + "/oauth/token", { method: "POST", headers: { authorization: "Basic " + btoa(client.clientId + ":" + client.clientSecret), "content-type": "application/x-www-form-urlencoded" }, body: "grant_type=client_credentials" });',
        "const sandboxToken = token.status;",
        "await sandbox.close();",
        "console.log(JSON.stringify({ checks: allChecks.length, requirements: loadCatalogue().requirements.length,",
        "  verdict: result.verdict, junit: renderJunit(result).startsWith('<?xml'), schema: schema.$schema !== undefined,",
        "  openapi: openapi.startsWith('openapi:'), events: events.endsWith('.json'), catalogue: catalogue.endsWith('.yaml'), sandboxToken,",
        "  example: example.includes('multitokenConfig') }));",
      ].join("\n"),
    );
    const bin = node() ?? process.execPath;
    const got = await run(bin, [script], project);
    expect(got.code, got.stderr).toBe(0);
    const out = JSON.parse(got.stdout.trim().split("\n").pop() ?? "{}");
    expect(out).toMatchObject({
      verdict: "PASSED (subset)",
      junit: true,
      schema: true,
      openapi: true,
      events: true,
      catalogue: true,
      sandboxToken: 200,
      example: true,
    });
    expect(out.checks).toBeGreaterThan(50);
    expect(out.requirements).toBeGreaterThan(50);
  });
});

describe("the docs' code blocks, run as written in the project that installed the tarball", () => {
  const blocks = docBlocks(repo);
  const runnable = blocks.filter((b) => b.notRun === undefined);

  it("each shell or JavaScript block of README.md and docs/*.md runs here, or says why not", () => {
    // A marker without a reason explains nothing.
    expect(blocks.filter((b) => b.notRun === "").map((b) => `${b.file}:${b.line}`)).toEqual([]);
    // What runs today (README's events check, the signing key, the example client and consumer checks,
    // the contract diff): fewer would mean blocks were silently marked away.
    expect(runnable.length).toBeGreaterThanOrEqual(5);
    // No runnable block names a path only a clone of the repository has.
    const clonePaths = runnable.filter((b) =>
      /(^|\s)(examples|fixtures|openapi\/dist|pacts|test)\//m.test(b.text),
    );
    expect(clonePaths.map((b) => `${b.file}:${b.line}`)).toEqual([]);
  });

  it.each(runnable.map((b) => [`${b.file}:${b.line}`, b] as const))(
    "%s runs as written",
    async (_where, block) => {
      const got = await (block.withRabbit
        ? withRabbit(block)
        : runDocBlock(block, project, process.execPath));
      const said =
        block.exits === undefined
          ? ""
          : ` (exits ${got.codes?.join(" ")}, expected ${block.exits.join(" ")})`;
      expect(got.code, `${said}\n${got.output.slice(-3000)}`).toBe(0);
    },
    180_000,
  );
});

/** A block written for the RabbitMQ node npm test starts (127.0.0.1:5672, guest): run as written, with the
 *  broker held so that the broker test that restarts it waits. Another broker cannot run it as written. */
async function withRabbit(block: DocBlock) {
  const broker = await acquireBroker();
  try {
    if (broker.url !== "amqp://guest:guest@127.0.0.1:5672")
      return {
        code: 1,
        output: `${block.file}:${block.line} is written for RabbitMQ on 127.0.0.1:5672 (guest), the node npm test starts; the broker here is another (unset LCKIT_AMQP_URL and LCKIT_AMQP_PORT to run it)`,
      };
    const release = await holdBroker();
    try {
      return await runDocBlock(block, project, process.execPath);
    } finally {
      release();
    }
  } finally {
    await broker.release();
  }
}

describe("installed: what a newcomer's first commands say (issue 45)", () => {
  const lckit = (args: string[], env: Record<string, string> = {}) =>
    run(process.execPath, [join(project, "node_modules", ".bin", "lckit"), ...args], project, env);
  const shipped = (...path: string[]) => join(project, "node_modules", kit.name, "examples", ...path);

  it("a command that does not exist is headlined by its start error (exit 2), not as INTERRUPTED", async () => {
    const got = await lckit(["client", "check", "--", "nod", "client.mjs"]);
    expect(got.code).toBe(2);
    expect(got.stdout.split("\n")[0]).toMatch(
      /^NOT CONFORMANT: the command could not start: spawn nod ENOENT/,
    );
  });

  it("the default client's 403 on a delete task names --client nightly-sync", async () => {
    const got = await lckit([
      "client",
      "check",
      "--quiet",
      "--",
      "node",
      shipped("clients", "lookup-client.mjs"),
    ]);
    expect(got.code, got.stderr.slice(-2000)).toBe(0);
    expect(got.stdout.split("\n")[0]).toMatch(
      /refused a delete task with 403 .* with --client nightly-sync$/,
    );
  });

  it("a consumer that crashes on an unlisted event type is judged by the unknown-types rule (exit 1, not 2)", async () => {
    const got = await lckit(
      ["events", "consumer", "check", "--quiet", "--", "node", shipped("consumers", "view-consumer.mjs")],
      { FAULT: "crashes-on-unknown" },
    );
    expect(got.code, got.stderr.slice(-2000)).toBe(1);
    expect(got.stdout).toMatch(
      // A SHOULD rule: a warning, beside the MUST failure of the command that exits 1.
      /WARN consumer\/unknown-types-and-fields-change-nothing .*a type in neither of the document's lists/,
    );
  });

  it("Ctrl-C during lckit events check on stdin ends it with exit 4 and the report of what was read", async () => {
    const child = spawn(
      process.execPath,
      [
        join(project, "node_modules", ".bin", "lckit"),
        "events",
        "check",
        "-",
        "--report-dir",
        "sigint-reports",
      ],
      { cwd: project, stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } },
    );
    const ended = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    // The first problem printed proves messages were read and judged; stdin stays open, as a producer's
    // pipe would, so only the signal can end the check.
    const judging = new Promise<void>((resolve) =>
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString("utf8");
        if (/^line \d+: /m.test(stdout)) resolve();
      }),
    );
    child.stdin.write(readFileSync(join(repo, "fixtures", "events", "invalid.ndjson")));
    await Promise.race([judging, ended]);
    child.kill("SIGINT");
    const code = await ended;
    expect(code, `${stdout}${stderr}`.slice(-2000)).toBe(4);
    expect(stdout).toMatch(
      /^result: INTERRUPTED: the check received SIGINT: the \d+ message\(s\) read by then were judged/m,
    );
    const folder = join(project, "sigint-reports", readdirSync(join(project, "sigint-reports"))[0] ?? "");
    const report = JSON.parse(readFileSync(join(folder, "report.json"), "utf8"));
    expect(report).toMatchObject({ verdict: "INTERRUPTED", interruption: { cause: "SIGINT" } });
    expect(report.checks.some((c: { status: string }) => c.status === "failed")).toBe(true);
  });

  it("--har writes evidence.har.gz, which lckit report verify reads", async () => {
    const got = await lckit(["run", "--har", "--suite", "service", "--report-dir", "har-reports"]);
    expect(got.code, got.stderr.slice(-2000)).toBe(0);
    const folder = join(project, "har-reports", readdirSync(join(project, "har-reports"))[0] ?? "");
    expect(readdirSync(folder)).toContain("evidence.har.gz");
    expect(readdirSync(folder)).not.toContain("evidence.har");
    const verified = await lckit(["report", "verify", folder]);
    expect(verified.code, verified.stdout).toBe(0);
    expect(verified.stdout).toMatch(/ok {3}evidence\.har\.gz: \d+ exchanges/);
  });
});

describe("installed, for TypeScript and the optional tools", () => {
  it("a consumer type-checks with tsc --strict against the shipped declarations", async () => {
    const dir = join(project, "ts-consumer");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          noEmit: true,
          // Node's types from the repository (a consumer has its own @types/node); the kit's own
          // declarations are checked too (no skipLibCheck).
          typeRoots: [join(repo, "node_modules", "@types")],
          types: ["node"],
        },
        include: ["*.ts"],
      }),
    );
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module", private: true }));
    writeFileSync(
      join(dir, "consumer.ts"),
      [
        'import { allChecks, type Check, type RunResult, planRun, renderMarkdown, runPlan, startEmbeddedTarget } from "lookup-conformance-kit";',
        'const mine: Check[] = allChecks.filter((check) => check.level === "MUST");',
        "const embedded = await startEmbeddedTarget();",
        "const result: RunResult = await runPlan(planRun(mine, { target: embedded.target }), {",
        "  fetch: embedded.fetch, clock: embedded.clock, seed: 1, runs: 1 });",
        "const verdict: string = result.verdict;",
        "const summary: string = renderMarkdown(result);",
        "export { verdict, summary };",
      ].join("\n"),
    );
    // And a wrong use beside it is caught: the declarations carry real types, not any. One compiler run
    // judges both files (each is a module of its own, so neither changes the other's types): every error
    // it reports must be in wrong.ts, none in consumer.ts or in the kit's declarations.
    writeFileSync(
      join(dir, "wrong.ts"),
      'import { planRun } from "lookup-conformance-kit";\nplanRun(42, {});\n',
    );
    const tsc = join(repo, "node_modules", "typescript", "bin", "tsc");
    const got = await run(process.execPath, [tsc, "-p", dir, "--pretty", "false"], dir);
    const output = `${got.stdout}${got.stderr}`;
    const errors = output.split("\n").filter((line) => /\berror TS\d+:/.test(line));
    expect(got.code, output.slice(0, 4000)).not.toBe(0);
    expect(
      errors.filter((line) => !line.startsWith("wrong.ts(")),
      output.slice(0, 4000),
    ).toEqual([]);
    expect(
      errors.some((line) => line.startsWith("wrong.ts(2,")),
      output.slice(0, 4000),
    ).toBe(true);
  });

  it.each([
    ["mock", "@stoplight/prism-cli"],
    ["pact", "@pact-foundation/pact"],
  ])("lckit %s without its optional tool exits 2 naming the install command", async (command, tool) => {
    const args =
      command === "mock"
        ? // Prism is looked for before any port is opened: these ports are never bound.
          ["mock", "--platform-port", "4790", "--lookup-data-port", "4791"]
        : ["pact", "verify", "--pact-dir", join(repo, "pacts")];
    const got = await run(
      process.execPath,
      [join(project, "node_modules", ".bin", "lckit"), ...args],
      project,
    );
    expect(got.code, got.stderr).toBe(2);
    expect(got.stderr).toContain(`npm install --save-dev ${tool}@`);
  });
});

describe("the GitHub Action's steps (action.yml), run locally against the embedded reference", () => {
  it("installs the kit, certifies, writes summary.md to the job summary and passes the job", async () => {
    const temp = runnerTemp;
    const got = runAction(repo, {
      inputs: { package: tarball, runs: "2", "report-dir": "action-reports", "fail-on": "must,incomplete" },
      workspace: project,
      temp,
    });
    const context = got.steps.map((s) => `${s.step}: ${s.code}\n${s.stderr.slice(-1500)}`).join("\n");
    expect(got.code, context).toBe(0);
    expect(got.outputs.run).toMatchObject({ "exit-code": "0", verdict: "CONFORMANT" });
    const report = got.outputs.run?.report ?? "";
    expect(report.startsWith(join(project, "action-reports"))).toBe(true);
    expect(readdirSync(report).sort()).toEqual(
      expect.arrayContaining(["junit.xml", "report.html", "report.json", "summary.md"]),
    );
    expect(got.summary).toBe(readFileSync(join(report, "summary.md"), "utf8"));
    expect(got.summary).toMatch(/^## ✅ CONFORMANT/);
    // The seed defaults to the workflow's run number, so a failure replays.
    expect(JSON.parse(readFileSync(join(report, "report.json"), "utf8")).seed).toBe(7);
    expect(got.steps.filter((s) => !s.ran).map((s) => s.step)).toEqual([
      "Set up Node.js",
      "Upload the report",
    ]);
  });

  it("fails the job with lckit's exit code and still writes the job summary", () => {
    const temp = runnerTemp;
    const got = runAction(repo, {
      inputs: { package: tarball, runs: "2", "interface-document": "no-such-document.md" },
      workspace: project,
      temp,
    });
    expect(got.outputs.run?.["exit-code"]).toBe("2");
    expect(got.code).toBe(2);
    const verdictStep = got.steps.find((s) => s.step === "Verdict");
    expect(verdictStep?.stdout).toMatch(/::error title=lckit::lckit run exited 2/);
    expect(got.summary).toMatch(/lckit wrote no report; see the log of the Certify step/);
  });

  it("client mode: the installed kit's lckit client check runs a command against the sandbox and passes the job", () => {
    const temp = runnerTemp;
    // The example client the package ships, run as a team's command would be (through sh -c).
    const client = join(project, "node_modules", kit.name, "examples", "clients", "lookup-client.mjs");
    const got = runAction(repo, {
      inputs: {
        package: tarball,
        "report-dir": "client-reports",
        "client-command": `node ${JSON.stringify(client)}`,
      },
      workspace: project,
      temp,
    });
    const context = stepsContext(got.steps);
    expect(got.code, context).toBe(0);
    expect(got.outputs.run?.["exit-code"], context).toBe("0");
    const report = got.outputs.run?.report ?? "";
    expect(report.startsWith(join(project, "client-reports")), context).toBe(true);
    const result = JSON.parse(readFileSync(join(report, "report.json"), "utf8")) as {
      verdict: string;
      requestsSent: number;
      checks: { id: string; status: string }[];
    };
    // The command's traffic was recorded and judged by the caller rules, and the job summary says so.
    expect(got.outputs.run?.verdict).toBe("CONFORMANT");
    expect(result.verdict).toBe("CONFORMANT");
    expect(result.requestsSent).toBeGreaterThan(0);
    expect(result.checks.map((c) => c.id)).toContain("client/token-reuse");
    expect(result.checks.every((c) => c.status === "passed")).toBe(true);
    expect(got.summary).toBe(readFileSync(join(report, "summary.md"), "utf8"));
    expect(got.summary).toMatch(/^## ✅ CONFORMANT: client: /);
  });

  it("event consumer mode: the installed kit's lckit events consumer check runs a consumer on a stream and passes the job", () => {
    const temp = runnerTemp;
    // The example consumer the package ships, run as a team's command would be (through sh -c).
    const consumer = join(project, "node_modules", kit.name, "examples", "consumers", "view-consumer.mjs");
    const got = runAction(repo, {
      inputs: {
        package: tarball,
        "report-dir": "consumer-reports",
        "consumer-command": `node ${JSON.stringify(consumer)}`,
        "consumer-delivery": "stdin",
      },
      workspace: project,
      temp,
    });
    const context = stepsContext(got.steps);
    expect(got.code, context).toBe(0);
    const report = got.outputs.run?.report ?? "";
    expect(report.startsWith(join(project, "consumer-reports")), context).toBe(true);
    const result = JSON.parse(readFileSync(join(report, "report.json"), "utf8")) as {
      verdict: string;
      checks: { id: string; status: string }[];
    };
    expect(result.verdict).toBe("CONFORMANT");
    expect(result.checks.map((c) => c.id)).toContain("consumer/latest-by-object-version");
    // The default stream carries one tenant, every field and numbers: three SHOULD rules of producer choices are not
    // exercised, and say so.
    const byChoice = [
      "consumer/object-version-text-read",
      "consumer/other-tenants-left-out",
      "consumer/filtered-attributes-kept",
    ];
    expect(
      result.checks.every(
        (c) => c.status === "passed" || (byChoice.includes(c.id) && c.status === "not-exercised"),
      ),
    ).toBe(true);
    expect(got.summary).toMatch(/^## ✅ CONFORMANT: consumer: /);
  });
});

/** A HAR of a few calls the team's tests made to a sandbox (as Playwright's recordHar would write one). */
async function testsHar(file: string, faults: FaultName[]): Promise<void> {
  const sandbox = await startSandbox({ controlPort: false, faults });
  try {
    const basic = Buffer.from("acme-viewer:acme-viewer-secret").toString("base64");
    const answer = await fetch(`${sandbox.baseUrl}/oauth/token`, {
      method: "POST",
      headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials",
    });
    const { access_token } = (await answer.json()) as { access_token: string };
    // A scroll followed to its end (one abandoned midway would leave its rule undecided).
    let body: string | undefined;
    for (let page = 0; page < 50; page++) {
      const answer = await fetch(`${sandbox.rdmUrl}/lookups/acme/_scan?limit=100`, {
        method: "POST",
        headers: { authorization: `Bearer ${access_token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body }),
      });
      const { scrollId, values } = (await answer.json()) as { scrollId?: string; values?: unknown[] };
      if (!scrollId || !values?.length) break;
      body = JSON.stringify({ scrollId });
    }
    const pairs = (h: Record<string, string>) => Object.entries(h).map(([name, value]) => ({ name, value }));
    const entries = sandbox.control.recording().map((x) => ({
      startedDateTime: new Date(x.at).toISOString(),
      time: x.durationMs,
      request: {
        method: x.method,
        url: x.url,
        headers: pairs(x.headers),
        ...(x.body === undefined ? {} : { postData: { mimeType: "", text: x.body } }),
      },
      response: { status: x.status, headers: pairs(x.responseHeaders), content: { text: x.responseBody } },
    }));
    writeFileSync(file, JSON.stringify({ log: { version: "1.2", creator: { name: "tests" }, entries } }));
  } finally {
    await sandbox.close();
  }
}

describe("the GitHub Action's traffic mode (input har)", () => {
  it.each([
    [[] as FaultName[], "0", []],
    [["scan-exceeds-limit"] as FaultName[], "1", ["service/page-within-limit"]],
  ])(
    "judges the HAR the team's tests produced (faults %j): exit %s, the failed rules %j",
    async (faults, code, rules) => {
      const temp = runnerTemp;
      mkdirSync(temp, { recursive: true });
      const har = join(temp, `tests-${faults.length}.har`);
      await testsHar(har, faults);
      const got = runAction(repo, {
        inputs: { package: tarball, "report-dir": "har-reports", har },
        workspace: project,
        temp,
      });
      const context = stepsContext(got.steps);
      expect(got.outputs.run?.["exit-code"], context).toBe(code);
      expect(got.code, context).toBe(Number(code));
      const report = got.outputs.run?.report ?? "";
      expect(report.startsWith(join(project, "har-reports")), context).toBe(true);
      const result = JSON.parse(readFileSync(join(report, "report.json"), "utf8")) as {
        subject: { kind: string; parties: string[] };
        checks: { id: string; status: string; suite: string }[];
      };
      expect(result.subject).toMatchObject({ kind: "traffic", parties: ["service", "client acme-viewer"] });
      expect(result.checks.filter((c) => c.status === "failed").map((c) => c.id)).toEqual(rules);
      expect(got.summary).toBe(readFileSync(join(report, "summary.md"), "utf8"));
    },
  );
});

describe("installed with Prism beside it", () => {
  it("lckit mock finds Prism in the consumer's node_modules and answers", async () => {
    const added = await run(
      "npm",
      ["install", "--save-dev", "@stoplight/prism-cli@5.12.0", ...npmFlags],
      project,
    );
    expect(added.code, added.stderr).toBe(0);
    const ports = await Promise.all([freePort(), freePort()]);
    const child = spawn(
      process.execPath,
      [
        join(project, "node_modules", ".bin", "lckit"),
        "mock",
        "--platform-port",
        String(ports[0]),
        "--lookup-data-port",
        String(ports[1]),
      ],
      { cwd: project, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } },
    );
    try {
      let output = "";
      const ready = new Promise<string>((resolve, reject) => {
        const onData = (chunk: Buffer) => {
          output += chunk.toString("utf8");
          const url = /^lookup-data (http:\/\/\S+)$/m.exec(output)?.[1];
          if (url) resolve(url);
        };
        child.stdout.on("data", onData);
        child.stderr.on("data", onData);
        child.on("exit", (code) =>
          reject(new Error(`lckit mock exited (${code}) before serving:\n${output}`)),
        );
      });
      const url = await ready;
      // The mock answers: a data request without a token is refused as the contract says (401, Bearer).
      const answer = await fetch(`${url}/healthcheck`);
      expect(answer.status).toBe(401);
      expect(answer.headers.get("www-authenticate") ?? "").toMatch(/^Bearer/);
    } finally {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    }
  });
});

/** A port the kernel hands out on loopback, free again once returned. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}
