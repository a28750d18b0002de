// The one sweep of both command checks (client: provider choices; consumer: producer choices): runs in the
// order of the choices, no more at once than asked, no new choice after a stop request, each choice's
// output kept, and the worst exit code.
import { describe, expect, it } from "vitest";
import { OUTPUT_KEPT_CHARS, OutputLog, runSweep } from "../../src/commands/sweep.ts";
import type { ExitCode } from "../../src/result/verdict.ts";

const entry = (choice: string, run: { exitCode: ExitCode }, output: string) => ({ choice, run, output });

describe("runSweep", () => {
  it.each<[string, ExitCode[], ExitCode]>([
    ["every choice passes", [0, 0, 0], 0],
    ["a MUST failure under one choice", [0, 1, 0], 1],
    ["a hang beats a failure", [1, 3, 2], 3],
    ["an interruption beats everything", [3, 4, 1], 4],
  ])("%s: the sweep exits with its worst run", async (_name, codes, worst) => {
    const choices = codes.map((_, i) => `c${i}`);
    const sweep = await runSweep(
      choices,
      { parallel: 2 },
      async (choice, output) => {
        output(`ran ${choice}`);
        return { exitCode: codes[Number(choice.slice(1))] as ExitCode };
      },
      entry,
    );
    expect(sweep.exitCode).toBe(worst);
    expect(sweep.runs.map((r) => [r.choice, r.output])).toEqual(choices.map((c) => [c, `ran ${c}`]));
    expect(sweep.passed).toBe(codes.filter((c) => c === 0).length);
  });

  it("runs no more choices at once than asked, and reports each as it finishes", async () => {
    let running = 0;
    let most = 0;
    const finished: number[] = [];
    await runSweep(
      ["a", "b", "c", "d", "e"],
      { parallel: 2, onFinished: (_entry, done) => finished.push(done) },
      async () => {
        running += 1;
        most = Math.max(most, running);
        await Promise.resolve();
        running -= 1;
        return { exitCode: 0 as ExitCode };
      },
      entry,
    );
    expect(most).toBe(2);
    expect(finished).toEqual([1, 2, 3, 4, 5]);
  });

  it("starts no choice after a stop request; what finished is kept", async () => {
    const stop = new AbortController();
    const sweep = await runSweep(
      ["a", "b", "c"],
      { parallel: 1, signal: stop.signal },
      async (choice) => {
        if (choice === "a") stop.abort("SIGINT");
        return { exitCode: 4 as ExitCode };
      },
      entry,
    );
    expect(sweep.runs.map((r) => r.choice)).toEqual(["a"]);
    expect(sweep.exitCode).toBe(4);
  });

  it("keeps the tail of a very long output and says how much went", () => {
    const log = new OutputLog();
    log.add("head\n");
    log.add("x".repeat(OUTPUT_KEPT_CHARS - 5));
    log.add("tail\n");
    const text = log.text();
    expect(text).toMatch(/^\[5 earlier characters of output not kept\]\n/);
    expect(text.endsWith("tail\n")).toBe(true);
  });
});
