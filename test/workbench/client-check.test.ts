// lckit client check on real client programs: a correct client in Node and in Python (Debian's
// python3-requests, /usr/bin/python3) passes every caller rule, and each deliberate mistake is caught by
// its own rule and by no unrelated one. Commands that make no request, are not found, hang or are killed
// end with a report and a clear exit code, never a pass.
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { packagePath } from "../../src/package-root.ts";
import { renderHtml, renderJunit, renderMarkdown, writeReport } from "../../src/report/index.ts";
import { CALLER_RULES } from "../../src/workbench/caller-rules.ts";
import { type ClientCheckRun, clientCheck } from "../../src/workbench/client-check.ts";
import { captureIo } from "../cli/capture-io.ts";
import { reportValidator } from "../report/report-schema.ts";
import { ensurePythonRequests } from "./python.ts";

const NODE_CLIENT = packagePath("examples", "clients", "lookup-client.mjs");
const PYTHON_CLIENT = packagePath("examples", "clients", "lookup_client.py");
let python = "/usr/bin/python3";

beforeAll(() => {
  python = ensurePythonRequests();
}, 300_000);

const LANGUAGES = {
  node: () => [process.execPath, NODE_CLIENT],
  python: () => [python, PYTHON_CLIENT],
} as const;

/** Each mistake of the example clients (FAULT=...) and the one rule that must catch it. */
const FAULTS: [string, string][] = [
  ["no-bearer", "client/bearer-on-every-request"],
  ["first-body", "client/scan-first-request-without-body"],
  ["wrong-scroll", "client/scan-passes-previous-scroll-id"],
  ["past-end", "client/scan-stops-at-end"],
  ["big-page", "client/page-size-within-maximum"],
  ["task-body", "client/delete-task-body"],
  ["token-per-call", "client/token-reuse"],
  ["no-backoff", "client/backoff-after-refusal"],
];

function run(argv: string[], env: Record<string, string> = {}, extra = {}): Promise<ClientCheckRun> {
  return clientCheck({
    argv,
    clientId: "nightly-sync",
    env: { ...process.env, ...env },
    timeoutMs: 60_000,
    ...extra,
  });
}

const failedIds = (r: ClientCheckRun) =>
  r.result.checks.filter((c) => c.status === "failed").map((c) => c.id);

it("every caller rule has a faulty client that proves it", () => {
  expect(FAULTS.map(([, rule]) => rule).sort()).toEqual(CALLER_RULES.map((r) => r.id).sort());
});

describe.each(Object.entries(LANGUAGES))("the %s example client", (_language, command) => {
  it("passes every caller rule, each of them judged (none skipped), exit 0", async () => {
    const r = await run(command());
    expect(r.result.checks.map((c) => [c.id, c.status])).toEqual(
      CALLER_RULES.map((rule) => [rule.id, "passed"]),
    );
    expect(r.outcome.exitCode).toBe(0);
    expect(r.exitCode).toBe(0);
    expect(r.result.verdict).toBe("CONFORMANT");
    expect(r.result.client).toMatchObject({ exitCode: 0, variant: "default", timedOut: false });
  }, 60_000);

  it.each(FAULTS)(
    "with FAULT=%s is caught by %s and by no other rule",
    async (fault, rule) => {
      const r = await run(command(), { FAULT: fault });
      expect(failedIds(r)).toEqual([rule]);
      const failed = r.result.checks.find((c) => c.id === rule);
      expect(failed?.evidence?.length).toBeGreaterThan(0);
      const level = CALLER_RULES.find((c) => c.id === rule)?.level;
      // A MUST rule broken fails the job; a SHOULD is reported and fails it only through the command's own exit.
      if (level === "MUST") expect(r.exitCode).toBe(1);
      else expect(r.exitCode).toBe(r.outcome.exitCode === 0 ? 0 : 1);
    },
    60_000,
  );
});

describe("what a report of a client check holds", () => {
  it("validates against report.schema.json, renders in every format and keeps no secret or token", async () => {
    const r = await run(LANGUAGES.node(), { FAULT: "token-per-call" });
    const text = JSON.stringify(r.result) + JSON.stringify(r.exchanges);
    expect(r.exchanges.length).toBe(r.result.requestsSent);
    expect(text).not.toContain("nightly-sync-secret");
    expect(text).not.toMatch(/Bearer (?!\[redacted\])[A-Za-z0-9_-]{8,}/);
    expect(text).not.toMatch(/Basic (?!\[redacted\])[A-Za-z0-9+/=]{8,}/);
    expect(text).toContain("[redacted]");
    const validate = reportValidator();
    expect(validate(r.result), JSON.stringify(validate.errors)).toBe(true);
    expect(renderJunit(r.result)).toContain("client/token-reuse");
    expect(renderMarkdown(r.result)).toContain("client/token-reuse");
    expect(renderHtml(r.result)).toContain("client/token-reuse");
    const written = writeReport(r.result, mkdtempSync(join(tmpdir(), "lckit-client-")));
    expect(existsSync(written.files.junit)).toBe(true);
    // Coverage: the caller requirements are proven or failing here, the provider ones are elsewhere.
    const coverage = r.result.coverage.requirements;
    expect(coverage.find((c) => c.id === "CALLER-TOKEN-01")?.status).toBe("failing");
    expect(coverage.find((c) => c.id === "CALLER-AUTH-01")?.status).toBe("proven");
    expect(coverage.find((c) => c.id === "TOKEN-STATE-01")?.status).toBe("elsewhere");
  }, 60_000);
});

