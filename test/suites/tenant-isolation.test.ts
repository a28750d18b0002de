// Which tenants a client holds is the target's configuration, which the interface cannot show. The isolation
// checks hold to a refusal only the roles the target file states lack otherTenant (otherTenantLackedBy): a
// correct target whose admin client also administers the other tenant is no failure, and without the
// statement a client that gets in makes the check skip, naming the key; a stated viewer let in still fails.
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import type { CredentialRole } from "../../src/check/index.ts";
import { planRun, runPlan, startEmbeddedTarget } from "../../src/runner/index.ts";
import { parseTargetFile, TargetFileError } from "../../src/target/target-file.ts";
import { allChecks } from "../../suites/index.ts";
import { testSeed } from "./embedded-run.ts";

const ids = ["auth/other-tenant-refused", "auth/other-tenant-403"];

async function run(options: { variants?: string[]; faults?: string[]; lackedBy?: CredentialRole[] | null }) {
  const embedded = await startEmbeddedTarget({
    ...(options.variants ? { variants: options.variants } : {}),
    ...(options.faults ? { faults: options.faults } : {}),
  });
  const target = { ...embedded.target };
  if (options.lackedBy === null) delete target.otherTenantLackedBy;
  else if (options.lackedBy) target.otherTenantLackedBy = options.lackedBy;
  const plan = planRun(
    allChecks.filter((check) => ids.includes(check.id)),
    { target, drivableClock: true },
  );
  const result = await runPlan(plan, {
    fetch: embedded.fetch,
    clock: embedded.clock,
    seed: testSeed,
    runs: 2,
  });
  return Object.fromEntries(result.checks.map((c) => [c.id, `${c.status}: ${c.message ?? c.reason ?? ""}`]));
}

describe("tenant isolation rests on what the target file states about its clients", () => {
  it("accepts an admin client that also administers the other tenant when the file says so", async () => {
    const got = await run({ variants: ["admin-administers-other-tenant"] });
    expect(got["auth/other-tenant-refused"]).toBe("passed: ");
    expect(got["auth/other-tenant-403"]).toBe("passed: ");
  });

  it("is undecided, naming otherTenantLackedBy, when a client whose access is not stated gets in", async () => {
    const got = await run({ variants: ["admin-administers-other-tenant"], lackedBy: null });
    expect(got["auth/other-tenant-refused"]).toMatch(/^inconclusive: .*admin on .*otherTenantLackedBy/);
    // The viewer is refused: a refusal needs no statement.
    expect(got["auth/other-tenant-403"]).toBe("passed: ");
  });

  it("fails when a client stated to lack the other tenant gets in", async () => {
    const got = await run({ faults: ["cross-tenant-read"] });
    expect(got["auth/other-tenant-refused"]).toMatch(/^failed: viewer on /);
    expect(got["auth/other-tenant-403"]).toMatch(/^failed: viewer on /);
  });

  it("fails a stated admin that gets in (the file says it lacks the tenant)", async () => {
    const got = await run({ variants: ["admin-administers-other-tenant"], lackedBy: ["admin", "viewer"] });
    expect(got["auth/other-tenant-refused"]).toMatch(/^failed: admin on /);
  });
});

describe("a delete task's other-tenant comparison rests on what otherAdmin can read", () => {
  it("leaves the other tenant unjudged when credentials.otherAdmin cannot read it", async () => {
    const embedded = await startEmbeddedTarget();
    const viewer = embedded.target.credentials.viewer;
    // A mis-described file: the otherAdmin role names a client of the first tenant.
    const target = {
      ...embedded.target,
      credentials: { ...embedded.target.credentials, ...(viewer ? { otherAdmin: viewer } : {}) },
    };
    const plan = planRun(allChecks, { target, drivableClock: true, suites: ["delete-task"] });
    const result = await runPlan(plan, {
      fetch: embedded.fetch,
      clock: embedded.clock,
      seed: testSeed,
      runs: 2,
    });
    const findings = result.checks.filter((c) => c.status === "failed" || c.status === "broken");
    expect(findings.map((c) => `${c.status} ${c.id}: ${c.message}`)).toEqual([]);
    expect(result.checks.filter((c) => c.status === "passed").length).toBeGreaterThan(3);
  });
});

describe("otherTenantLackedBy in a target file", () => {
  const file = {
    name: "staging",
    baseUrl: "https://auth.example.com",
    tenant: "acme",
    otherTenant: "globex",
  };

  it("reads the roles into the target", () => {
    const config = parseTargetFile(
      stringify({ ...file, otherTenantLackedBy: ["viewer", "editor"] }),
      "target.yaml",
      {},
    );
    expect(config.target.otherTenantLackedBy).toEqual(["viewer", "editor"]);
  });

  it("refuses a name that is no role, naming the key", () => {
    const parse = () =>
      parseTargetFile(stringify({ ...file, otherTenantLackedBy: ["reader"] }), "target.yaml", {});
    expect(parse).toThrow(TargetFileError);
    expect(parse).toThrow(/otherTenantLackedBy/);
  });
});
