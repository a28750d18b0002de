import { describe, expect, it } from "vitest";
import type { Check, Safety } from "../../src/check/index.ts";
import { type PlanOptions, planRun } from "../../src/runner/plan.ts";
import { check, fakeTarget } from "./fake-target.ts";

const noop = async () => {};
const checks: Check[] = [
  check("schema/responses-match", noop, { readsOthersTraffic: true }),
  check("service/health", noop),
  check("service/version", noop, { level: "SHOULD" }),
  check("config/quota-update", noop, { safety: "write", needs: { roles: ["admin"] } }),
  check("delete-task/by-type", noop, { safety: "destructive", needs: { roles: ["viewer"] } }),
  check("token-quota/exhaust", noop, { safety: "quota", needs: { roles: ["viewer"] } }),
  check("auth/isolation", noop, { level: "MAY", needs: { roles: ["viewer"], otherTenant: true } }),
  check("token-state/expiry", noop, { needs: { roles: ["viewer"], drivableClock: true } }),
  check("config/rdbms", noop, { needs: { roles: [], rdbmsTenant: true } }),
];

const live = fakeTarget({ loopback: false, baseUrl: "https://lookup.example.com" });

function actions(options: Partial<PlanOptions>) {
  const plan = planRun(checks, { target: live, ...options });
  return Object.fromEntries(plan.entries.map((e) => [e.check.id, e.skipKind ?? e.action]));
}

