// Target profiles: what the kit assumes where the interface document is silent (docs/assumptions.md).
import type { Profile } from "../check/index.ts";

/** Accepts every reasonable behaviour; "auto" lets safe probes detect the target's choice. */
export const lenientProfile: Profile = {
  scrollIdEncoding: "auto",
  quotaRefusalStatus: "any-4xx",
  expiredTokenStatus: "401-or-403",
  validationErrorStatus: "400-or-422",
  clampsLimit: "auto",
};

/** The kit's own choices, which the reference implementation follows exactly. */
export const referenceProfile: Profile = {
  scrollIdEncoding: "object",
  quotaRefusalStatus: 429,
  expiredTokenStatus: 401,
  validationErrorStatus: 400,
  clampsLimit: false,
};