describe("commands that do not get judged", () => {
  it("a command that makes no request is no pass: exit 2, naming the LCKIT_ variables", async () => {
    const r = await run([process.execPath, "-e", "process.exit(0)"]);
    expect(r.exitCode).toBe(2);
    expect(r.result.checks.every((c) => c.status === "skipped")).toBe(true);
    expect(r.result.verdictReason).toMatch(/made no request to the sandbox.*LCKIT_BASE_URL/);
    expect(r.result.verdict).not.toBe("CONFORMANT");
  });

  it("a command that is not found: exit 2 and a report saying so", async () => {
    const r = await run(["lckit-no-such-command-xyz"]);
    expect(r.exitCode).toBe(2);
    expect(r.outcome.startError).toMatch(/lckit-no-such-command-xyz: command not found/);
    expect(r.result.verdictReason).toMatch(/could not be started/);
  });

  it("a command that hangs is stopped with its whole process group at the time limit: exit 3", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lckit-hang-"));
    const pidFile = join(dir, "child.pid");
    // The command starts a grandchild that would outlive it, then waits forever.
    const script = `const { spawn } = require("node:child_process");
      const c = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
      require("node:fs").writeFileSync(${JSON.stringify(pidFile)}, String(c.pid));
      setInterval(() => {}, 1000);`;
    const r = await run([process.execPath, "-e", script], {}, { timeoutMs: 1_500 });
    expect(r.outcome.timedOut).toBe(true);
    expect(r.exitCode).toBe(3);
    expect(r.result.verdict).toBe("INTERRUPTED");
    expect(r.result.verdictReason).toMatch(/time limit; its process group was stopped/);
    const grandchild = Number(readFileSync(pidFile, "utf8"));
    let alive = true;
    for (let i = 0; i < 50 && alive; i++) {
      try {
        process.kill(grandchild, 0);
        await new Promise((resolve) => setTimeout(resolve, 100));
      } catch {
        alive = false;
      }
    }
    expect(alive).toBe(false);
  }, 30_000);

  it("a command killed by a signal: exit 3, the signal named", async () => {
    const r = await run(["/bin/sh", "-c", "kill -9 $$"]);
    expect(r.outcome.signal).toBe("SIGKILL");
    expect(r.exitCode).toBe(3);
    expect(r.result.verdictReason).toMatch(/killed by SIGKILL/);
  });
});

describe("lckit client check (CLI)", () => {
  it("prints the verdict, writes the report and exits with the run's code", async () => {
    const io = captureIo();
    const dir = mkdtempSync(join(tmpdir(), "lckit-client-cli-"));
    const code = await main(
      [
        "client",
        "check",
        "--quiet",
        "--client",
        "nightly-sync",
        "--report-dir",
        dir,
        "--",
        process.execPath,
        NODE_CLIENT,
      ],
      io,
    );
    expect(code).toBe(0);
    expect(io.stdout()).toMatch(/^CONFORMANT: /);
    // Beside the verdict, the requirements no command can check, each with why (the catalogue's notCheckable).
    expect(io.stdout()).toContain("  TOKEN-QUOTA-05 (MUST): The kit holds client_credentials clients only");
    expect(io.stderr()).toMatch(/report: /);
    const folder = /report: (\S+)/.exec(io.stderr())?.[1] ?? "";
    const lines = readFileSync(join(folder, "exchanges.ndjson"), "utf8").trim().split("\n");
    // A token, two pages of lookups and two of statistics (the default world pages at 100), blocked values,
    // a delete task, two health checks under a rate limit (the second refused, then retried).
    expect(lines.length).toBe(10);
    expect(lines.join("\n")).not.toContain("nightly-sync-secret");
  }, 60_000);

  it("proves the report folder writable before it runs the command, and lists exchanges.ndjson in the manifest", async () => {
    const io = captureIo();
    const marker = join(mkdtempSync(join(tmpdir(), "lckit-client-ran-")), "ran");
    const touch = ["-e", `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "")`];
    const refused = await main(
      ["client", "check", "--report-dir", "/proc/lckit-reports", "--", process.execPath, ...touch],
      io,
    );
    expect(refused).toBe(2);
    expect(io.stderr()).toMatch(/--report-dir \/proc\/lckit-reports is under \/proc/);
    expect(existsSync(marker)).toBe(false);

    const written = captureIo();
    const dir = mkdtempSync(join(tmpdir(), "lckit-client-manifest-"));
    await main(
      ["client", "check", "--quiet", "--report-dir", dir, "--", process.execPath, NODE_CLIENT],
      written,
    );
    const folder = /report: (\S+)/.exec(written.stderr())?.[1] ?? "";
    const manifest = JSON.parse(readFileSync(join(folder, "manifest.json"), "utf8")) as {
      files: { path: string }[];
    };
    expect(manifest.files.map((f) => f.path)).toContain("exchanges.ndjson");
  }, 60_000);

  it.each([
    [["client", "check"], /no command to run: give it after --/],
    [["client", "check", "--variants", "no-such", "--", "true"], /--variants expects all or a comma list/],
    [["client", "check", "--client", "nobody", "--", "true"], /client "nobody" is not in the sandbox's data/],
    [
      ["client", "check", "--data", "/nonexistent.yaml", "--", "true"],
      /--data \/nonexistent.yaml: cannot be read/,
    ],
  ])("refuses %j as a usage error (exit 2) naming the fix", async (argv, want) => {
    const io = captureIo();
    expect(await main(argv, io)).toBe(2);
    expect(io.stderr()).toMatch(want);
  });
});
