// --exclude-tenant names a tenant out of the judgement: its exchanges are read but judged for no party,
// so the service's fault on that tenant is no finding, while the same rule still judges the other tenants.
import { describe, expect, it } from "vitest";
import { judgeExchanges } from "../../src/traffic/judge.ts";
import { exchange, RDM, S, T0 } from "./timed-traffic.ts";

const RULE = "service/refuses-missing-token";

/** A scan of `tenant` without Authorization, answered `status`. */
const unauthenticated = (tenant: string, status: number, at: number) =>
  exchange({ url: `${RDM}/lookups/${tenant}/_scan`, at, headers: {}, status, responseBody: '{"values":[]}' });

describe("--exclude-tenant", () => {
  const traffic = () => [unauthenticated("acme", 200, T0), unauthenticated("globex", 401, T0 + S)];
  const judged = (excludeTenants?: string[]) => {
    const { result } = judgeExchanges(traffic(), {
      source: "t.har",
      ...(excludeTenants ? { excludeTenants } : {}),
    });
    return { result, check: result.checks.find((c) => c.id === RULE) };
  };

  it("leaves the named tenant's exchanges unjudged; the others are judged as before", () => {
    const all = judged();
    expect(all.check).toMatchObject({ status: "failed", opportunities: 2 });
    const without = judged(["acme"]);
    expect(without.check).toMatchObject({ status: "passed", opportunities: 1 });
    expect(without.result.subject).toMatchObject({
      kind: "traffic",
      exchanges: 2,
      judged: 1,
      excluded: { tenants: ["acme"] },
    });
  });

  it("naming out every tenant the traffic holds leaves the rule not exercised, never passed", () => {
    expect(judged(["acme", "globex"]).check?.status).toBe("not-exercised");
  });
});
