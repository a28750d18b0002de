// A remote link gives the same verdict as loopback (issue 43): the reference served on loopback on its own
// clock, reached once directly and then through a proxy that adds latency each way, answers 429 with
// Retry-After like a gateway rate limit, drops connections of idempotent requests, with the kit's rate
// limit and the checks in an order drawn from another seed each time. Every run starts with a token of the
// quota client from before the run, valid for an hour, as a check that ran earlier leaves one (see
// test/support/remote-link-run.ts).
// To keep the file near two minutes it runs a selection: the checks that take the viewer's tokens, the
// delete tasks and what reads the tenant's data, and a sample of reads and of the checks that judge the
// others' traffic. The token checks (explore/tokens, token-quota/*, the expired-token checks), with
// schema/putCustomer that judges their customer writes, have a file of their own: remote-link-tokens.test.ts.
import { describe, it } from "vitest";
import { expectSameVerdictOverLink } from "../support/remote-link-run.ts";

const SELECTION = [
  "auth/token-for-client-credentials",
  "auth/viewer-can-read",
  "lookup-scan/every-record-once",
  "blocked-values/defaults",
  "blocked-values/paging-consistent",
  "service/healthcheck-ok",
  "delete-task/by-type",
  "delete-task/all-of-tenant",
  "schema/scanLookups",
  "errors/no-5xx",
];

describe("a remote link and loopback", () => {
  it("give the same verdict per check, whatever the order of the checks", { timeout: 240_000 }, async () => {
    await expectSameVerdictOverLink(SELECTION, [3, 8, 21]);
  });
});
