// Authentication and roles: every data operation needs a valid bearer token of a role that covers it.
import fc from "fast-check";
import {
  type Check,
  type CheckContext,
  type CredentialRole,
  defineFact,
  fail,
  inconclusive,
  skip,
} from "../src/check/index.ts";
import { type ApiResponse, describeResponse, type TokenResponse } from "../src/client/index.ts";
import {
  answerDetail,
  clientRecord,
  ensureAnswer,
  tokenRequest,
  withDetail,
} from "./support/answer-detail.ts";
import {
  absentLookupTasks,
  type DataOperation,
  dataOperations,
  discoverLookupTypes,
  noClientUpserts,
} from "./support/data-operations.ts";
import { defineCheck } from "./support/define.ts";
import { checkProperty } from "./support/property.ts";
import {
  noteQuotaToken,
  quotaTokensExpire,
  shortValiditySeconds,
  upsertQuotaClient,
} from "./support/quota-session.ts";
import {
  judgeAuthRefusal,
  judgeData,
  judgeExpiredRefusal,
  judgeRoleRefusal,
  judgeTenantRefusal,
  scanPageShape,
} from "./support/response-judges.ts";
import { clientOf, credentialOf, otherTenantOf, quotaCustomerIdOf } from "./support/target-client.ts";
import { canDriveClock, defaultValiditySeconds, issueToken, letTimePass } from "./support/token-lifetime.ts";

/** A lookup type name of the tenant, for the per-type operations (any name serves a refusal probe). */
async function someLookupType(ctx: CheckContext, role: CredentialRole): Promise<string> {
  const types = await discoverLookupTypes(clientOf(ctx), await ctx.token(role), ctx.target.tenant);
  return types[0] ?? "Country";
}

/** Longest wait for a token to expire that the real-time path accepts (a token issued before the check). */
const longestRealTimeWaitSeconds = 10;

async function expiredTokenAnswer(ctx: CheckContext) {
  if (!canDriveClock(ctx)) return expiredTokenAnswerInRealTime(ctx);
  const issued = await issueToken(ctx, "viewer");
  await letTimePass(ctx, (issued.expiresIn + 1) * 1000);
  return useForOneLookup(ctx, issued.token);
}

function useForOneLookup(ctx: CheckContext, token: string) {
  return clientOf(ctx).scanFirst(token, { kind: "lookups", tenantId: ctx.target.tenant }, { limit: 1 });
}

/** Per target, in real time: a token of the quota client whose validity (+ 1 s) the kit waited out. An
 *  expired token stays expired, so the next check that needs one sends it again at once instead of waiting
 *  out another: auth/expired-token-refused and auth/expired-token-401 share one wait. */
const expiredQuotaToken = defineFact<string>(
  "expired-quota-token",
  "a token of the quota client whose validity the kit waited out",
);

/**
 * Where the target's clock cannot be driven, an expired token takes a short accessTokenValidity: the quota
 * client (the one client checks may reconfigure; the viewer's token is in use for an hour) gets the quota
 * session's 2 s through PUT .../clients for the time of the check, then its previous validity back.
 * With multi-token support off, a token request returns a token still valid from before; one that lives
 * longer than a short wait makes the check skip with its remaining time.
 */
async function expiredTokenAnswerInRealTime(ctx: CheckContext) {
  const expired = ctx.facts.get(expiredQuotaToken);
  if (expired !== undefined) return useForOneLookup(ctx, expired);
  const customerId = quotaCustomerIdOf(ctx);
  const previous = (await upsertQuotaClient(ctx, customerId, {})) ?? defaultValiditySeconds;
  await upsertQuotaClient(ctx, customerId, { accessTokenValidity: shortValiditySeconds });
  try {
    // Noted for the quota sessions, which wait for the quota client's tokens to expire (see noteQuotaToken).
    const issued = await issueToken(ctx, "quota").finally(() => noteQuotaToken(ctx, shortValiditySeconds));
    if (issued.expiresIn > longestRealTimeWaitSeconds)
      inconclusive({
        saw:
          `the quota client's token request (accessTokenValidity ${shortValiditySeconds} s) answered a token ` +
          `valid for ${issued.expiresIn} s more, longer than the check can wait for it to expire`,
        readings: [
          "a token from before the check, which multi-token support off returns again",
          "the validity was not applied (token-quota/validity-from-client-configuration judges that)",
        ],
        decideBy: `rerun after ${issued.expiresIn} s, when that token has expired (the target's clock cannot be driven)`,
      });
    noteQuotaToken(ctx, issued.expiresIn);
    await letTimePass(ctx, (issued.expiresIn + 1) * 1000);
    ctx.facts.set(expiredQuotaToken, issued.token);
    return await useForOneLookup(ctx, issued.token);
  } finally {
    await upsertQuotaClient(ctx, customerId, { accessTokenValidity: previous });
  }
}

