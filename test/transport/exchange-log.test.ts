// The schema suite judges the traffic of the checks before it, out of the run's exchange log. A target
// whose first answer of an operation is malformed and every later one fine must still be caught: the log
// keeps each kind's first answers beside its newest. A target whose answers are all fine passes. The
// schema check cites the traffic it judged and shows the answer at fault as its evidence.
import { describe, expect, it } from "vitest";
import type { Check } from "../../src/check/index.ts";
import { planRun } from "../../src/runner/plan.ts";
import { runPlan } from "../../src/runner/run.ts";
import { startEmbeddedTarget } from "../../src/target/embedded.ts";
import { PER_KIND } from "../../src/transport/exchange-log.ts";
import { schemaChecks } from "../../suites/schema.ts";
import { check } from "../runner/fake-target.ts";

const healthSchema = schemaChecks.find((c) => c.id === "schema/getHealthcheck") as Check;

/** Reads the health endpoint many more times than the log keeps newest answers of one kind. */
const reader = check("sample/reads-health", async (ctx) => {
  const token = await ctx.token("viewer");
  for (let i = 0; i < 4 * PER_KIND; i++)
    await ctx.fetch(`${ctx.target.rdmUrl}/healthcheck`, { headers: { authorization: `Bearer ${token}` } });
});

async function run(malformFirst: boolean) {
  const embedded = await startEmbeddedTarget();
  let healthAnswers = 0;
  const fetch = async (request: Request) => {
    const response = await embedded.fetch(request);
    if (new URL(request.url).pathname !== "/healthcheck" || response.status !== 200) return response;
    healthAnswers += 1;
    // The first answer breaks the contract (status must be a string); every later one is as it should be.
    return malformFirst && healthAnswers === 1 ? Response.json({ status: 42 }, { status: 200 }) : response;
  };
  const plan = planRun([reader, healthSchema], { target: embedded.target });
  const result = await runPlan(plan, {
    fetch,
    clock: embedded.clock,
    seed: 1,
    runs: 1,
    catalogue: { path: null, requirements: [] },
  });
  return result.checks.find((c) => c.id === healthSchema.id);
}

describe("the exchange log keeps each kind's first answers for the schema suite", () => {
  it("an early malformed answer, followed by many good ones, fails the schema check", async () => {
    const judged = await run(true);
    expect(judged?.status).toBe("failed");
    expect(judged?.message).toMatch(/\/status/);
    // It cites the traffic it judged (another check sent it), and its evidence is the answer at fault.
    expect(judged?.requests).toBe(0);
    expect(judged?.exchangeIds?.length).toBeGreaterThan(PER_KIND);
    expect(judged?.evidence?.map((x) => x.response?.body)).toEqual(['{"status":42}']);
    expect(judged?.exchangeIds).toContain(judged?.evidence?.[0]?.id);
  });

  it("a target whose answers are all fine passes", async () => {
    expect((await run(false))?.status).toBe("passed");
  });
});
