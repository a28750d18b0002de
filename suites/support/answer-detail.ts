// Failures as data for the checks about tokens: the structured detail (expected, actual, request, record)
// of a failure about one answer. A token answer's body holds the token itself, so a granted answer is named,
// never quoted; a request is its method and path (the token endpoint takes the secret in a header or the
// form body, never in the path); a client is named by its id and its key in the target file.
import {
  type CheckContext,
  CheckFailure,
  type CredentialRole,
  type FailureDetail,
  fail,
  requestOf,
} from "../../src/check/index.ts";
import type { ApiResponse } from "../../src/client/index.ts";
import { trimTrailingSlashes } from "../../src/http/trailing-slashes.ts";

/** How much of a refusal's body a detail quotes: enough for its error code and description. */
const BODY_EXCERPT = 200;

/** A body that carries an access token, in any answer (a refusal too: a target may add one by mistake). */
const carriesToken = /"access_token"\s*:/;

/** What an answer was, for `actual`: its status and the start of its body, or, where the body carries an
 *  access token, only that a token came (the evidence keeps the exchange, redacted). */
export function answerText(response: ApiResponse<unknown>): string {
  if (carriesToken.test(response.text))
    return `${response.status}, a token issued (${response.ok ? "granted" : "in a refusal"})`;
  const body = response.text.trim();
  if (body === "") return `${response.status}, no body`;
  return `${response.status} ${body.length > BODY_EXCERPT ? `${body.slice(0, BODY_EXCERPT)}...` : body}`;
}

/** The detail of a failure about one answer; `expected` defaults to what the judge's sentence expected. */
export function answerDetail(
  response: ApiResponse<unknown>,
  given: FailureDetail & { problem?: string } = {},
): FailureDetail {
  const { problem, ...detail } = given;
  return {
    actual: answerText(response),
    request: requestOf(response.request.method, response.request.url),
    ...detail,
    expected: detail.expected ?? expectedIn(problem),
  };
}

/** The judges word their sentences "expected X, got <answer>": X is what the failure's detail expected. */
export function expectedIn(problem: string | undefined): string | undefined {
  return problem === undefined ? undefined : /expected (.+?), got /.exec(problem)?.[1];
}

/** As ensure(): fails with the same sentence (`context: problem`) and, beside it, the answer as data. */
export function ensureAnswer(
  problem: string | undefined,
  context: string | undefined,
  response: ApiResponse<unknown>,
  detail: FailureDetail = {},
): void {
  if (problem === undefined) return;
  fail(context ? `${context}: ${problem}` : problem, answerDetail(response, { problem, ...detail }));
}

/** A client as a detail's record names it: its id and its key in the target file (never its secret). */
export function clientRecord(ctx: CheckContext, role: CredentialRole, position?: string): string {
  const clientId = ctx.target.credentials[role]?.clientId;
  const key = credentialKey(ctx, role);
  const client = clientId === undefined ? `credentials.${key}` : `client ${clientId} (credentials.${key})`;
  return position === undefined ? client : `${client}, ${position}`;
}

/** The key in the target file of the client a role names. The second quota lane's checks see the second
 *  quota client as "quota" (its target view keeps quotaAlt beside it): a failure there names the key the
 *  user wrote, credentials.quotaAlt, so that they look at the right client. */
function credentialKey(ctx: CheckContext, role: CredentialRole): string {
  const clientId = ctx.target.credentials[role]?.clientId;
  const alt = ctx.target.quotaAlt?.credential.clientId;
  return role === "quota" && clientId !== undefined && clientId === alt ? "quotaAlt" : role;
}

/** Runs `work`; a failure it throws gains `detail` where it gave none of its own (its sentence unchanged):
 *  for helpers that fail about a request whose answer the caller never sees. */
export async function withDetail<T>(work: Promise<T>, detail: FailureDetail): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (!(error instanceof CheckFailure)) throw error;
    throw new CheckFailure(error.message, { ...detail, ...definedOnly(error.details) });
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The token request as a detail names it, for failures whose answer the caller does not hold. */
export function tokenRequest(ctx: CheckContext): { method: string; path: string } {
  return requestOf("POST", `${trimTrailingSlashes(ctx.target.baseUrl)}/oauth/token`);
}
