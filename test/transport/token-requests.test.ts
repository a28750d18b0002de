// A check's own token requests are held to its declaration (Check.issuesTokensFor): one for a client of the
// target it did not declare is refused before it is sent, naming the fix; a declared one, ctx.token and a
// made-up client go out.
import { describe, expect, it } from "vitest";
import type { Check, CheckContext } from "../../src/check/index.ts";
import { basicAuthorization, formEncode } from "../../src/client/token.ts";
import { planRun } from "../../src/runner/plan.ts";
import { runPlan } from "../../src/runner/run.ts";
import { systemClock } from "../../src/target/system-clock.ts";
import { tokenRequestClient, undeclaredTokenRequest } from "../../src/transport/token-requests.ts";
import { check, fakeFetch, fakeTarget, SECRET } from "../runner/fake-target.ts";

async function runWith(run: (ctx: CheckContext) => Promise<void>, over: Partial<Check> = {}) {
  let sent = 0;
  const plan = planRun([check("sample/tokens", run, { needs: { roles: ["viewer"] }, ...over })], {
    target: fakeTarget(),
  });
  const result = await runPlan(plan, {
    fetch: (request) => {
      if (new URL(request.url).pathname === "/oauth/token") sent += 1;
      return fakeFetch(request);
    },
    clock: systemClock(),
    seed: 1,
    runs: 1,
    catalogue: { path: null, requirements: [] },
  });
  const [first] = result.checks;
  if (!first) throw new Error("no result");
  return { result: first, tokenRequestsSent: sent };
}

const askViewerToken = async (ctx: CheckContext) => {
  const response = await ctx.fetch(`${ctx.target.baseUrl}/oauth/token`, {
    method: "POST",
    headers: {
      authorization: basicAuthorization({ clientId: "viewer-id", clientSecret: SECRET }),
      "content-type": "application/x-www-form-urlencoded",
    },
    body: "grant_type=client_credentials",
  });
  if (response.status !== 200) throw new Error(`token endpoint answered ${response.status}`);
};

describe("a check's own token requests", () => {
  it("are refused for a client the check does not declare, naming the declaration that lets them go", async () => {
    const { result, tokenRequestsSent } = await runWith(askViewerToken);
    expect(result.status).toBe("broken");
    expect(result.message).toMatch(/token of the viewer client itself/);
    expect(result.message).toMatch(/issuesTokensFor: \["viewer"\]/);
    expect(tokenRequestsSent).toBe(0);
  });

  it("go out when the check declares the client's role", async () => {
    const { result, tokenRequestsSent } = await runWith(askViewerToken, { issuesTokensFor: ["viewer"] });
    expect(result.status).toBe("passed");
    expect(tokenRequestsSent).toBe(1);
  });

  it("through ctx.token need no declaration: the runner's token cache asks for the check", async () => {
    const { result, tokenRequestsSent } = await runWith(async (ctx) => {
      await ctx.token("viewer");
    });
    expect(result.status).toBe("passed");
    expect(tokenRequestsSent).toBe(1);
  });

  it("for a client none of the target's roles has are sent (a made-up client gets no token to count)", async () => {
    const { result } = await runWith(async (ctx) => {
      const response = await ctx.fetch(`${ctx.target.baseUrl}/oauth/token`, {
        method: "POST",
        headers: { authorization: basicAuthorization({ clientId: "nobody", clientSecret: "x" }) },
      });
      if (response.status !== 401) throw new Error(`expected 401, got ${response.status}`);
    });
    expect(result.status).toBe("passed");
  });
});

describe("the client a token request names", () => {
  const headers = (entries: Record<string, string>) => new Headers(entries);
  it("is read from HTTP Basic (form-encoded id) and from client_id in a form body", () => {
    const id = "client:with+odd%chars";
    const basic = headers({ authorization: basicAuthorization({ clientId: id, clientSecret: "s" }) });
    expect(tokenRequestClient("POST", "https://x.test/oauth/token", basic, undefined)).toBe(id);
    const form = headers({ "content-type": "application/x-www-form-urlencoded" });
    const body = `grant_type=client_credentials&client_id=${formEncode(id)}&client_secret=s`;
    expect(tokenRequestClient("POST", "https://x.test/base/oauth/token/", form, body)).toBe(id);
  });

  it("is none for other paths and methods", () => {
    const basic = headers({ authorization: basicAuthorization({ clientId: "a", clientSecret: "s" }) });
    expect(tokenRequestClient("GET", "https://x.test/oauth/token", basic, undefined)).toBeUndefined();
    expect(tokenRequestClient("POST", "https://x.test/oauth/tokens", basic, undefined)).toBeUndefined();
  });

  it("is judged against the declared roles", () => {
    const clients = new Map([["q-id", "quota" as const]]);
    expect(undeclaredTokenRequest("c/x", { declared: ["quota"], clients }, "q-id")).toBeUndefined();
    expect(undeclaredTokenRequest("c/x", { declared: [], clients }, "q-id")).toMatch(/\["quota"\]/);
    expect(undeclaredTokenRequest("c/x", { declared: [], clients }, undefined)).toBeUndefined();
  });
});
