// The events-check and client-check sessions below the CLI: each takes a request and returns its result,
// what the exit policy reads, and the report folder it wrote; problems the user can fix are UserInputErrors.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { runClientSession } from "../../src/commands/client/session.ts";
import { packagePath } from "../../src/package-root.ts";
import { exitCodeOf } from "../../src/result/verdict.ts";
import { runEventsCheck } from "../../src/session/events-check.ts";
import { UsageError, UserInputError } from "../../src/usage-error.ts";

const tmp = mkdtempSync(join(tmpdir(), "lckit-sessions-"));
const client = packagePath("examples", "clients", "lookup-client.mjs");

describe("the events-check session", () => {
  it("returns the checker's result, the run result and the report folder with events.ndjson", async () => {
    const outcome = await runEventsCheck({
      cwd: tmp,
      source: packagePath("fixtures", "events", "invalid.ndjson"),
      reportDir: "events-reports",
      command: "lckit events check invalid.ndjson",
    });
    expect(outcome.result.invalid).toBeGreaterThan(0);
    expect(outcome.run.verdict).toBe("NOT CONFORMANT");
    expect(exitCodeOf(outcome.run)).toBe(1);
    expect(outcome.dir).toBe(join(tmp, "events-reports", outcome.run.runId));
    expect(readdirSync(outcome.dir as string)).toEqual(
      expect.arrayContaining(["report.json", "ctrf.json", "events.ndjson", "manifest.json"]),
    );
  });

  it("writes no folder without a report dir, and refuses a key with nothing to sign", async () => {
    const source = packagePath("fixtures", "events", "valid", "stream.ndjson");
    const outcome = await runEventsCheck({ cwd: tmp, source, command: "lckit events check" });
    expect(outcome.dir).toBeUndefined();
    expect(exitCodeOf(outcome.run)).toBe(0);
    await expect(runEventsCheck({ cwd: tmp, source, signKey: "k.pem", command: "c" })).rejects.toThrow(
      UsageError,
    );
    // A missing file is the user's input: a UserInputError, which the CLI turns into exit 2.
    await expect(
      runEventsCheck({ cwd: tmp, source: join(tmp, "missing.ndjson"), command: "c" }),
    ).rejects.toThrow(UserInputError);
  });

  it.each([
    ["after messages came", true],
    ["while the source waits for its first message", false],
  ])("a stop signal %s ends the reading: INTERRUPTED, exit 4, what was read judged", async (_when, feed) => {
    // stdin that never ends, as a quiet producer or a pipe left open: only the stop can end the check.
    const stdin = new PassThrough();
    const stopper = new AbortController();
    if (feed) stdin.write(readFileSync(packagePath("fixtures", "events", "invalid.ndjson")));
    else stopper.abort("SIGINT");
    const outcome = await runEventsCheck(
      { cwd: tmp, source: "-", read: { stdin }, signal: stopper.signal, command: "lckit events check -" },
      // The first problem proves a message was read and judged: the stop comes then, not after a delay.
      { onProblem: () => stopper.abort("SIGTERM") },
    );
    expect(outcome.run.verdict).toBe("INTERRUPTED");
    expect(outcome.run.interruption?.cause).toBe(feed ? "SIGTERM" : "SIGINT");
    expect(exitCodeOf(outcome.run)).toBe(4);
    if (feed) {
      expect(outcome.result.total).toBeGreaterThan(0);
      expect(outcome.result.invalid).toBeGreaterThan(0);
    } else expect(outcome.result.total).toBe(0);
  });
});

describe("the client-check session", () => {
  const request = {
    cwd: tmp,
    env: process.env,
    command: [process.execPath, client],
    timeoutMs: 60_000,
    failOn: ["must", "inconclusive"] as const,
  };

  it("runs the command once and writes its report folder with the exchanges", async () => {
    const outcome = await runClientSession({ ...request, reportDir: "client-reports" });
    expect(outcome.exitCode).toBe(0);
    if (outcome.kind !== "single") throw new Error("one run expected");
    expect(outcome.run.result.requestsSent).toBeGreaterThan(0);
    expect(existsSync(join(outcome.folder, "exchanges.ndjson"))).toBe(true);
    expect(existsSync(join(outcome.folder, "manifest.json"))).toBe(true);
  });

  it("a sweep writes a folder per choice and the sweep's own files", async () => {
    const started: number[] = [];
    const outcome = await runClientSession(
      { ...request, reportDir: "sweep-reports", variants: [undefined, "short-pages"], parallel: 2 },
      { onStart: (total) => started.push(total) },
    );
    expect(started).toEqual([2]);
    expect(outcome.exitCode).toBe(0);
    if (outcome.kind !== "sweep") throw new Error("a sweep expected");
    expect(outcome.document.choices).toBe(2);
    expect(readdirSync(outcome.folder).sort()).toEqual(
      ["default", "junit.xml", "short-pages", "summary.md", "sweep.json"].sort(),
    );
  });

  it("an unknown client is a UsageError", async () => {
    await expect(
      runClientSession({ ...request, reportDir: "client-reports", clientId: "nobody" }),
    ).rejects.toThrow(/client "nobody" is not in the sandbox's data/);
  });
});
