// Failures as data for the token checks: against the embedded reference with a seeded fault, a failing
// token-quota or auth check carries a structured detail (what the quota allowed and what came, the token
// request at fault, the client by its id and its position in the sequence, the model's trail of steps),
// its sentence unchanged, and neither the detail nor any rendered report holds a client secret or a token.
import { beforeAll, describe, expect, it } from "vitest";
import type { FailureDetail } from "../../src/check/index.ts";
import type { ApiResponse } from "../../src/client/index.ts";
import { REDACTED } from "../../src/redaction/redact.ts";
import { renderHtml } from "../../src/report/html.ts";
import { renderJson } from "../../src/report/json.ts";
import { renderJunit } from "../../src/report/junit.ts";
import { renderMarkdown } from "../../src/report/markdown.ts";
import type { CheckResult, RunResult } from "../../src/result/model.ts";
import { planRun, runPlan, startEmbeddedTarget } from "../../src/runner/index.ts";
import { allChecks } from "../../suites/index.ts";
import { answerDetail, answerText } from "../../suites/support/answer-detail.ts";
import { testSeed } from "./embedded-run.ts";

interface Observed {
  result: RunResult;
  /** Every client secret of the target and every access token the reference issued during the run. */
  secrets: string[];
  /** The quota client's id, as the detail names it. */
  quotaClientId: string;
  viewerClientId: string;
}

/** Runs `ids` against the reference with `fault`, noting every token the token endpoint hands out. */
async function runWithFault(fault: string, ids: string[]): Promise<Observed> {
  const embedded = await startEmbeddedTarget({ faults: [fault] });
  const tokens = new Set<string>();
  const fetch = async (request: Request): Promise<Response> => {
    const response = await embedded.fetch(request);
    if (new URL(request.url).pathname.endsWith("/oauth/token")) {
      const token = /"access_token"\s*:\s*"([^"]+)"/.exec(await response.clone().text())?.[1];
      if (token !== undefined) tokens.add(token);
    }
    return response;
  };
  const checks = allChecks.filter((check) => ids.includes(check.id));
  expect(checks.map((c) => c.id).sort()).toEqual([...ids].sort());
  const plan = planRun(checks, { target: embedded.target, drivableClock: true });
  const result = await runPlan(plan, { fetch, clock: embedded.clock, seed: testSeed, runs: 5 });
  const credentials = Object.values(embedded.target.credentials);
  // The run must have handed out tokens, or "no token in the reports" would prove nothing.
  expect(tokens.size).toBeGreaterThan(0);
  return {
    result,
    secrets: [...credentials.map((c) => c?.clientSecret ?? ""), ...tokens].filter((s) => s.length >= 6),
    quotaClientId: embedded.target.credentials.quota?.clientId ?? "",
    viewerClientId: embedded.target.credentials.viewer?.clientId ?? "",
  };
}

function failed(observed: Observed, id: string): CheckResult & { details: FailureDetail } {
  const check = observed.result.checks.find((c) => c.id === id);
  expect(check?.status, `${id}: ${check?.message ?? check?.reason ?? "not run"}`).toBe("failed");
  expect(check?.details, `${id} failed without a detail: ${check?.message}`).toBeDefined();
  return check as CheckResult & { details: FailureDetail };
}

/** No secret in the detail, nor in any of the four renderings of the run. */
function expectNoSecret(observed: Observed, detail: FailureDetail): void {
  const texts = {
    detail: JSON.stringify(detail),
    json: renderJson(observed.result),
    junit: renderJunit(observed.result),
    markdown: renderMarkdown(observed.result),
    html: renderHtml(observed.result),
  };
  // The runner redacts every result before a report sees it: a redaction mark in the detail means the
  // check put a secret there.
  // (The redactor also blanks, out of caution, whatever could start a secret just before an excerpt's
  // "...": a body cut in a tenant id whose name starts a client secret. That mark is no leak.)
  const uncut = { ...detail, actual: detail.actual?.replace(`${REDACTED}...`, "...") };
  expect(JSON.stringify(uncut)).not.toContain(REDACTED);
  for (const [where, text] of Object.entries(texts))
    for (const secret of observed.secrets)
      expect(text.includes(secret), `a secret in the ${where}`).toBe(false);
}

// The quota the seed picks (quotaFor: 3 + seed % 3).
const max = 3 + (testSeed % 3);

