import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { repoRoot } from "../../src/result/kit-info.ts";
import type { RunResult } from "../../src/result/model.ts";
import { captureIo } from "../cli/capture-io.ts";

const dir = mkdtempSync(join(tmpdir(), "lckit-run-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const checksModule = join(import.meta.dirname, "cli-checks.ts");
writeFileSync(
  join(dir, "literal.yaml"),
  "name: x\nbaseUrl: https://a.example.com\ntenant: acme\ncredentials:\n  viewer: { clientId: v, clientSecret: hunter2 }\n",
);
writeFileSync(
  join(dir, "refused.yaml"),
  [
    "name: nothing listens here",
    "baseUrl: http://127.0.0.1:9",
    "tenant: acme",
    "timeoutMs: 2000",
    "credentials:",
    "  viewer: { clientIdEnv: T_VIEWER_ID, clientSecretEnv: T_VIEWER_SECRET }",
    "",
  ].join("\n"),
);
writeFileSync(join(dir, "remote.yaml"), "name: remote\nbaseUrl: https://lookup.example.com\ntenant: acme\n");

async function run(argv: string[], env: Record<string, string> = {}) {
  const io = captureIo();
  io.env = { LCKIT_CHECKS_MODULE: checksModule, ...env };
  io.cwd = dir;
  const code = await main(["run", ...argv], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe("lckit run", () => {
  it.each<
    [string, { argv: string[]; env?: Record<string, string>; code: number; err?: RegExp; out?: RegExp }]
  >([
    ["--help", { argv: ["--help"], code: 0, out: /Usage: lckit run/ }],
    [
      "an unknown option",
      { argv: ["--colour"], code: 2, err: /unknown option "--colour".*lckit run --help/ },
    ],
    [
      "a bad level",
      { argv: ["--level", "MIGHT"], code: 2, err: /--level expects MUST, SHOULD or MAY, got "MIGHT"/ },
    ],
    [
      "a bad --fail-on",
      {
        argv: ["--fail-on", "must,never"],
        code: 2,
        err: /--fail-on expects .*must, inconclusive, incomplete, not-exercised, should; got "never"/,
      },
    ],
    [
      "an interface document that cannot be read",
      {
        argv: ["--interface-document", "no-such-spec.md"],
        code: 2,
        err: /interface document .*no-such-spec\.md cannot be read \(ENOENT\)/,
      },
    ],
    [
      "a bad allow",
      { argv: ["--allow", "write,everything"], code: 2, err: /--allow expects .* got "everything"/ },
    ],
    [
      "--variant with a target file",
      {
        argv: ["--target", "remote.yaml", "--variant", "version-as-number"],
        code: 2,
        err: /--variant switches variants of the embedded reference; it cannot be used with --target/,
      },
    ],
    [
      "an unknown variant",
      {
        argv: ["--variant", "whatever"],
        code: 2,
        err: /--variant: unknown variant "whatever"; expected one of: .*version-as-number/,
      },
    ],
    [
      "a bad deadline",
      { argv: ["--deadline", "soon"], code: 2, err: /--deadline expects a number and a unit/ },
    ],
    [
      "a bad --unresponsive-after",
      {
        argv: ["--unresponsive-after", "many"],
        code: 2,
        err: /--unresponsive-after expects an integer from 0/,
      },
    ],
    [
      "a report directory under /proc, before anything is sent",
      {
        argv: ["--report-dir", "/proc/lckit"],
        code: 2,
        err: /--report-dir \/proc\/lckit is under \/proc, a kernel pseudo-filesystem/,
      },
    ],
    [
      "a report directory that cannot be created, before anything is sent",
      {
        argv: ["--report-dir", "literal.yaml/reports"],
        code: 2,
        err: /--report-dir .*literal\.yaml\/reports is not writable \(ENOTDIR\)/,
      },
    ],
    ["a bad seed", { argv: ["--seed", "abc"], code: 2, err: /--seed expects an integer/ }],
    ["--path without --seed", { argv: ["--path", "1:2"], code: 2, err: /give --seed too/ }],
    [
      "an unknown suite",
      { argv: ["--suite", "nope"], code: 2, err: /--suite nope matches no suite\. Suites: sample/ },
    ],
    ["an unknown check", { argv: ["--check", "x/*"], code: 2, err: /--check x\/\* matches no check id/ }],
    [
      "a missing target file",
      { argv: ["--target", "missing.yaml"], code: 2, err: /missing\.yaml: no such file/ },
    ],
    [
      "a literal secret in the target file",
      {
        argv: ["--target", "literal.yaml"],
        code: 2,
        err: /literal\.yaml has \d+ problems:\n {2}- credentials\.viewer\.clientId: literal credentials/,
      },
    ],
    [
      "a missing environment variable",
      { argv: ["--target", "refused.yaml"], code: 2, err: /environment variable T_VIEWER_ID is not set/ },
    ],
    [
      "--fault with --target",
      { argv: ["--target", "remote.yaml", "--fault", "x"], code: 2, err: /cannot be used with --target/ },
    ],
    ["an unknown fault", { argv: ["--fault", "no-such-fault"], code: 2, err: /--fault: .*no-such-fault/ }],
  ])(
    "exits 2 on usage or configuration errors, or 0 for help: %s",
    async (_name, { argv, env, code, err, out }) => {
      const got = await run(argv, env);
      expect(got.code).toBe(code);
      if (err) expect(got.err).toMatch(err);
      if (out) expect(got.out).toMatch(out);
      // A usage error is found before the run starts: no check ran, nothing was sent.
      if (code === 2) expect(got.err).not.toMatch(/checks to run/);
    },
  );

  it.each<[string, { argv: string[]; code: number; verdict: string }]>([
    // A selection is never a conformance claim: every selected check passing is PASSED (subset).
    ["a passing check", { argv: ["--check", "sample/health"], code: 0, verdict: "PASSED \\(subset\\)" }],
    [
      "a SHOULD failure",
      {
        argv: ["--check", "sample/health", "--check", "sample/should-fail"],
        code: 0,
        verdict: "PASSED \\(subset\\)",
      },
    ],
    [
      "a SHOULD failure with --fail-on should",
      {
        argv: ["--check", "sample/health", "--check", "sample/should-fail", "--fail-on", "should"],
        code: 1,
        verdict: "PASSED \\(subset\\)",
      },
    ],
    [
      "MUST checks that did not run (INCOMPLETE) with --fail-on incomplete",
      {
        argv: ["--target", "remote.yaml", "--check", "sample/writes", "--fail-on", "must,incomplete"],
        code: 1,
        verdict: "INCOMPLETE",
      },
    ],
    [
      "MUST checks that did not run (INCOMPLETE) by default",
      { argv: ["--target", "remote.yaml", "--check", "sample/writes"], code: 0, verdict: "INCOMPLETE" },
    ],
    ["a MUST failure", { argv: ["--check", "sample/must-*"], code: 1, verdict: "NOT CONFORMANT" }],
    [
      "a seeded fault of the reference",
      {
        argv: ["--check", "sample/health", "--fault", "healthcheck-not-ok"],
        code: 1,
        verdict: "NOT CONFORMANT",
      },
    ],
    [
      "a variant of the reference (a correct choice the kit tolerates)",
      {
        argv: ["--check", "sample/health", "--variant", "service-answers-extra-fields"],
        code: 0,
        verdict: "PASSED \\(subset\\)",
      },
    ],
    ["a broken check", { argv: ["--suite", "sample"], code: 3, verdict: "BROKEN" }],
  ])("exit code and verdict for %s", async (_name, { argv, code, verdict }) => {
    const got = await run([...argv, "--seed", "7", "--report-dir", "out"]);
    expect(got.code).toBe(code);
    expect(got.out).toMatch(new RegExp(`verdict: ${verdict} `));
    const folder = /report: (\S+)/.exec(got.out)?.[1] ?? "";
    for (const file of ["report.json", "junit.xml", "summary.md", "report.html"])
      expect(existsSync(join(dir, folder, file)), file).toBe(true);
    // --runs 25 at the default depth: a property draws at most 10 of them, and the start line says so.
    expect(got.err).toMatch(/seed 7, 25 runs per property \(at most 10 drawn at the default depth\)/);
    expect(readFileSync(join(dir, folder, "summary.md"), "utf8")).toMatch(
      /25 runs per property \(at most 10 drawn at the default depth\)/,
    );
  });

  it("prints one plain line per check when not on a terminal", async () => {
    const got = await run(["--check", "sample/*", "--seed", "1", "--report-dir", "out"]);
    expect(got.err).toMatch(/^\[1\/5\] passed {2}sample\/health \d+ ms$/m);
    expect(got.err).toMatch(/^\[3\/5\] FAILED {2}sample\/must-fail \d+ ms: a MUST finding$/m);
    expect(got.err).toMatch(/^\[4\/5\] BROKEN {2}sample\/broken \d+ ms: RangeError: a fault of the kit$/m);
    expect(got.out).toMatch(/replay: lckit run --check sample\/must-fail --seed 1/);
  });

  it("--list prints the plan and sends nothing, even to an unreachable target", async () => {
    const got = await run(["--target", "remote.yaml", "--list"]);
    expect(got.code).toBe(0);
    expect(got.out).toMatch(/^run {3}sample\/must-fail/m);
    expect(got.out).toMatch(/^skip {2}sample\/health .*needs credentials for role viewer/m);
    expect(got.out).toMatch(/^skip {2}sample\/writes .*safety: write checks do not run/m);
    expect(got.out).toMatch(/nothing was sent/);
  });

  it("--list plans with credential variables unset, names them, and a run without them is refused", async () => {
    writeFileSync(
      join(dir, "secrets.yaml"),
      "name: remote\nbaseUrl: https://lookup.example.com\ntenant: acme\n" +
        "credentials:\n  viewer: { clientIdEnv: LIST_VIEWER_ID, clientSecretEnv: LIST_VIEWER_SECRET }\n",
    );
    const listed = await run(["--target", "secrets.yaml", "--list"]);
    expect(listed.code).toBe(0);
    // The role is named in the file, so its checks are planned to run, as they would once it is set.
    expect(listed.out).toMatch(/^run {3}sample\/health/m);
    expect(listed.out).toMatch(
      /not set \(the run needs them, the plan does not\): LIST_VIEWER_ID, LIST_VIEWER_SECRET/,
    );
    const ran = await run(["--target", "secrets.yaml", "--check", "sample/health"]);
    expect(ran.code).toBe(2);
    expect(ran.err).toMatch(/environment variable LIST_VIEWER_ID is not set/);
  });

  it("--order-seed draws the order of the plan, the same for the same seed", async () => {
    const order = async (...extra: string[]) =>
      (await run(["--target", "remote.yaml", "--list", ...extra])).out
        .split("\n")
        .filter((line) => /^(run|skip) /.test(line));
    const given = await order();
    const drawn = await order("--order-seed", "3");
    expect(drawn).not.toEqual(given);
    expect([...drawn].sort()).toEqual([...given].sort());
    expect(await order("--order-seed", "3")).toEqual(drawn);
  });

  it.each<[string, string[]]>([
    ["--interface-document", ["--check", "sample/health", "--interface-document", "copy/spec.md"]],
    [
      "interfaceDocument: in the target file (relative to it)",
      ["--target", "copy/with-spec.yaml", "--check", "sample/writes"],
    ],
  ])("%s hashes the user's copy of the interface document into the report", async (_name, argv) => {
    mkdirSync(join(dir, "copy"), { recursive: true });
    writeFileSync(join(dir, "copy", "spec.md"), "# our copy of the interface document\n");
    writeFileSync(
      join(dir, "copy", "with-spec.yaml"),
      "name: remote\nbaseUrl: https://lookup.example.com\ntenant: acme\ninterfaceDocument: spec.md\n",
    );
    const got = await run([...argv, "--format", "json", "--report-dir", "out"]);
    const result = JSON.parse(got.out) as RunResult;
    expect(result.spec).toMatchObject({
      interfaceDocument: createHash("sha256").update("# our copy of the interface document\n").digest("hex"),
      interfaceDocumentFile: "spec.md",
    });
    // The normative basis the kit ships is always named, with or without the user's copy.
    expect(result.spec.catalogue.sha256).toBe(
      createHash("sha256")
        .update(readFileSync(join(repoRoot, "requirements", "catalogue.yaml")))
        .digest("hex"),
    );
    expect(result.spec.catalogue.requirements).toBeGreaterThan(50);
    expect(result.spec.contractVersion).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("--format json writes the run result to stdout", async () => {
    const got = await run([
      "--check",
      "sample/health",
      "--seed",
      "3",
      "--format",
      "json",
      "--report-dir",
      "out",
    ]);
    const result = JSON.parse(got.out) as { verdict: string; seed: number; runId: string };
    expect(result).toMatchObject({ verdict: "PASSED (subset)", seed: 3 });
    expect(JSON.parse(readFileSync(join(dir, "out", result.runId, "report.json"), "utf8")).runId).toBe(
      result.runId,
    );
  });

  it("certifies a live target from a file with credentials from the environment; a refused connection fails", async () => {
    const got = await run(["--target", "refused.yaml", "--check", "sample/health", "--report-dir", "out"], {
      T_VIEWER_ID: "viewer-id",
      T_VIEWER_SECRET: "viewer-secret-from-env",
    });
    expect(got.code).toBe(1);
    expect(got.err).toMatch(/POST http:\/\/127\.0\.0\.1:9\/oauth\/token failed/);
    expect(got.out).toMatch(/replay: lckit run --target refused\.yaml --check sample\/health --seed \d+/);
    const folder = /report: (\S+)/.exec(got.out)?.[1] ?? "";
    const html = readFileSync(join(dir, folder, "report.html"), "utf8");
    expect(html).not.toContain("viewer-secret-from-env");
  });
});
