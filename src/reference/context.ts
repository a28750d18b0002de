// What every handler of one reference instance shares.
import type { ReferenceClock } from "./clock.ts";
import type { FaultName } from "./faults.ts";
import type { ReferenceState } from "./state.ts";
import type { VariantName } from "./variants.ts";

export interface ReferenceContext {
  readonly state: ReferenceState;
  readonly clock: ReferenceClock;
  readonly faults: ReadonlySet<FaultName>;
  /** Choices where the document is silent (see VARIANTS); none: the kit's own choices. */
  readonly variants: ReadonlySet<VariantName>;
  /** Delay before a delete task runs. */
  readonly taskDelayMs: number;
  /** A client whose quota other sessions hold when it first asks for a token (ReferenceOptions). */
  readonly quotaHeldElsewhere?: QuotaHeldElsewhere;
}

/** Other sessions of one client hold its whole quota of tokens, each valid for `seconds` from the client's
 *  first token request: the state table's "active token count at the limit" from the start. */
export interface QuotaHeldElsewhere {
  clientId: string;
  seconds: number;
}
