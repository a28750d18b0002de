// A run result with every kind of outcome and hostile text, produced by the real runner against the fake target.
import { fail, skip } from "../../src/check/index.ts";
import { planRun } from "../../src/runner/plan.ts";
import { runPlan } from "../../src/runner/run.ts";
import { systemClock } from "../../src/target/system-clock.ts";
import { check, fakeFetch, fakeTarget, ISSUED_TOKEN, SECRET } from "../runner/fake-target.ts";

export const HOSTILE = `<script>alert("x")</script> & ' " | * _ \` ]]> \u0001 \uD800 end`;

export async function sampleRun() {
  const target = fakeTarget({ loopback: false });
  const viewer = { roles: ["viewer" as const] };
  const checks = [
    check(
      "service/health",
      async (ctx) => {
        const token = await ctx.token("viewer");
        await ctx.fetch(`${ctx.target.rdmUrl}/healthcheck`, {
          headers: { authorization: `Bearer ${token}` },
        });
      },
      { needs: viewer, requirements: ["SERVICE-01"] },
    ),
    check(
      "service/echo-secret",
      async (ctx) => {
        const token = await ctx.token("viewer");
        const res = await ctx.fetch(`${ctx.target.rdmUrl}/healthcheck?access_token=${token}`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded" },
          body: `client_id=viewer-id&client_secret=${SECRET}`,
        });
        const body = await res.text();
        fail(`${HOSTILE} the target echoed ${body}; token ${token}; secret ${SECRET}`, {
          expected: `no ${ISSUED_TOKEN}`,
          actual: body,
        });
      },
      { needs: viewer, requirements: ["SERVICE-02", "NOT-IN-CATALOGUE-01"] },
    ),
    check(
      "scan/property",
      async () =>
        fail("page boundary repeats a record", {
          counterexample: {
            seed: 42,
            path: "4:2",
            value: HOSTILE,
            replay: "lckit run --check scan/property --seed 42 --path 4:2",
          },
        }),
      { level: "SHOULD", requirements: ["SCAN-04"] },
    ),
    check("scan/skips", async () => skip(`no data ${HOSTILE}`), { requirements: ["SCAN-05"] }),
    check(
      "auth/broken",
      async () => {
        throw new Error(`kit bug with ${SECRET} ${HOSTILE}`);
      },
      { requirements: ["AUTH-01"] },
    ),
    check("delete-task/unsafe", async () => {}, { safety: "destructive", requirements: ["TASK-01"] }),
  ];
  const plan = planRun(checks, { target });
  return runPlan(plan, {
    fetch: fakeFetch,
    clock: systemClock(),
    seed: 42,
    runs: 5,
    timeoutMs: 1000,
    command: "lckit run --target target.yaml",
    catalogue: {
      path: "requirements/catalogue.yaml",
      requirements: ["SERVICE-01", "SERVICE-02", "SCAN-04", "SCAN-05", "AUTH-01", "TASK-01", "EVENT-01"].map(
        (id) => ({ id, section: "S", level: "MUST", text: `text of ${id} ${HOSTILE}` }),
      ),
    },
  });
}
