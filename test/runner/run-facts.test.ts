// Run facts: what one check learns and later checks rely on is reached only through ctx.facts, for the
// facts a check declares; a read of a fact another check learned is said in the reader's log, and an
// undeclared one is refused naming the fix.
import { describe, expect, it } from "vitest";
import { type Check, defineFact, fail } from "../../src/check/index.ts";
import { planRun } from "../../src/runner/plan.ts";
import { runPlan } from "../../src/runner/run.ts";
import { FactStore } from "../../src/runner/run-facts.ts";
import { systemClock } from "../../src/target/system-clock.ts";
import { check, fakeFetch, fakeTarget } from "./fake-target.ts";

const encoding = defineFact<string>("sample-encoding", "the encoding the sample probe found");

async function run(checks: Check[]) {
  const result = await runPlan(planRun(checks, { target: fakeTarget() }), {
    fetch: fakeFetch,
    clock: systemClock(),
    seed: 1,
    runs: 1,
    catalogue: { path: null, requirements: [] },
  });
  return result.checks;
}

describe("run facts", () => {
  it("carry what one check learned to a later check that declares them, and the reader's log says whose", async () => {
    const [learner, reader] = await run([
      check("sample/learns", async (ctx) => ctx.facts.set(encoding, "raw-text"), { facts: [encoding] }),
      check("sample/reads", async (ctx) => fail(`saw ${ctx.facts.get(encoding)}`), { facts: [encoding] }),
    ]);
    expect(learner?.status).toBe("passed");
    expect(reader?.message).toBe("saw raw-text");
    expect(reader?.log?.join("\n")).toMatch(/run fact "sample-encoding" .* learned by sample\/learns/);
  });

  it("are empty for a check run alone: it learns for itself", async () => {
    const [alone] = await run([
      check("sample/reads", async (ctx) => fail(`saw ${ctx.facts.get(encoding)}`), { facts: [encoding] }),
    ]);
    expect(alone?.message).toBe("saw undefined");
  });

  it("refuse a check that reaches a fact it does not declare, naming the fact and the fix", async () => {
    const [undeclared] = await run([check("sample/sneaks", async (ctx) => void ctx.facts.get(encoding))]);
    expect(undeclared?.status).toBe("broken");
    expect(undeclared?.message).toMatch(/sample\/sneaks reads the run fact "sample-encoding"/);
    expect(undeclared?.message).toMatch(/add it to the check's facts/);
  });

  it("are kept per store: a second store (the second quota lane's) knows nothing of the first", () => {
    const reader = { id: "sample/x", facts: [encoding] } as unknown as Check;
    const first = new FactStore();
    first.viewFor(reader, () => {}).set(encoding, "object");
    expect(first.viewFor(reader, () => {}).get(encoding)).toBe("object");
    expect(new FactStore().viewFor(reader, () => {}).get(encoding)).toBeUndefined();
  });
});
