// Run results for the report's browser test and benchmark, made by the real runner and event checker: a
// full run of every check against the embedded reference with variants whose choices the kit accepts but
// does not prefer (CONFORMANT with SHOULD findings), one with seeded faults (NOT CONFORMANT), and an event
// check of the invalid event fixture.
import { readFileSync } from "node:fs";
import type { Check, Target } from "../../src/check/index.ts";
import { checkStream } from "../../src/events/judge/event-stream.ts";
import { eventRunResult } from "../../src/events/judge/run-result.ts";
import { linesAsMessages, memorySource } from "../../src/events/transport/sources/memory.ts";
import { createReference } from "../../src/reference/index.ts";
import type { RunResult } from "../../src/result/model.ts";
import { planRun } from "../../src/runner/plan.ts";
import { runPlan } from "../../src/runner/run.ts";
import { embeddedTargetDescription, startEmbeddedTarget } from "../../src/target/embedded.ts";
import { systemClock } from "../../src/target/system-clock.ts";

/** Correct choices where the document is silent that differ from the kit's preferences. */
export const FINDING_VARIANTS = [
  "quota-refusal-400",
  "missing-token-403",
  "error-body-plain-text",
  "version-as-number",
  "end-scroll-id-null",
  "limit-above-max-clamped",
];
export const FAULTS = ["quota-off-by-one", "scan-repeats-record-at-page-boundary"];

export async function embeddedRun(
  options: { variants?: string[]; faults?: string[]; runs?: number } = {},
): Promise<RunResult> {
  const { allChecks } = (await import("../../suites/index.ts")) as { allChecks: Check[] };
  const embedded = await startEmbeddedTarget({
    ...(options.variants ? { variants: options.variants } : {}),
    ...(options.faults ? { faults: options.faults } : {}),
  });
  const plan = planRun(allChecks, { target: embedded.target, drivableClock: true });
  return runPlan(plan, {
    fetch: embedded.fetch,
    clock: embedded.clock,
    seed: 7,
    runs: options.runs ?? 2,
    command: "lckit run --embedded",
  });
}

/** Made once per test file: a full run takes seconds. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make();
    return made;
  };
}
export const conformantWithFindings = once(() => embeddedRun({ variants: FINDING_VARIANTS }));
export const notConformant = once(() => embeddedRun({ faults: FAULTS }));

export async function eventCheckRun(): Promise<RunResult> {
  const text = readFileSync(new URL("../../fixtures/events/invalid.ndjson", import.meta.url), "utf8");
  const lines = text.split("\n");
  const result = await checkStream(memorySource(linesAsMessages(lines), "invalid.ndjson"));
  return eventRunResult(result, { command: "lckit events check invalid.ndjson", config: false });
}

/** A live run: the reference served on loopback with its real clock, every safety class allowed, so the
 *  runner schedules lanes and the token checks wait for real (about half a minute). */
export const liveRun = once(async (): Promise<RunResult> => {
  const { allChecks } = (await import("../../suites/index.ts")) as { allChecks: Check[] };
  const listening = await createReference().listen({ host: "127.0.0.1", port: 0 });
  try {
    const target: Target = {
      ...embeddedTargetDescription(),
      name: "reference served on loopback",
      baseUrl: listening.baseUrl,
      rdmUrl: listening.rdmUrl,
    };
    const plan = planRun(allChecks, {
      target,
      drivableClock: false,
      allow: ["write", "destructive", "quota"],
      confirmTenant: target.tenant,
    });
    return await runPlan(plan, {
      fetch: (r) => fetch(r),
      clock: systemClock(),
      seed: 7,
      runs: 2,
      command: "lckit run --target reference.yaml",
    });
  } finally {
    await listening.close();
  }
});
