// One run of a selection of checks against the reference served on loopback on its own clock, reached
// directly or through a remote link (./remote-link.ts) with the kit's rate limit and the checks in an order
// drawn from the link's seed. Every run starts with a token of the quota client from before the run, valid
// for an hour, as a check that ran earlier (or an earlier run) leaves one. Shared by the remote-link tests.
import { expect } from "vitest";
import type { Target } from "../../src/check/index.ts";
import { createClient } from "../../src/client/index.ts";
import { createReference, type Listening } from "../../src/reference/index.ts";
import type { CheckResult } from "../../src/result/model.ts";
import { planRun, runPlan, systemClock } from "../../src/runner/index.ts";
import { embeddedTargetDescription } from "../../src/target/embedded.ts";
import { allChecks } from "../../suites/index.ts";
import { testSeed } from "../suites/embedded-run.ts";
import { type RemoteLink, startRemoteLink } from "./remote-link.ts";

/** The kit's rate limit over the link (requests per second), below the gateway's 20. */
export const LINK_RATE = 15;

export interface LinkRun {
  byId: Record<string, CheckResult["status"]>;
  /** The checks run, in run order. */
  order: string[];
  /** "status id: message" of every check that did not pass. */
  notPassed: string[];
  /** "id: message" of every MUST check that failed or broke. */
  mustFindings: string[];
  link: RemoteLink["counts"] | undefined;
}

/** Runs `ids` on loopback (`link` undefined) or over a link of `link.seed`; closes everything it opened. */
export async function runOverLink(
  ids: readonly string[],
  link: { seed: number } | undefined,
): Promise<LinkRun> {
  const listening: Listening = await createReference().listen({ host: "127.0.0.1", port: 0 });
  let proxy: RemoteLink | undefined;
  try {
    if (link !== undefined)
      proxy = await startRemoteLink({
        upstream: listening.baseUrl,
        seed: link.seed,
        latencyMs: { mean: 40, spread: 20 },
        gatewayRate: 20,
        spurious429: 0.03,
        dropGet: 0.1,
      });
    const url = proxy?.url ?? listening.baseUrl;
    const target: Target = { ...embeddedTargetDescription(), name: "reference", baseUrl: url, rdmUrl: url };
    // A token of the quota client from before, valid for an hour: multi-token support off returns it again.
    const client = createClient({ fetch, baseUrl: listening.baseUrl, rdmUrl: listening.rdmUrl });
    const quota = target.credentials.quota;
    if (quota === undefined) throw new Error("the embedded target names no quota client");
    expect((await client.token(quota)).data?.expires_in).toBeGreaterThan(3000);
    const plan = planRun(allChecks, {
      target,
      ids: [...ids],
      drivableClock: false,
      ...(link === undefined ? {} : { orderSeed: link.seed }),
    });
    const started = performance.now();
    const result = await runPlan(plan, {
      fetch: (request) => fetch(request),
      clock: systemClock(),
      seed: testSeed,
      runs: 2,
      ...(link === undefined ? {} : { rateLimit: LINK_RATE }),
    });
    const wallS = (performance.now() - started) / 1000;
    // Figures, not assertions: what the link did and how near the run stayed to its rate-limit floor.
    const floor =
      link === undefined ? "" : `, floor ${((result.requestsSent ?? 0) / LINK_RATE).toFixed(1)} s`;
    console.log(
      `${link === undefined ? "loopback" : `link seed ${link.seed}`}: ${result.requestsSent} requests, ` +
        `${wallS.toFixed(1)} s${floor}${proxy === undefined ? "" : `, link ${JSON.stringify(proxy.counts)}`}`,
    );
    return {
      byId: Object.fromEntries(result.checks.map((c) => [c.id, c.status])),
      order: plan.entries.filter((e) => e.action === "run").map((e) => e.check.id),
      notPassed: result.checks
        .filter((c) => c.status !== "passed")
        .map((c) => `${c.status} ${c.id}: ${c.message ?? c.reason ?? ""}`),
      mustFindings: result.checks
        .filter((c) => c.level === "MUST" && (c.status === "failed" || c.status === "broken"))
        .map((c) => `${c.id}: ${c.message ?? ""}`),
      link: proxy === undefined ? undefined : { ...proxy.counts },
    };
  } finally {
    await proxy?.close();
    await listening.close();
  }
}

/**
 * The claim of the remote-link tests: `ids` pass on loopback with no MUST finding (the token from before in
 * the way), and over a link of every seed of `seeds` each check gets the same status and the same (no) MUST
 * findings, the link misbehaved, and every run had an order of its own.
 */
export async function expectSameVerdictOverLink(
  ids: readonly string[],
  seeds: readonly number[],
  // Dropped connections are of GETs: checks that send few (token requests are POSTs) may meet none.
  { dropsExpected = true }: { dropsExpected?: boolean } = {},
): Promise<void> {
  const loopback = await runOverLink(ids, undefined);
  expect(Object.keys(loopback.byId).sort()).toEqual([...ids].sort());
  expect(loopback.notPassed).toEqual([]);
  expect(loopback.mustFindings).toEqual([]);
  const orders = new Set<string>([loopback.order.join(",")]);
  const misbehaved = { rateLimited: 0, dropped: 0 };
  // The links at once, each with a reference of its own: a run over a link mostly waits (round trips, its
  // rate limit, tokens' validity), so three of them take about as long as one.
  const remotes = await Promise.all(seeds.map((seed) => runOverLink(ids, { seed })));
  for (const [i, seed] of seeds.entries()) {
    const remote = remotes[i] as LinkRun;
    expect(remote.byId, `link seed ${seed}:\n${remote.notPassed.join("\n")}`).toEqual(loopback.byId);
    expect(remote.mustFindings, `link seed ${seed}`).toEqual(loopback.mustFindings);
    misbehaved.rateLimited += remote.link?.rateLimited ?? 0;
    misbehaved.dropped += remote.link?.dropped ?? 0;
    orders.add(remote.order.join(","));
  }
  // The link did misbehave (rate-limit answers, dropped connections the kit had to get over), and every
  // run had an order of its own.
  expect(misbehaved.rateLimited).toBeGreaterThan(0);
  if (dropsExpected) expect(misbehaved.dropped).toBeGreaterThan(0);
  expect(orders.size).toBe(seeds.length + 1);
}
