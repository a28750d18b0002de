// The runner's public face: plan a run, drive it, and the targets it can drive (embedded, from a file).

export {
  EMBEDDED_URL,
  type EmbeddedOptions,
  type EmbeddedReference,
  type EmbeddedTarget,
  embeddedTargetDescription,
  type ReferenceFactory,
  startEmbeddedTarget,
} from "../target/embedded.ts";
export { lenientProfile, referenceProfile } from "../target/profile.ts";
export { REDACTED, Redactor } from "../target/redact.ts";
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