describe("token-quota failures carry a detail", () => {
  let offByOne: Observed;
  let expiredAccepted: Observed;
  let reused: Observed;
  let accepted201: Observed;
  beforeAll(async () => {
    [offByOne, expiredAccepted, reused, accepted201] = await Promise.all([
      runWithFault("quota-off-by-one", [
        "token-quota/distinct-tokens-up-to-max",
        "token-quota/raised-quota-applies",
      ]),
      runWithFault("expired-token-accepted", ["token-quota/model", "auth/expired-token-refused"]),
      runWithFault("new-token-with-multitoken-off", ["token-quota/single-token-reused"]),
      runWithFault("quota-201-accepted", ["token-quota/max-above-200-refused"]),
    ]);
  });

  it("one token over the quota: at most max active vs the (max + 1)th issued, its request, its position", () => {
    const check = failed(offByOne, "token-quota/distinct-tokens-up-to-max");
    // The sentence as it always was.
    expect(check.message).toMatch(
      /^expected a limit-exceeded refusal with 3 active tokens and maxActiveTokensAllowed=3, but a token was issued/,
    );
    expect(check.details).toEqual({
      expected: `at most ${max} active tokens (maxActiveTokensAllowed=${max}); a limit-exceeded refusal beyond`,
      actual: `token ${max + 1} issued with ${max} active (200)`,
      request: { method: "POST", path: "/oauth/token" },
      record: `client ${offByOne.quotaClientId} (credentials.quota), token request ${max + 1}, with ${max} active tokens`,
    });
    expectNoSecret(offByOne, check.details);
  });

  it("at a raised quota the position counts from the raised limit", () => {
    const check = failed(offByOne, "token-quota/raised-quota-applies");
    // Off by one lets the (max + 1)th token through before the raise: the first refusal expected is there.
    expect(check.details.expected).toMatch(/^at most \d+ active tokens/);
    expect(check.details.actual).toMatch(/^token \d+ issued with \d+ active \(200\)$/);
    expect(check.details.request).toEqual({ method: "POST", path: "/oauth/token" });
    expect(check.details.record).toContain(`client ${offByOne.quotaClientId} (credentials.quota)`);
    expectNoSecret(offByOne, check.details);
  });

  it("the model: the trail of steps where the target and the model parted", () => {
    const check = failed(expiredAccepted, "token-quota/model");
    const { expected, actual, request, record } = check.details;
    // The steps run from the quota the run set (or, in a long walk, the last steps, the earlier ones
    // counted) through time passing to the use of a token the model holds expired.
    expect(expected).toMatch(
      /^after (changeQuota\(\d\) -> |\(\d+ earlier\) ).*(letTimePass\(\d+% of validity\)|passTo\(just after expiry \d+\)) -> .*useToken\(\d+\): an expired-token error \(401/,
    );
    expect(actual).toMatch(/^after (changeQuota\(\d\) -> |\(\d+ earlier\) ).*useToken\(\d+\): 200 /);
    // The prefix is the same trail on both sides.
    expect(actual?.split(": ")[0]).toBe(expected?.split(": ")[0]);
    // The use of the token: a one-lookup read, never the token request.
    expect(request).toEqual({ method: "POST", path: expect.stringMatching(/\/_scan\b/) });
    expect(record).toMatch(
      new RegExp(
        `^client ${expiredAccepted.quotaClientId} \\(credentials\\.quota\\), token #\\d+ of the run$`,
      ),
    );
    expect(check.counterexample).toBeDefined();
    expectNoSecret(expiredAccepted, check.details);
  });

  it("the expired-token check names the client whose token it used, never the token", () => {
    const check = failed(expiredAccepted, "auth/expired-token-refused");
    expect(check.message).toMatch(
      /^use of an expired token on POST \S+\/_scan: expected an expired-token error/,
    );
    expect(check.details.expected).toMatch(/^an expired-token error \(401, with "expired"/);
    expect(check.details.actual).toMatch(/^200 /);
    expect(check.details.request).toEqual({ method: "POST", path: expect.stringMatching(/\/_scan\b/) });
    expect(check.details.record).toBe(
      `client ${expiredAccepted.viewerClientId} (credentials.viewer), its token, used after it expired`,
    );
    expectNoSecret(expiredAccepted, check.details);
  });

  it("a new token with multi-token support off: the second request, named by position, its body not quoted", () => {
    const check = failed(reused, "token-quota/single-token-reused");
    expect(check.details).toEqual({
      expected: "the token of token request 1 again (multi-token support off)",
      actual: "200, another token issued",
      request: { method: "POST", path: "/oauth/token" },
      record: `client ${reused.quotaClientId} (credentials.quota), token request 2`,
    });
    expectNoSecret(reused, check.details);
  });

  it("a quota above 200 accepted: the customer and the field at fault", () => {
    const check = failed(accepted201, "token-quota/max-above-200-refused");
    expect(check.details.expected).toMatch(/^a validation error \(400\)$/);
    expect(check.details.actual).toMatch(/^2\d\d/);
    expect(check.details.request?.method).toBe("PUT");
    expect(check.details.record).toMatch(/^customer \S+$/);
    expect(check.details.field).toBe(
      "multitokenConfig.clientCredentialsMultiTokenConfig.maxActiveTokensAllowed",
    );
    expectNoSecret(accepted201, check.details);
  });
});

describe("failures inside the shared quota helpers carry a detail", () => {
  it("an expired token still counted: the token request refused, by its position", async () => {
    const observed = await runWithFault("expired-token-still-counted", [
      "token-quota/expired-token-frees-slot",
    ]);
    const check = failed(observed, "token-quota/expired-token-frees-slot");
    // Expired tokens of the check's own earlier requests hold the slots: the request at fault is the first
    // one the quota should have had room for.
    const position = /: token request (\d+) of (\d+) was not granted: POST /.exec(check.message ?? "");
    expect(position, check.message).not.toBeNull();
    expect(check.details).toEqual({
      expected: `a new token for each of ${position?.[2]} token requests`,
      actual: expect.stringMatching(/^4\d\d \{/),
      request: { method: "POST", path: "/oauth/token" },
      record: `client ${observed.quotaClientId} (credentials.quota), token request ${position?.[1]} of ${position?.[2]}`,
    });
    expectNoSecret(observed, check.details);
  });

  it("a validity ignored: the announced expires_in against the configured one, for the token request", async () => {
    const observed = await runWithFault("token-validity-ignored", ["token-quota/distinct-tokens-up-to-max"]);
    const check = failed(observed, "token-quota/distinct-tokens-up-to-max");
    expect(check.details).toEqual({
      expected: expect.stringMatching(/^expires_in <= \d+$/),
      actual: "expires_in 3600",
      request: { method: "POST", path: "/oauth/token" },
      record: `client ${observed.quotaClientId} (credentials.quota)`,
    });
    expectNoSecret(observed, check.details);
  });
});

describe("token endpoint failures carry a detail", () => {
  it("a token answer without token_type: the field at fault, the client by id, no token quoted", async () => {
    const observed = await runWithFault("token-type-missing", ["auth/token-endpoint-rfc6749"]);
    const check = failed(observed, "auth/token-endpoint-rfc6749");
    expect(check.message).toMatch(
      /^client authentication by basic: token_type undefined, expected bearer: POST /,
    );
    expect(check.details).toEqual({
      expected: 'status 200, {"access_token", "token_type": "bearer", "expires_in"}, Cache-Control: no-store',
      actual: "token_type undefined, expected bearer",
      request: { method: "POST", path: "/oauth/token" },
      field: "token_type",
      record: `client ${observed.viewerClientId} (credentials.viewer)`,
    });
    expectNoSecret(observed, check.details);
  });
});

describe("role failures of the auth suite carry a detail", () => {
  it("a viewer let into a tenant not on its list: the client and the tenant, the request let through", async () => {
    const observed = await runWithFault("cross-tenant-read", ["auth/other-tenant-refused"]);
    const check = failed(observed, "auth/other-tenant-refused");
    expect(check.message).toMatch(
      /^viewer on \S+ .*: expected a refusal for a tenant not on the caller's list/,
    );
    expect(check.details.expected).toBe("a refusal for a tenant not on the caller's list (403, or 401/404)");
    expect(check.details.actual).toMatch(/^200 /);
    expect(check.details.request?.path).toMatch(/^\/\S+/);
    expect(check.details.record).toMatch(
      new RegExp(`^client ${observed.viewerClientId} \\(credentials\\.viewer\\), in tenant \\S+$`),
    );
    expectNoSecret(observed, check.details);
  });

  it("configuration open to a viewer: 403 expected, the client named", async () => {
    const observed = await runWithFault("configuration-open-to-viewer", ["auth/configuration-needs-admin"]);
    const check = failed(observed, "auth/configuration-needs-admin");
    expect(check.details.expected).toBe("403");
    expect(check.details.actual).toMatch(/^2\d\d/);
    expect(check.details.request).toEqual({ method: "PUT", path: expect.stringMatching(/\/clients$/) });
    expect(check.details.record).toBe(`client ${observed.viewerClientId} (credentials.viewer)`);
    expectNoSecret(observed, check.details);
  });
});

describe("an answer as a detail quotes it", () => {
  const answer = (status: number, text: string): ApiResponse<unknown> => ({
    request: { method: "POST", url: "https://auth.example/base/oauth/token?grant_type=client_credentials" },
    status,
    ok: status >= 200 && status < 300,
    headers: new Headers(),
    contentType: "application/json",
    text,
    body: undefined,
  });
  const token = "eyJhbGciOi.made-up-token.value";

  it("names a granted token answer without quoting its body", () => {
    const detail = answerDetail(answer(200, `{"access_token": "${token}", "token_type": "bearer"}`));
    expect(detail.actual).toBe("200, a token issued (granted)");
    expect(JSON.stringify(detail)).not.toContain(token);
    expect(detail.request).toEqual({
      method: "POST",
      path: "/base/oauth/token?grant_type=client_credentials",
    });
  });

  it("does not quote a refusal that carries a token either", () => {
    expect(answerText(answer(429, `{"error":"limit","access_token":"${token}"}`))).toBe(
      "429, a token issued (in a refusal)",
    );
  });

  it("quotes a refusal's body, cut to its start, and takes `expected` from the judge's sentence", () => {
    const body = `{"error":"limit_exceeded","error_description":"${"x".repeat(300)}"}`;
    const detail = answerDetail(answer(429, body), { problem: "expected a 401, got POST ... -> 429" });
    expect(detail.actual).toBe(`429 ${body.slice(0, 200)}...`);
    expect(detail.expected).toBe("a 401");
    expect(answerText(answer(204, ""))).toBe("204, no body");
  });
});