async function everyOperation(
  operations: DataOperation[],
  auth: string | null,
  judge: (
    operation: DataOperation,
    response: Awaited<ReturnType<DataOperation["send"]>>,
  ) => string | undefined,
): Promise<void> {
  for (const operation of operations) {
    const response = await operation.send(auth);
    ensureAnswer(judge(operation, response), operation.name, response);
  }
}

/** The client whose expired token the expired-token checks send, as a failure's record names it. */
function expiredTokenRecord(ctx: CheckContext): string {
  return clientRecord(ctx, canDriveClock(ctx) ? "viewer" : "quota", "its token, used after it expired");
}

/** The viewer's token where the clock can be driven; in real time the quota client's, reconfigured by the
 *  admin. */
const expiredTokenNeeds = { roles: ["viewer" as const, "admin" as const, "quota" as const] };

interface IsolationProbe {
  name: string;
  send(): Promise<ApiResponse<unknown>>;
  judge(response: ApiResponse<unknown>): string | undefined;
}

/**
 * Sends each role's probes into otherTenant. Which tenants a client holds is the target's configuration,
 * which the interface cannot show: a role the target file states lacks otherTenant (otherTenantLackedBy)
 * fails the check when it gets in; one it does not state is held to nothing, since a correct target lets a
 * client that holds otherTenant in. When no stated role was probed and an unstated one got in, the check
 * cannot decide and skips, naming the key that settles it.
 */
async function isolationProbe(
  ctx: CheckContext,
  roles: CredentialRole[],
  probes: (role: CredentialRole) => IsolationProbe[],
): Promise<void> {
  const other = otherTenantOf(ctx);
  const stated = new Set(ctx.target.otherTenantLackedBy ?? []);
  const undecided: string[] = [];
  let judged = 0;
  for (const role of roles) {
    for (const probe of probes(role)) {
      const response = await probe.send();
      const problem = probe.judge(response);
      if (problem === undefined) continue;
      if (stated.has(role))
        fail(
          `${role} on ${probe.name}: ${problem}`,
          answerDetail(response, { problem, record: clientRecord(ctx, role, `in tenant ${other}`) }),
        );
      undecided.push(`${role} on ${probe.name}: ${problem}`);
      break;
    }
    if (stated.has(role)) judged++;
  }
  if (undecided.length === 0) return;
  const note =
    `the target let clients into ${other} whose access to it the target file does not state ` +
    `(${undecided.join("; ")}); the interface cannot show a client's tenants, so the kit cannot tell a ` +
    "client that holds the tenant (correct) from one let through (a failure)";
  if (judged === 0)
    inconclusive({
      saw: `the target let clients into ${other} whose access to it the target file does not state (${undecided.join("; ")})`,
      readings: ["those clients hold that tenant", "the target lets clients into a tenant they do not hold"],
      decideBy:
        `state in the target file which of the roles ${roles.join(", ")} hold nothing of ${other} ` +
        "(otherTenantLackedBy: [...]), or name an otherTenant those clients do not hold",
    });
  ctx.log.info(note);
}

function presentRoles(ctx: CheckContext, roles: CredentialRole[]): CredentialRole[] {
  return roles.filter((role) => ctx.target.credentials[role] !== undefined);
}

