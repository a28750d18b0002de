// A check may call only the operations its safety class allows (MAY_CALL over the contract's
// x-kit-safety), plus those it lists in harmlessCalls with a reason. Anything else is refused by the
// transport before it leaves the kit: a check that does more than it declares is a kit bug, and must not
// change a live system on its way to being found.
import { describe, expect, it } from "vitest";
import { type Check, MAY_CALL, SAFETY_CLASSES } from "../../src/check/index.ts";
import { loadContract } from "../../src/contract/index.ts";
import { extractOperations, OPERATION_SAFETY } from "../../src/contract/operations.ts";
import { planRun, runPlan, startEmbeddedTarget } from "../../src/runner/index.ts";
import { allChecks } from "../../suites/index.ts";
import { defineCheck } from "../../suites/support/define.ts";
import { clientOf } from "../../suites/support/target-client.ts";
import { testSeed } from "../suites/embedded-run.ts";

/** A check that reads, then writes the tenant's customer configuration: more than "read" allows. */
function writesWhileDeclaredRead(overrides: Partial<Check> = {}): Check {
  return {
    ...defineCheck({
      id: "sample/writes-while-read",
      title: "MUST be refused by the transport",
      requirements: ["CONFIG-05"],
      safety: "read",
      needs: { roles: ["admin"] },
      async run(ctx) {
        const client = clientOf(ctx);
        const token = await ctx.token("admin");
        await client.healthcheck(token);
        await client.putClients(token, "cust-acme", [
          { clientId: "lckit-should-never-exist", clientSecret: "x".repeat(12), accessTokenValidity: 60 },
        ]);
      },
    }),
    ...overrides,
  };
}

/** Runs one check against the embedded reference; `sent` lists what reached the reference. */
async function runOne(check: Check) {
  const embedded = await startEmbeddedTarget();
  const sent: string[] = [];
  const fetch = (request: Request) => {
    sent.push(`${request.method} ${new URL(request.url).pathname}`);
    return embedded.fetch(request);
  };
  const plan = planRun([check], { target: embedded.target });
  const result = await runPlan(plan, {
    target: embedded.target,
    fetch,
    clock: embedded.clock,
    seed: testSeed,
    runs: 1,
  });
  return { result, sent };
}

describe("the transport's safety guard", () => {
  it("refuses a write from a check declared read, before it reaches the target, naming the fix", async () => {
    const { result, sent } = await runOne(writesWhileDeclaredRead());
    const [check] = result.checks;
    expect(check?.status).toBe("broken");
    expect(check?.message).toContain(
      "(safety: read) tried PUT /oauth/customers/cust-acme/clients (putClients)",
    );
    expect(check?.message).toContain(
      'declare the check\'s safety "write", or list putClients in its harmlessCalls',
    );
    // The read before it went out; the write never did.
    expect(sent).toContain("GET /healthcheck");
    expect(sent.filter((line) => line.startsWith("PUT "))).toEqual([]);
  });

  it("lets the same requests through when the check declares write, or lists the call as harmless", async () => {
    for (const overrides of [
      { safety: "write" as const, changes: "configuration" as const },
      { harmlessCalls: [{ operation: "putClients", why: "a test of the guard" }] },
    ]) {
      const { result, sent } = await runOne(writesWhileDeclaredRead(overrides));
      expect(result.checks[0]?.message ?? "").not.toContain("refused");
      expect(sent).toContain("PUT /oauth/customers/cust-acme/clients");
    }
  });

  it("every harmlessCalls entry names a contract operation beyond the check's class, with a reason", () => {
    const contract = loadContract();
    const declared = allChecks.flatMap((check) =>
      (check.harmlessCalls ?? []).map((call) => ({ check, call })),
    );
    expect(declared.length).toBeGreaterThan(0);
    for (const { check, call } of declared) {
      const operation = contract.operation(call.operation);
      expect(
        MAY_CALL[check.safety],
        `${check.id}: ${call.operation} is within its class already`,
      ).not.toContain(operation.safety);
      expect(call.why.length, `${check.id}: say why ${call.operation} changes nothing`).toBeGreaterThan(20);
    }
  });

  it("every operation of the contract says its safety, one the check classes know", () => {
    for (const operation of loadContract().operations) expect(OPERATION_SAFETY).toContain(operation.safety);
    for (const safety of OPERATION_SAFETY) expect(SAFETY_CLASSES).toContain(safety);
    const document = {
      paths: {
        "/x": {
          get: { operationId: "getX", responses: {} },
          put: { operationId: "putX", "x-kit-safety": "risky" },
        },
      },
    };
    expect(() => extractOperations(document, "platform")).toThrow(
      /platform GET \/x: x-kit-safety is undefined; every operation of the contract says what calling it does/,
    );
  });
});
