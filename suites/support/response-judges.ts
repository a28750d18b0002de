// Judging refusals where the document names the condition but not the status code or body
// ("Status codes, error codes and the error body shape: not shown"). MUST-level judges accept every
// reasonable behaviour (docs/assumptions.md) unless the target profile pins one; each returns undefined
// when the answer is acceptable, or a sentence saying what was expected.

import { fail, type Profile } from "../../src/check/index.ts";
import { type ApiResponse, describeResponse } from "../../src/client/index.ts";

export const limitWording = /limit|exceed|quota|too many/i;
export const expiryWording = /expir/i;

export function isClientError(status: number): boolean {
  return status >= 400 && status < 500;
}

/** Refused for missing, malformed or unknown credentials: 401 or 403 (some gateways answer 403). */
export function judgeAuthRefusal(response: ApiResponse<unknown>): string | undefined {
  if (response.status === 401 || response.status === 403) return undefined;
  return `expected a refusal (401 or 403), got ${describeResponse(response)}`;
}

/** Refused for another tenant: 403 is the kit's choice; 401 and 404 are reasonable too. */
export function judgeTenantRefusal(response: ApiResponse<unknown>): string | undefined {
  if ([401, 403, 404].includes(response.status)) return undefined;
  return `expected a refusal for a tenant not on the caller's list (403, or 401/404), got ${describeResponse(response)}`;
}

/** Refused for an insufficient role: 403 (or 401). */
export function judgeRoleRefusal(response: ApiResponse<unknown>): string | undefined {
  if (response.status === 401 || response.status === 403) return undefined;
  return `expected a refusal for an insufficient role (403, or 401), got ${describeResponse(response)}`;
}

function statusAllowed(pinned: number | string, status: number, tolerant: (s: number) => boolean): boolean {
  return typeof pinned === "number" ? status === pinned : tolerant(status);
}

/** "use of the token yields an expired-token error": 401/403 (or the pinned status) naming the expiry in
 *  the body or in WWW-Authenticate. */
export function judgeExpiredRefusal(profile: Profile, response: ApiResponse<unknown>): string | undefined {
  const allowed = statusAllowed(profile.expiredTokenStatus, response.status, (s) => s === 401 || s === 403);
  const wording =
    expiryWording.test(response.text) || expiryWording.test(response.headers.get("www-authenticate") ?? "");
  if (allowed && wording) return undefined;
  const status =
    typeof profile.expiredTokenStatus === "number" ? String(profile.expiredTokenStatus) : "401 or 403";
  return `expected an expired-token error (${status}, with "expired" in the body or WWW-Authenticate), got ${describeResponse(response)}`;
}

/** "request declined with an error stating the limit is exceeded": a 4xx (or the pinned status) whose
 *  body states the limit, carrying no token. */
export function judgeQuotaRefusal(profile: Profile, response: ApiResponse<unknown>): string | undefined {
  const allowed = statusAllowed(profile.quotaRefusalStatus, response.status, isClientError);
  const issued = /"access_token"\s*:\s*"[^"]/.test(response.text);
  if (allowed && limitWording.test(response.text) && !issued) return undefined;
  const status =
    typeof profile.quotaRefusalStatus === "number" ? String(profile.quotaRefusalStatus) : "a 4xx";
  return `expected a limit-exceeded refusal (${status} whose body states the limit, no access_token), got ${describeResponse(response)}`;
}

/** "validation error": 400 or 422 (or the pinned status). */
export function judgeValidationError(profile: Profile, response: ApiResponse<unknown>): string | undefined {
  const allowed = statusAllowed(
    profile.validationErrorStatus,
    response.status,
    (s) => s === 400 || s === 422,
  );
  if (allowed) return undefined;
  const status =
    typeof profile.validationErrorStatus === "number" ? String(profile.validationErrorStatus) : "400 or 422";
  return `expected a validation error (${status}), got ${describeResponse(response)}`;
}

/** The kit's error body: {"error": code, "error_description": text} (ERRORS-01). */
export function judgeKitErrorBody(response: ApiResponse<unknown>): string | undefined {
  const body = response.body;
  if (
    typeof body === "object" &&
    body !== null &&
    typeof (body as { error?: unknown }).error === "string" &&
    typeof (body as { error_description?: unknown }).error_description === "string"
  )
    return undefined;
  return `expected a JSON body {"error", "error_description"}, got ${describeResponse(response)}`;
}

/** A body is what "Bodies are JSON" promises: empty (where the document shows no response body), or JSON
 *  text under a JSON media type (application/json, or any type ending in +json) or none. */
export function jsonBodyProblem(response: ApiResponse<unknown>): string | undefined {
  if (response.text.trim() === "") return undefined;
  const media = response.contentType;
  if (media !== "" && !/^[\w.+-]+\/([\w.+-]+\+)?json$/.test(media))
    return `expected a JSON body ("Bodies are JSON"), got Content-Type ${media}: ${describeResponse(response)}`;
  if (response.body === undefined)
    return `expected a JSON body ("Bodies are JSON"), got text that does not parse as JSON: ${describeResponse(response)}`;
  return undefined;
}

/** A 2xx answer whose body, if any, is JSON: a 200 HTML page is not a success of the interface. */
export function judgeSuccess(response: ApiResponse<unknown>, what: string): string | undefined {
  if (!response.ok) return `expected ${what} to succeed (2xx), got ${describeResponse(response)}`;
  const problem = jsonBodyProblem(response);
  return problem === undefined ? undefined : `${what}: ${problem}`;
}

/** A 2xx answer carrying the documented shape; `shape` names what is wrong with the parsed body. */
export function judgeData(
  response: ApiResponse<unknown>,
  what: string,
  shape: (body: unknown) => string | undefined,
): string | undefined {
  const failed = judgeSuccess(response, what);
  if (failed !== undefined) return failed;
  const problem = shape(response.body);
  return problem === undefined
    ? undefined
    : `${what}: expected ${problem}, got ${describeResponse(response)}`;
}

/** Shapes of documented answers, for judgeData: a scan page and the blocked values array. */
export const scanPageShape = (body: unknown): string | undefined => {
  const values = (body as { values?: unknown } | null | undefined)?.values;
  return typeof body === "object" && body !== null && Array.isArray(values)
    ? undefined
    : 'a scan page {"scrollId", "values": [...]}';
};
export const arrayShape = (body: unknown): string | undefined =>
  Array.isArray(body) ? undefined : "a JSON array";

/** Fails the check with the judge's sentence when there is one. */
export function ensure(problem: string | undefined, context?: string): void {
  if (problem !== undefined) fail(context ? `${context}: ${problem}` : problem);
}