export const authChecks: Check[] = [
  defineCheck({
    id: "auth/no-token-refused",
    title: "MUST refuse every data operation without an Authorization header",
    requirements: ["AUTH-01", "AUTH-02"],
    safety: "read",
    harmlessCalls: [absentLookupTasks, noClientUpserts],
    needs: { roles: ["admin"] },
    async run(ctx) {
      const lookupType = await someLookupType(ctx, "admin");
      const operations = dataOperations(ctx, ctx.target.tenant, lookupType, {
        includeWrites: true,
        customerId: ctx.target.customerId,
      });
      await everyOperation(operations, null, (_, response) => judgeAuthRefusal(response));
    },
  }),
  defineCheck({
    id: "auth/missing-token-401",
    title: "SHOULD answer a missing token with 401 and WWW-Authenticate: Bearer",
    requirements: ["AUTH-05"],
    safety: "read",
    needs: { roles: ["admin"] },
    async run(ctx) {
      const lookupType = await someLookupType(ctx, "admin");
      await everyOperation(dataOperations(ctx, ctx.target.tenant, lookupType), null, (_, response) =>
        response.status === 401 && /^bearer/i.test(response.headers.get("www-authenticate") ?? "")
          ? undefined
          : `expected 401 with WWW-Authenticate: Bearer ..., got ${describeResponse(response)}`,
      );
    },
  }),
  defineCheck({
    id: "auth/malformed-token-refused",
    title: "MUST refuse a malformed or never-issued bearer token",
    requirements: ["AUTH-03"],
    safety: "read",
    needs: { roles: [] },
    async run(ctx) {
      const client = clientOf(ctx);
      const token68 = fc.stringMatching(/^[A-Za-z0-9._~+/-]{1,80}=*$/);
      const authorization = fc.oneof(
        token68.map((t) => `Bearer ${t}`),
        fc.constantFrom(
          "Bearer",
          "Bearer  ",
          "bearer null",
          "Bearer undefined",
          "Token abc",
          "Basic Zm9vOmJhcg==",
        ),
        token68.map((t) => `Basic ${t}`),
      );
      await checkProperty(
        ctx,
        fc.asyncProperty(authorization, async (value) => {
          const response = await client.scanFirst(
            { authorization: value },
            { kind: "lookups", tenantId: ctx.target.tenant },
            {
              limit: 1,
            },
          );
          ensureAnswer(judgeAuthRefusal(response), `Authorization: ${value}`, response, {
            field: "Authorization",
            record: `Authorization: ${value} (a value the kit made up, never issued)`,
          });
        }),
      );
    },
  }),
  defineCheck({
    id: "auth/expired-token-refused",
    title: "MUST refuse an expired token with an error stating it has expired",
    requirements: ["AUTH-04", "TOKEN-STATE-04"],
    // In real time the check shortens the quota client's accessTokenValidity and restores it: a write.
    safety: "write",
    issuesTokensFor: ["viewer", "quota"],
    // Real time: the expired token is shared, and the quota sessions wait for it (noteQuotaToken).
    facts: [expiredQuotaToken, quotaTokensExpire],
    needs: expiredTokenNeeds,
    async run(ctx) {
      const response = await expiredTokenAnswer(ctx);
      ensureAnswer(judgeExpiredRefusal(ctx.target.profile, response), "use of an expired token", response, {
        record: expiredTokenRecord(ctx),
      });
    },
  }),
  defineCheck({
    id: "auth/expired-token-401",
    title: "SHOULD answer an expired token with 401 and WWW-Authenticate naming the expiry",
    requirements: ["AUTH-05"],
    // In real time the check shortens the quota client's accessTokenValidity and restores it: a write.
    safety: "write",
    issuesTokensFor: ["viewer", "quota"],
    // Real time: the expired token is shared, and the quota sessions wait for it (noteQuotaToken).
    facts: [expiredQuotaToken, quotaTokensExpire],
    needs: expiredTokenNeeds,
    async run(ctx) {
      const response = await expiredTokenAnswer(ctx);
      const challenge = response.headers.get("www-authenticate") ?? "";
      if (response.status !== 401 || !/^bearer/i.test(challenge) || !/expir/i.test(challenge))
        fail(
          `expected 401 with WWW-Authenticate: Bearer error="invalid_token", error_description="...expired" ` +
            `(WWW-Authenticate: ${challenge || "absent"}), got ${describeResponse(response)}`,
          answerDetail(response, {
            expected: "401 with WWW-Authenticate: Bearer naming the expiry",
            actual: `${response.status}, WWW-Authenticate: ${challenge || "absent"}`,
            record: expiredTokenRecord(ctx),
            field: "WWW-Authenticate",
          }),
        );
    },
  }),
  defineCheck({
    id: "auth/other-tenant-refused",
    title: "MUST refuse a caller access to a tenant that is not on its tenant list",
    requirements: ["AUTH-ROLES-04"],
    safety: "read",
    harmlessCalls: [absentLookupTasks, noClientUpserts],
    needs: { roles: ["viewer"], otherTenant: true },
    async run(ctx) {
      const other = otherTenantOf(ctx);
      const lookupType = await someLookupType(ctx, "viewer");
      await isolationProbe(ctx, presentRoles(ctx, ["viewer", "editor", "admin"]), (role) =>
        dataOperations(ctx, other, lookupType, { includeWrites: true }).map((op) => ({
          name: op.name,
          send: () => ctx.token(role).then((token) => op.send(token)),
          judge: judgeTenantRefusal,
        })),
      );
    },
  }),
  defineCheck({
    id: "auth/other-tenant-403",
    title: "SHOULD refuse access to another tenant with 403",
    requirements: ["AUTH-ROLES-06"],
    safety: "read",
    needs: { roles: ["viewer"], otherTenant: true },
    async run(ctx) {
      const other = otherTenantOf(ctx);
      const lookupType = await someLookupType(ctx, "viewer");
      await isolationProbe(ctx, ["viewer"], (role) =>
        dataOperations(ctx, other, lookupType).map((op) => ({
          name: op.name,
          send: () => ctx.token(role).then((token) => op.send(token)),
          judge: (response) =>
            response.status === 403 ? undefined : `expected 403, got ${describeResponse(response)}`,
        })),
      );
    },
  }),
  defineCheck({
    id: "auth/viewer-can-read",
    title: "MUST let ROLE_RDM read lookups, autopilot statistics and blocked values of its tenant",
    requirements: ["AUTH-ROLES-03"],
    safety: "read",
    needs: { roles: ["viewer"] },
    async run(ctx) {
      const lookupType = await someLookupType(ctx, "viewer");
      await everyOperation(
        dataOperations(ctx, ctx.target.tenant, lookupType),
        await ctx.token("viewer"),
        (op, r) => judgeData(r, `${op.name} by ROLE_RDM`, op.shape),
      );
    },
  }),
  defineCheck({
    id: "auth/viewer-cannot-delete",
    title: "MUST refuse a delete task from ROLE_RDM (view access only)",
    requirements: ["AUTH-ROLES-03"],
    safety: "read",
    harmlessCalls: [absentLookupTasks],
    needs: { roles: ["viewer"] },
    async run(ctx) {
      // The task names an absent lookup, so a wrongly accepted task still deletes nothing.
      const deletes = dataOperations(ctx, ctx.target.tenant, "Country", { includeWrites: true }).filter(
        (op) => op.name.startsWith("POST /tasks"),
      );
      await everyOperation(deletes, await ctx.token("viewer"), (_, response) => judgeRoleRefusal(response));
    },
  }),
  defineCheck({
    id: "auth/editor-can-delete",
    title: "MUST let ROLE_RDM_EDIT read lookups and create a delete task in its tenant",
    requirements: ["AUTH-ROLES-02"],
    safety: "write",
    harmlessCalls: [absentLookupTasks],
    changes: "data",
    needs: { roles: ["editor"] },
    async run(ctx) {
      const lookupType = await someLookupType(ctx, "editor");
      const operations = dataOperations(ctx, ctx.target.tenant, lookupType, { includeWrites: true }).filter(
        (op) => !op.name.startsWith("PUT /oauth"),
      );
      await everyOperation(operations, await ctx.token("editor"), (op, r) =>
        judgeData(r, `${op.name} by ROLE_RDM_EDIT`, op.shape),
      );
    },
  }),
  defineCheck({
    id: "auth/admin-full-access",
    title: "MUST let ROLE_ADMIN_TENANT read, delete and update configuration in its tenant",
    requirements: ["AUTH-ROLES-01", "CONFIG-CLIENT-01"],
    safety: "write",
    harmlessCalls: [absentLookupTasks],
    needs: { roles: ["admin"] },
    async run(ctx) {
      const lookupType = await someLookupType(ctx, "admin");
      const operations = dataOperations(ctx, ctx.target.tenant, lookupType, {
        includeWrites: true,
        customerId: ctx.target.customerId,
      });
      await everyOperation(operations, await ctx.token("admin"), (op, r) =>
        judgeData(r, `${op.name} by ROLE_ADMIN_TENANT`, op.shape),
      );
    },
  }),
  defineCheck({
    id: "auth/configuration-needs-admin",
    title: "SHOULD refuse configuration updates from ROLE_RDM and ROLE_RDM_EDIT with 403",
    requirements: ["AUTH-ROLES-05", "AUTH-ROLES-06"],
    safety: "read",
    harmlessCalls: [noClientUpserts],
    needs: { roles: ["viewer"] },
    async run(ctx) {
      const customerId = ctx.target.customerId;
      if (!customerId) skip("the target file names no customerId; add it to run this check");
      for (const role of presentRoles(ctx, ["viewer", "editor"])) {
        // An empty client list: a wrongly allowed update still changes nothing.
        const response = await clientOf(ctx).putClients(await ctx.token(role), customerId, []);
        if (response.status !== 403)
          fail(
            `${role}: expected 403, got ${describeResponse(response)}`,
            answerDetail(response, { expected: "403", record: clientRecord(ctx, role) }),
          );
      }
    },
  }),
];

