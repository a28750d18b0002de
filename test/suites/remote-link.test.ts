// A remote link gives the same verdict as loopback (issue 43): the reference served on loopback on its own
// clock, reached once directly and then through a proxy that adds latency each way, answers 429 with
// Retry-After like a gateway rate limit, drops connections of idempotent requests, with the kit's rate
// limit and the checks in an order drawn from another seed each time. Every run starts with a token of the
// quota client from before the run, valid for an hour, as a check that ran earlier leaves one.
// To keep the file near two minutes it runs a selection: the checks the ordering bug touched (the expired-
// token checks, the checks that take the quota client's or the viewer's tokens, the delete tasks and what
// reads the tenant's data) and a sample of reads and of the checks that judge the others' traffic. Not
// token-quota/quota-per-client: it needs the quota client's one slot, which the token from before holds
// for an hour; it says so (undecided), and test/runner/check-order.test.ts holds it to one verdict.
import { afterEach, describe, expect, it } from "vitest";
import type { Target } from "../../src/check/index.ts";
import { createClient } from "../../src/client/index.ts";
import { createReference, type Listening } from "../../src/reference/index.ts";
import { planRun, runPlan, systemClock } from "../../src/runner/index.ts";
import { embeddedTargetDescription } from "../../src/target/embedded.ts";
import { allChecks } from "../../suites/index.ts";
import { type RemoteLink, startRemoteLink } from "../support/remote-link.ts";
import { testSeed } from "./embedded-run.ts";

const SELECTION = [
  "auth/expired-token-refused",
  "auth/expired-token-401",
  "auth/token-for-client-credentials",
  "auth/viewer-can-read",
  "token-quota/single-token-reused",
  "token-quota/multitoken-config-activates",
  "lookup-scan/every-record-once",
  "blocked-values/defaults",
  "blocked-values/paging-consistent",
  "service/healthcheck-ok",
  "delete-task/by-type",
  "delete-task/all-of-tenant",
  "schema/scanLookups",
  "schema/putCustomer",
  "errors/no-5xx",
];

/** The kit's rate limit over the link (requests per second), below the gateway's 20. */
const RATE = 15;

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

async function statuses(link: { seed: number } | undefined) {
  const listening: Listening = await createReference().listen({ host: "127.0.0.1", port: 0 });
  open.push(listening);
  let proxy: RemoteLink | undefined;
  if (link !== undefined) {
    proxy = await startRemoteLink({
      upstream: listening.baseUrl,
      seed: link.seed,
      latencyMs: { mean: 40, spread: 20 },
      gatewayRate: 20,
      spurious429: 0.03,
      dropGet: 0.1,
    });
    open.push(proxy);
  }
  const url = proxy?.url ?? listening.baseUrl;
  const target: Target = { ...embeddedTargetDescription(), name: "reference", baseUrl: url, rdmUrl: url };
  // A token of the quota client from before, valid for an hour: multi-token support off returns it again.
  const client = createClient({ fetch, baseUrl: listening.baseUrl, rdmUrl: listening.rdmUrl });
  const quota = target.credentials.quota;
  if (quota === undefined) throw new Error("the embedded target names no quota client");
  expect((await client.token(quota)).data?.expires_in).toBeGreaterThan(3000);
  const plan = planRun(allChecks, {
    target,
    ids: SELECTION,
    drivableClock: false,
    ...(link === undefined ? {} : { orderSeed: link.seed }),
  });
  const started = performance.now();
  const result = await runPlan(plan, {
    fetch: (request) => fetch(request),
    clock: systemClock(),
    seed: testSeed,
    runs: 2,
    ...(link === undefined ? {} : { rateLimit: RATE }),
  });
  const wallS = (performance.now() - started) / 1000;
  // Figures, not assertions: what the link did and how near the run stayed to its rate-limit floor.
  console.log(
    `${link === undefined ? "loopback" : `link seed ${link.seed}`}: ${result.requestsSent} requests, ` +
      `${wallS.toFixed(1)} s${link === undefined ? "" : `, floor ${(result.requestsSent / RATE).toFixed(1)} s`}` +
      (proxy === undefined ? "" : `, link ${JSON.stringify(proxy.counts)}`),
  );
  return {
    byId: Object.fromEntries(result.checks.map((c) => [c.id, c.status])),
    order: plan.entries.filter((e) => e.action === "run").map((e) => e.check.id),
    notPassed: result.checks
      .filter((c) => c.status !== "passed")
      .map((c) => `${c.status} ${c.id}: ${c.message ?? c.reason ?? ""}`),
    link: proxy?.counts,
  };
}

describe("a remote link and loopback", () => {
  it("give the same verdict per check, whatever the order of the checks", { timeout: 240_000 }, async () => {
    const loopback = await statuses(undefined);
    expect(Object.keys(loopback.byId).sort()).toEqual([...SELECTION].sort());
    // The checks the ordering bug touched pass on loopback, with the token from before in the way.
    expect(loopback.notPassed).toEqual([]);
    const orders = new Set<string>([loopback.order.join(",")]);
    const misbehaved = { rateLimited: 0, dropped: 0 };
    for (const seed of [3, 8, 21]) {
      const remote = await statuses({ seed });
      expect(remote.byId, `link seed ${seed}:\n${remote.notPassed.join("\n")}`).toEqual(loopback.byId);
      misbehaved.rateLimited += remote.link?.rateLimited ?? 0;
      misbehaved.dropped += remote.link?.dropped ?? 0;
      orders.add(remote.order.join(","));
    }
    // The link did misbehave (rate-limit answers, dropped connections the kit had to get over), and every
    // run had an order of its own.
    expect(misbehaved.rateLimited).toBeGreaterThan(0);
    expect(misbehaved.dropped).toBeGreaterThan(0);
    expect(orders.size).toBe(4);
  });
});
