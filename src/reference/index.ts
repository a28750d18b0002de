// The stateful reference implementation: every endpoint of the interface document, in memory.
import { createReferenceCore, type ReferenceCore, type ReferenceOptions } from "./core.ts";
import { loadDataFile, referenceData } from "./data-file.ts";
import { DEFAULT_FIXTURES_DIR, type FixtureData, loadFixtures } from "./fixtures.ts";
import { type Listening, type ListenOptions, listen } from "./listen.ts";

export {
  manualClock,
  type ReferenceClock,
  shiftableClock,
  systemClock,
  type WallClock,
} from "./clock.ts";
export type { ClientTokens, SandboxControl, SandboxState } from "./control.ts";
export { type ControlListening, listenControl } from "./control-app.ts";
export { createReferenceCore, type ReferenceCore, type ReferenceOptions } from "./core.ts";
export { exampleEntry, loadDataFile, type ReferenceData, referenceData } from "./data-file.ts";
export { FAULTS, type FaultEntry, type FaultName, isFaultName } from "./faults.ts";
export { DEFAULT_FIXTURES_DIR, FixtureError } from "./fixtures.ts";
export type { GatewayRateLimit } from "./gateway.ts";
export type { GenerateOptions } from "./generate.ts";
export type { Listening, ListenOptions } from "./listen.ts";
export type { RecordedExchange } from "./recording.ts";
export { type Sandbox, type SandboxOptions, startSandbox } from "./sandbox.ts";
export { SCROLL_IDLE_MS } from "./scroll.ts";
export type { ReferenceState } from "./state.ts";
export type * from "./types.ts";
export {
  isVariantName,
  VARIANTS,
  type VariantEntry,
  type VariantName,
  variantGroups,
} from "./variants.ts";

export interface Reference extends Omit<ReferenceCore, "servers"> {
  listen(options?: ListenOptions): Promise<Listening>;
}

/** A reference over a world already loaded and validated (loadDataFile, referenceData, or one built from
 *  them): what createReference does once it has the world. */
export function referenceOver(
  world: FixtureData,
  options: Omit<ReferenceOptions, "data" | "fixturesDir"> = {},
): Reference {
  const core = createReferenceCore(world, options);
  return {
    fetch: core.fetch,
    app: core.app,
    clock: core.clock,
    // A getter: control.reset() replaces the state.
    get state() {
      return core.state;
    },
    faults: core.faults,
    variants: core.variants,
    control: core.control,
    listen: (listenOptions = {}) => listen(core.servers, listenOptions),
  };
}

export function createReference(options: ReferenceOptions = {}): Reference {
  if (options.data !== undefined && options.fixturesDir !== undefined) {
    throw new Error("data and fixturesDir: give one of them (data replaces the fixture world)");
  }
  const world =
    options.data === undefined
      ? loadFixtures(options.fixturesDir ?? DEFAULT_FIXTURES_DIR)
      : typeof options.data === "string"
        ? loadDataFile(options.data)
        : referenceData(options.data);
  return referenceOver(world, options);
}