// ---------------------------------------------------------------- the token endpoint (kit's choice: RFC 6749)

/** What is wrong with a token answer, each problem with the field it is about. */
function tokenShapeProblems(response: ApiResponse<TokenResponse>): { field: string; problem: string }[] {
  const body = response.data;
  const problems: { field: string; problem: string }[] = [];
  const add = (field: string, problem: string) => problems.push({ field, problem });
  if (response.status !== 200) add("status", `status ${response.status}, expected 200`);
  if (typeof body?.access_token !== "string" || body.access_token === "")
    add("access_token", "no access_token");
  if (typeof body?.token_type !== "string" || body.token_type.toLowerCase() !== "bearer")
    add("token_type", `token_type ${JSON.stringify(body?.token_type)}, expected bearer`);
  if (typeof body?.expires_in !== "number") add("expires_in", "no numeric expires_in");
  if (!/no-store/i.test(response.headers.get("cache-control") ?? ""))
    add("Cache-Control", "no Cache-Control: no-store");
  return problems;
}

/** Fails unless a token answer has the RFC 6749 shape; the detail names the fields at fault. */
function ensureTokenShape(ctx: CheckContext, response: ApiResponse<TokenResponse>, context: string): void {
  const problems = tokenShapeProblems(response);
  if (problems.length === 0) return;
  const listed = problems.map((p) => p.problem).join("; ");
  ensureAnswer(`${listed}: ${describeResponse(response)}`, context, response, {
    expected: 'status 200, {"access_token", "token_type": "bearer", "expires_in"}, Cache-Control: no-store',
    actual: listed,
    field: problems.map((p) => p.field).join(", "),
    record: clientRecord(ctx, "viewer"),
  });
}

