// The real CLI against a target that misbehaves on purpose (one mode per case): the run must finish with a
// report in every format, leak no form of any secret into any output, and reach the right verdict.
import { afterEach, describe, expect, it } from "vitest";
import { type HostileMode, type HostileServer, startHostileServer } from "./hostile-server.ts";
import { type CliRun, hostileSecrets, runCli } from "./run-cli.ts";
import { leaksIn } from "./secret-forms.ts";

/** A small heap: the run must survive 50 MB answers and endless fat scans within it. */
const SMALL_HEAP = ["--max-old-space-size=256"];
const RSS_BOUND_KB = 600 * 1024;

interface Case {
  args: string[];
  verdict: "PASSED (subset)" | "NOT CONFORMANT";
  smallHeap?: boolean;
  verify?: (run: CliRun, server: HostileServer) => void;
}

const service = ["--check", "service/*"];

const cases: Record<Exclude<HostileMode, "proxy">, Case> = {
  hang: { args: service, verdict: "NOT CONFORMANT" },
  stall: { args: service, verdict: "NOT CONFORMANT" },
  trickle: { args: service, verdict: "NOT CONFORMANT" },
  reset: { args: service, verdict: "NOT CONFORMANT" },
  garbage: { args: [...service, "--check", "lookup-scan/record-fields"], verdict: "NOT CONFORMANT" },
  // Every read check: an HTML page must never pass as an answer.
  html: { args: ["--level", "MUST"], verdict: "NOT CONFORMANT" },
  huge: {
    args: [...service, "--check", "lookup-scan/every-record-once"],
    verdict: "NOT CONFORMANT",
    smallHeap: true,
    verify: (run) => expect(JSON.stringify(run.report)).toContain("maxResponseBytes"),
  },
  endless: { args: ["--check", "lookup-scan/scan-ends"], verdict: "NOT CONFORMANT" },
  "fat-endless": {
    args: ["--check", "lookup-scan/scan-ends", "--check", "lookup-scan/every-record-once"],
    verdict: "NOT CONFORMANT",
    smallHeap: true,
  },
  redirect: {
    args: service,
    verdict: "NOT CONFORMANT",
    verify: (run, server) => {
      expect(server.elsewhere.hits).toEqual([]);
      expect(JSON.stringify(run.report)).toContain("redirect to another origin");
    },
  },
  "echo-credentials": {
    args: [...service, "--check", "auth/token-*", "--check", "errors/no-5xx"],
    verdict: "NOT CONFORMANT",
    verify: (run) => {
      // The echo did reach the report (so the leak check below is not vacuous), redacted.
      const failed = run.report?.checks.find((c) => c.id === "service/healthcheck-ok");
      expect(failed?.status).toBe("failed");
      expect(JSON.stringify(failed?.evidence)).toContain("debug");
      expect(JSON.stringify(failed?.evidence)).toContain("[redacted]");
    },
  },
  "500": { args: service, verdict: "NOT CONFORMANT" },
  "429": {
    args: [...service, "--check", "blocked-values/*"],
    verdict: "PASSED (subset)",
    verify: (_run, server) => expect(server.rateLimited()).toBeGreaterThan(3),
  },
  "reset-once": {
    args: service,
    verdict: "PASSED (subset)",
    // Each GET path was reset once and answered on the retry.
    verify: (_run, server) => expect(server.resets()).toBeGreaterThanOrEqual(3),
  },
};

describe("the CLI against a hostile target", () => {
  let server: HostileServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it.each(Object.entries(cases))(
    "%s",
    async (mode, c) => {
      server = await startHostileServer(mode as HostileMode);
      const run = await runCli(server.url, {
        args: ["--runs", "2", ...c.args],
        ...(c.smallHeap ? { nodeFlags: SMALL_HEAP } : {}),
      });
      const context = `stderr: ${run.stderr.slice(-2000)}`;
      expect(run.code, context).toBe(c.verdict === "PASSED (subset)" ? 0 : 1);
      expect(run.report?.verdict, context).toBe(c.verdict);
      const names = [...run.files.keys()].map((f) => f.replace(/^[^/]+\//, "")).sort();
      expect(names).toEqual(
        expect.arrayContaining(["junit.xml", "report.html", "report.json", "summary.md"]),
      );
      const secrets = hostileSecrets(server.tokens);
      const outputs: [string, string][] = [["stdout", run.stdout], ["stderr", run.stderr], ...run.files];
      const leaks = outputs.flatMap(([name, text]) =>
        leaksIn(text, secrets).map((form) => `${name}: ${form}`),
      );
      expect(leaks).toEqual([]);
      if (c.smallHeap) expect(run.peakRssKb ?? Number.POSITIVE_INFINITY).toBeLessThan(RSS_BOUND_KB);
      c.verify?.(run, server);
    },
    90_000,
  );
});
