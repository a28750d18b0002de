// The runner's public face: plan a run and drive it. Targets have their own folder (src/target); the few
// target things re-exported here are what the suites' tests start a run with.

export { startEmbeddedTarget } from "../target/embedded.ts";
export { lenientProfile, referenceProfile } from "../target/profile.ts";
export { systemClock } from "../target/system-clock.ts";
export { type CheckSession, createCheckContext, type RunServices, shellQuote } from "./context.ts";
export { matchesId } from "./glob.ts";
export {
  type Plan,
  type PlanEntry,
  type PlanOptions,
  planRun,
  runnable,
  type SkipKind,
  selected,
} from "./plan.ts";
export {
  DEFAULT_CHECK_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type ProgressEvent,
  type RunDeps,
  runPlan,
} from "./run.ts";
