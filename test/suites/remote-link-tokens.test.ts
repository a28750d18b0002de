// A remote link gives the same verdict as loopback for the token checks (issue 43): the expired-token
// checks, every token-quota check and the token explorer, on loopback and over links of three seeds, each
// with the checks in an order of its own, every run starting with a token of the quota client from before
// the run, valid for an hour (see test/support/remote-link-run.ts). A correct target passes them all with
// no MUST finding, whichever check runs first and however slow the link. The quota client's token from
// before the run holds one slot: its announced expiry keeps it active through every check, so the checks
// count it (every quota one slot higher) rather than say undecided.
import { describe, it } from "vitest";
import { allChecks } from "../../suites/index.ts";
import { expectSameVerdictOverLink } from "../support/remote-link-run.ts";

/** Every token-quota check, the expired-token checks, the token explorer, and schema/putCustomer, which
 *  judges their customer writes. */
const TOKEN_CHECKS = [
  ...allChecks
    .map((check) => check.id)
    .filter(
      (id) =>
        id.startsWith("token-quota/") || id.startsWith("auth/expired-token-") || id === "explore/tokens",
    ),
  "schema/putCustomer",
];

describe("the token checks over a remote link and on loopback", () => {
  it("give the same verdict per check, whatever the order of the checks", { timeout: 600_000 }, async () => {
    // Dropped connections are proven by test/suites/remote-link.test.ts, whose reads are GETs.
    await expectSameVerdictOverLink(TOKEN_CHECKS, [3, 8, 21], { dropsExpected: false });
  });
});
