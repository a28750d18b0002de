// A remote link gives the same verdict as loopback for the token checks (issue 43): the expired-token
// checks, every token-quota check and the token explorer, on loopback and over links of three seeds, each
// with the checks in an order of its own, every run starting with a token of the quota client from before
// the run, valid for an hour (see test/support/remote-link-run.ts). A correct target passes them all with
// no MUST finding, whichever check runs first and however slow the link. The quota client's token from
// before the run holds one slot: its announced expiry keeps it active through every check, so the checks
// count it (every quota one slot higher) rather than say undecided.
import { describe, it } from "vitest";
import { expectSameVerdictOverLink } from "../support/remote-link-run.ts";

const TOKEN_CHECKS = [
  "auth/expired-token-refused",
  "auth/expired-token-401",
  "token-quota/single-token-reused",
  "token-quota/multitoken-config-activates",
  "token-quota/distinct-tokens-up-to-max",
  "token-quota/refusal-429",
  "token-quota/expired-token-frees-slot",
  "token-quota/raised-quota-applies",
  "token-quota/parallel-requests-never-exceed",
  "token-quota/model",
  "token-quota/quota-per-client",
  "token-quota/default-quota-200",
  "token-quota/max-above-200-refused",
  "token-quota/max-below-1-refused",
  "token-quota/validation-error-names-field",
  "token-quota/rdbms-multitoken-refused",
  "token-quota/validity-from-client-configuration",
  "explore/tokens",
  // Judges the customer writes of the checks above.
  "schema/putCustomer",
];

describe("the token checks over a remote link and on loopback", () => {
  it("give the same verdict per check, whatever the order of the checks", { timeout: 600_000 }, async () => {
    await expectSameVerdictOverLink(TOKEN_CHECKS, [3, 8, 21]);
  });
});
