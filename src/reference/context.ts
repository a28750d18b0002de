// What every handler of one reference instance shares.
import type { ReferenceClock } from "./clock.ts";
import type { FaultName } from "./faults.ts";
import type { ReferenceState } from "./state.ts";

export interface ReferenceContext {
  readonly state: ReferenceState;
  readonly clock: ReferenceClock;
  readonly faults: ReadonlySet<FaultName>;
  /** Delay before a delete task runs. */
  readonly taskDelayMs: number;
}
