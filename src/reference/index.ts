// The stateful reference implementation: every endpoint of the interface document, in memory.

export {
  manualClock,
  type ReferenceClock,
  shiftableClock,
  systemClock,
  type WallClock,
} from "./clock.ts";
export type { QuotaHeldElsewhere } from "./context.ts";
export type { ClientTokens, SandboxControl, SandboxState } from "./control.ts";
export { type ControlListening, listenControl } from "./control-app.ts";
export { createReferenceCore, type ReferenceCore, type ReferenceOptions } from "./core.ts";
export { exampleEntry, loadDataFile, type ReferenceData, referenceData } from "./data-file.ts";
export { FAULTS, type FaultEntry, type FaultName, isFaultName } from "./faults.ts";
export { FixtureError } from "./fixture-world.ts";
export { DEFAULT_FIXTURES_DIR } from "./fixtures.ts";
export type { GatewayRateLimit } from "./gateway.ts";
export type { GenerateOptions } from "./generate.ts";
export { type Listening, type ListenOptions, SANDBOX_CONTROL_HEADER } from "./listen.ts";
export type { RecordedExchange } from "./recording.ts";
export { createReference, type Reference, referenceOver } from "./reference.ts";
export { type Sandbox, type SandboxOptions, startSandbox } from "./sandbox.ts";
export { SCROLL_IDLE_MS } from "./scroll.ts";
export type { ReferenceState } from "./state.ts";
export { tokensHeldElsewhere } from "./token-quota.ts";
export type * from "./types.ts";
export {
  isVariantName,
  VARIANTS,
  type VariantEntry,
  type VariantName,
  variantGroups,
} from "./variants.ts";
export {
  isSandboxWorld,
  QUOTA_HELD_ELSEWHERE_SECONDS,
  SANDBOX_WORLDS,
  type SandboxChoiceName,
  type SandboxWorldName,
  sandboxChoice,
  sandboxForWorld,
  TOKENS_EXPIRE_IN_USE,
} from "./worlds.ts";