describe("planRun", () => {
  it("lists every check in plan order, destructive checks after the others, those reading the others' traffic last", () => {
    const plan = planRun(checks, { target: fakeTarget() });
    expect(plan.entries.map((e) => e.check.id)).toEqual([
      ...checks
        .slice(1)
        .filter((c) => c.safety !== "destructive")
        .map((c) => c.id),
      "delete-task/by-type",
      "schema/responses-match",
    ]);
  });

  it("orders by what a check declares, not by its suite's name", () => {
    const plan = planRun(
      [
        check("audit/traffic", noop, { readsOthersTraffic: true }),
        check("schema/one-request", noop),
        check("service/health", noop),
      ],
      { target: fakeTarget() },
    );
    expect(plan.entries.map((e) => e.check.id)).toEqual([
      "schema/one-request",
      "service/health",
      "audit/traffic",
    ]);
  });

  it.each<[string, { given: Partial<PlanOptions>; run: string[] }]>([
    ["suite", { given: { suites: ["service"] }, run: ["service/health", "service/version"] }],
    ["exact id", { given: { ids: ["service/version"] }, run: ["service/version"] }],
    ["glob id", { given: { ids: ["service/*"] }, run: ["service/health", "service/version"] }],
    ["question-mark glob", { given: { ids: ["service/healt?"] }, run: ["service/health"] }],
    [
      "level MUST",
      {
        given: { level: "MUST", suites: ["service", "auth"] },
        run: ["service/health"],
      },
    ],
    [
      "level SHOULD keeps MUST and SHOULD",
      { given: { level: "SHOULD", suites: ["service", "auth"] }, run: ["service/health", "service/version"] },
    ],
  ])("selects by %s", (_name, { given, run }) => {
    const plan = planRun(checks, { target: fakeTarget({ otherTenant: "globex" }), ...given });
    expect(plan.entries.filter((e) => e.action === "run").map((e) => e.check.id)).toEqual(run);
    expect(plan.entries).toHaveLength(checks.length);
  });

  it("reports suites and id patterns that match nothing", () => {
    const plan = planRun(checks, { target: fakeTarget(), suites: ["nope"], ids: ["x/*", "service/health"] });
    expect(plan.unmatched).toEqual({ suites: ["nope"], ids: ["x/*"] });
  });

  it.each<[string, { allow: Safety[]; confirmTenant?: string; want: Record<string, string> }]>([
    [
      "nothing allowed: read only",
      {
        allow: [],
        want: {
          "config/quota-update": "safety",
          "delete-task/by-type": "safety",
          "token-quota/exhaust": "safety",
          "service/health": "run",
        },
      },
    ],
    [
      "destructive allowed but tenant not confirmed",
      {
        allow: ["destructive"],
        want: { "delete-task/by-type": "safety", "token-quota/exhaust": "safety" },
      },
    ],
    [
      "destructive allowed, wrong tenant confirmed",
      { allow: ["destructive"], confirmTenant: "globex", want: { "delete-task/by-type": "safety" } },
    ],
    [
      "destructive allowed and tenant confirmed",
      {
        allow: ["destructive", "quota"],
        confirmTenant: "acme",
        want: { "delete-task/by-type": "run", "token-quota/exhaust": "run" },
      },
    ],
  ])("non-loopback safety: %s", (_name, { allow, confirmTenant, want }) => {
    const got = actions({ allow, ...(confirmTenant ? { confirmTenant } : {}) });
    for (const [id, action] of Object.entries(want)) expect(got[id], id).toBe(action);
  });

  it("runs every safety class against a disposable target without allow or confirmation", () => {
    const plan = planRun(checks, {
      target: fakeTarget({ credentials: { admin: cred(), viewer: cred() }, disposable: true }),
    });
    const byId = Object.fromEntries(plan.entries.map((e) => [e.check.id, e.action]));
    expect(byId).toMatchObject({
      "config/quota-update": "run",
      "delete-task/by-type": "run",
      "token-quota/exhaust": "run",
    });
  });

  it("takes loopback for no permission: a port-forward to production is on 127.0.0.1 too", () => {
    const target = fakeTarget({ credentials: { admin: cred(), viewer: cred() }, loopback: true });
    const plan = planRun(checks, { target });
    const byId = Object.fromEntries(plan.entries.map((e) => [e.check.id, e.skipKind ?? e.action]));
    expect(byId).toMatchObject({
      "service/health": "run",
      "config/quota-update": "safety",
      "delete-task/by-type": "safety",
      "token-quota/exhaust": "safety",
    });
    const reason = plan.entries.find((e) => e.check.id === "config/quota-update")?.reason;
    expect(reason).toMatch(/--allow write .*"disposable: true"/);
  });

  it.each([
    ["config/quota-update", /credentials for role admin \(add credentials\.admin to the target file\)/],
    ["auth/isolation", /a second tenant \(add otherTenant/],
    ["token-state/expiry", /a clock the kit can drive/],
    ["config/rdbms", /auth\.migration\.mode=rdbms \(add rdbmsTenant and rdbmsCustomerId/],
  ])("skips %s whose needs are unmet, with the reason", (id, reason) => {
    const plan = planRun(checks, { target: fakeTarget({ disposable: true }) });
    const entry = plan.entries.find((e) => e.check.id === id);
    expect(entry).toMatchObject({ action: "skip", skipKind: "needs" });
    expect(entry?.reason).toMatch(reason);
  });

  it("names the flag that lifts a safety skip", () => {
    const plan = planRun(checks, { target: live, allow: ["destructive"] });
    const reasons = Object.fromEntries(plan.entries.map((e) => [e.check.id, e.reason ?? ""]));
    expect(reasons["config/quota-update"]).toMatch(/--allow write/);
    expect(reasons["delete-task/by-type"]).toMatch(/--confirm-tenant acme/);
  });
});

function cred() {
  return { clientId: "id", clientSecret: "secret-value" };
}

describe("what a check carries about itself", () => {
  it("every token-quota check and the token explorer judge their own 429s, and nothing outside the checks names a check id", async () => {
    const { allChecks } = await import("../../suites/index.ts");
    const quota = allChecks.filter((check) => check.suite === "token-quota");
    expect(quota.length).toBeGreaterThan(10);
    expect(quota.filter((check) => check.judgesRateLimits !== true).map((check) => check.id)).toEqual([]);
    // Outside the suite, only the token explorer drives a client to its quota and judges the refusals.
    expect(allChecks.filter((c) => c.suite !== "token-quota" && c.judgesRateLimits).map((c) => c.id)).toEqual(
      ["explore/tokens"],
    );
    // The runner and the transport read declarations; a check id in their code would be knowledge kept
    // outside the check (comments and examples aside).
    const { readFileSync, readdirSync } = await import("node:fs");
    const { join } = await import("node:path");
    const root = join(import.meta.dirname, "..", "..", "src");
    for (const folder of ["runner", "target"]) {
      for (const name of readdirSync(join(root, folder)).filter((f) => f.endsWith(".ts"))) {
        const code = readFileSync(join(root, folder, name), "utf8")
          .split("\n")
          .filter((line) => !/^\s*(\/\/|\*|\/\*\*)/.test(line))
          .join("\n");
        const ids = allChecks
          .map((c) => c.id)
          .filter((id) => code.includes(`"${id}"`) || code.includes(`"${id.split("/")[0]}/"`));
        expect(ids, `${folder}/${name}`).toEqual([]);
      }
    }
  });

  it("balances the quota lanes by each check's declared expected wait", async () => {
    const { allChecks } = await import("../../suites/index.ts");
    const { expectedWaitSeconds } = await import("../../src/runner/plan.ts");
    const model = allChecks.find((check) => check.id === "token-quota/model");
    expect(model?.expectedWaitSeconds).toBeGreaterThan(0);
    expect(model && expectedWaitSeconds(model)).toBe(model?.expectedWaitSeconds);
  });
});
