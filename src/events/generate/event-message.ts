// A generated event message and what the arbitraries draw it from: the types arbitraries.ts and
// mutations.ts both speak, below both (mutations.ts is re-exported by arbitraries.ts, so neither may import
// the other for them).
import type { PayloadKind } from "../payload-kind.ts";

/** One message in the kit's envelope form (an NDJSON line is JSON.stringify of it). */
export interface EventMessage {
  headers: Record<string, unknown>;
  payload: Record<string, unknown>;
}

export interface MessageFilter {
  /** Event types to draw from (default: every type of the document's table, GROUP_* excluded). */
  types?: readonly string[];
  /** Payload kinds to draw from (default: all that apply to the type). */
  kinds?: readonly PayloadKind[];
  /** Whether the objectVersion header is sent (default: sometimes). */
  objectVersion?: "always" | "never" | "sometimes";
  /**
   * "any" (default): every shape the document allows, also where the kit has a preference (deltas as a
   * delta message, a bare delta collection or another object; fallbacks whose URI travels only in the
   * sourceObjectUri header; deeply nested and reference attribute values). "preferred": the kit's
   * preferred shapes only, for mutations that edit one of their fields.
   */
  shapes?: "any" | "preferred";
}
