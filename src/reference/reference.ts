// A reference to run: the in-memory core over a world (the fixtures, a data file or a document) with a
// listen() that serves it on loopback. The index re-exports it; startSandbox builds on it.
import { createReferenceCore, type ReferenceCore, type ReferenceOptions } from "./core.ts";
import { loadDataFile, referenceData } from "./data-file.ts";
import type { FixtureData } from "./fixture-world.ts";
import { DEFAULT_FIXTURES_DIR, loadFixtures } from "./fixtures.ts";
import { type Listening, type ListenOptions, listen } from "./listen.ts";

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