function oauthErrorProblem(response: ApiResponse<unknown>, status: number, code: string): string | undefined {
  const error = (response.body as { error?: unknown } | undefined)?.error;
  if (response.status === status && error === code) return undefined;
  return `expected ${status} {"error": "${code}", ...}, got ${describeResponse(response)}`;
}

/** Fails unless a token request error carries the RFC 6749 status and code, with the answer as data. */
function ensureOauthError(
  ctx: CheckContext,
  response: ApiResponse<unknown>,
  expected: { status: number; code: string },
  context: string,
): void {
  ensureAnswer(oauthErrorProblem(response, expected.status, expected.code), context, response, {
    field: "error",
    record: clientRecord(ctx, "viewer", context),
  });
}

authChecks.push(
  defineCheck({
    id: "auth/token-for-client-credentials",
    title: "MUST issue a usable access token for the client_credentials grant",
    requirements: ["TOKEN-ENDPOINT-01", "AUTH-01"],
    safety: "read",
    // Asks the token endpoint itself: its tokens count toward the viewer's quota.
    issuesTokensFor: ["viewer"],
    needs: { roles: ["viewer"] },
    async run(ctx) {
      const record = clientRecord(ctx, "viewer");
      const issued = await withDetail(issueToken(ctx, "viewer"), {
        expected: "a token for the client_credentials grant",
        request: tokenRequest(ctx),
        record,
      });
      const response = await clientOf(ctx).scanFirst(
        issued.token,
        { kind: "lookups", tenantId: ctx.target.tenant },
        {
          limit: 1,
        },
      );
      ensureAnswer(
        judgeData(response, "a lookups scan with the issued token", scanPageShape),
        undefined,
        response,
        {
          record: `${record}, its issued token`,
        },
      );
    },
  }),
  defineCheck({
    id: "auth/token-endpoint-rfc6749",
    title: "SHOULD answer POST /oauth/token as RFC 6749 does, for Basic and form client authentication",
    requirements: ["TOKEN-ENDPOINT-02", "TOKEN-ENDPOINT-04"],
    safety: "read",
    // Asks the token endpoint itself: its tokens count toward the viewer's quota.
    issuesTokensFor: ["viewer"],
    needs: { roles: ["viewer"] },
    async run(ctx) {
      const client = clientOf(ctx);
      const credential = credentialOf(ctx, "viewer");
      for (const clientAuth of ["basic", "form"] as const)
        ensureTokenShape(
          ctx,
          await client.token(credential, { clientAuth }),
          `client authentication by ${clientAuth}`,
        );
    },
  }),
  defineCheck({
    id: "auth/token-grant-in-query",
    title: "SHOULD accept grant_type=client_credentials in the query string",
    requirements: ["TOKEN-ENDPOINT-03"],
    safety: "read",
    // Asks the token endpoint itself: its tokens count toward the viewer's quota.
    issuesTokensFor: ["viewer"],
    needs: { roles: ["viewer"] },
    async run(ctx) {
      const response = await clientOf(ctx).token(credentialOf(ctx, "viewer"), { grantIn: "query" });
      ensureTokenShape(ctx, response, "grant_type in the query string");
    },
  }),
  defineCheck({
    id: "auth/token-errors-rfc6749",
    title: "SHOULD answer token request errors with RFC 6749 error codes",
    requirements: ["TOKEN-ENDPOINT-05"],
    safety: "read",
    // Asks the token endpoint itself: its tokens count toward the viewer's quota.
    issuesTokensFor: ["viewer"],
    needs: { roles: ["viewer"] },
    async run(ctx) {
      const client = clientOf(ctx);
      const credential = credentialOf(ctx, "viewer");
      const wrong = await client.token({ ...credential, clientSecret: `${credential.clientSecret}-wrong` });
      ensureOauthError(ctx, wrong, { status: 401, code: "invalid_client" }, "a wrong client secret");
      const challenge = wrong.headers.get("www-authenticate") ?? "";
      if (!/^basic/i.test(challenge))
        fail(
          `expected WWW-Authenticate: Basic ... with invalid_client after Basic authentication, got ${describeResponse(wrong)}`,
          answerDetail(wrong, {
            expected: "WWW-Authenticate: Basic ... with invalid_client",
            actual: `${wrong.status}, WWW-Authenticate: ${challenge || "absent"}`,
            field: "WWW-Authenticate",
            record: clientRecord(ctx, "viewer", "a wrong client secret"),
          }),
        );
      ensureOauthError(
        ctx,
        await client.token(credential, { grantType: null }),
        { status: 400, code: "invalid_request" },
        "no grant_type",
      );
      ensureOauthError(
        ctx,
        await client.token(credential, { grantType: "password" }),
        { status: 400, code: "unsupported_grant_type" },
        "grant_type=password",
      );
    },
  }),
);
