// The verifier's request filter: a pact carries example credentials, so each request gets real ones before
// it reaches the provider. Bearer tokens are replaced by a token of the right role (fetched with
// client_credentials from the target's credentials); HTTP Basic client authentication on the token endpoint
// is replaced by the credentials of the client the interaction speaks for.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CredentialRole } from "../check/index.ts";
import { basicAuthorization } from "../client/index.ts";
import { loadContract, operationCalled } from "../contract/index.ts";
import type { ProviderSession } from "./provider-session.ts";
import { providerState } from "./provider-states.ts";

/** The request as the verifier's proxy hands it over: Express has parsed JSON and form bodies already. */
export type FilteredRequest = IncomingMessage & { body?: unknown };
export type RequestFilter = (req: FilteredRequest, res: ServerResponse, next: () => void) => void;

/** Paths of the verifier's own proxy (state changes, messages): never touched. */
const proxyPaths = ["/_pactSetup", "/_messages"];

/** The target file's credential role for each platform role the contract grants an operation (x-kit-roles). */
const CREDENTIAL_ROLE: Readonly<Record<string, CredentialRole>> = {
  ROLE_RDM: "viewer",
  ROLE_RDM_EDIT: "editor",
  "ROLE_ADMIN_TENANT_{tenantId}": "admin",
};

/** The least privileged role first: a pact is replayed with no more rights than its operation needs. */
const LEAST_PRIVILEGED_FIRST: readonly CredentialRole[] = ["viewer", "editor", "admin"];

/**
 * Roles that may perform an operation, in order of preference, as the contract grants them (x-kit-roles,
 * docs/assumptions.md "Roles"); a request no operation matches may try every role.
 */
export function rolesFor(operationId: string | undefined): CredentialRole[] {
  if (operationId === undefined) return [...LEAST_PRIVILEGED_FIRST];
  const granted = new Set(
    loadContract()
      .operation(operationId)
      .roles.map((role) => {
        const credential = CREDENTIAL_ROLE[role];
        if (credential === undefined)
          throw new Error(
            `the contract grants ${operationId} to "${role}", which no credential role of the target file stands for; expected one of ${Object.keys(CREDENTIAL_ROLE).join(", ")}: add it to CREDENTIAL_ROLE in src/pact/token-injection.ts`,
          );
        return credential;
      }),
  );
  return LEAST_PRIVILEGED_FIRST.filter((role) => granted.has(role));
}

export function operationOf(method: string, path: string): string | undefined {
  return operationCalled(method, path)?.operationId;
}

/** The role an interaction speaks for: a role its provider states name, else the operation's first available one. */
export function roleFor(session: ProviderSession, method: string, path: string): CredentialRole | undefined {
  for (const state of session.active) {
    const role = providerState(state)?.role;
    if (role && session.credential(role)) return role;
  }
  const operationId = operationOf(method, path);
  if (operationId === "issueToken") return session.credential("viewer") ? "viewer" : undefined;
  return rolesFor(operationId).find((role) => session.credential(role) !== undefined);
}

function appendForm(form: URLSearchParams, value: unknown, key: string): void {
  if (Array.isArray(value)) for (const item of value) appendForm(form, item, key);
  else form.append(key, typeof value === "string" ? value : JSON.stringify(value));
}

/**
 * The proxy re-serializes parsed bodies as JSON, which breaks form bodies (pact-js issue #1233) and turns an
 * absent body into "{}". Put the bytes back as the pact's request had them.
 */
export function restoreBody(req: FilteredRequest): void {
  const length = req.headers["content-length"];
  if (req.headers["transfer-encoding"] === undefined && (length === undefined || length === "0")) {
    req.body = undefined;
    return;
  }
  const body = req.body;
  if (body === undefined || body === null || Buffer.isBuffer(body) || typeof body !== "object") return;
  let text: string;
  if (/application\/x-www-form-urlencoded/i.test(String(req.headers["content-type"] ?? ""))) {
    const form = new URLSearchParams();
    for (const [key, value] of Object.entries(body)) appendForm(form, value, key);
    text = form.toString();
  } else {
    text = JSON.stringify(body);
  }
  const bytes = Buffer.from(text);
  req.body = bytes;
  req.headers["content-length"] = String(bytes.length);
}

export function createRequestFilter(session: ProviderSession): RequestFilter {
  const inject = async (req: FilteredRequest): Promise<void> => {
    const authorization = req.headers.authorization;
    // A request without credentials stays without: the pact may be about refusing it.
    if (authorization === undefined) return;
    const method = req.method ?? "GET";
    const path = req.url ?? "/";
    const role = roleFor(session, method, path);
    if (!role)
      throw new Error(`no credentials in the target file may perform ${method} ${path.split("?")[0]}`);
    if (/^basic\s/i.test(authorization)) {
      const credential = session.credential(role);
      if (credential) req.headers.authorization = basicAuthorization(credential);
      return;
    }
    req.headers.authorization = `Bearer ${await session.token(role)}`;
  };
  return (req, _res, next) => {
    if (proxyPaths.some((prefix) => req.url?.startsWith(prefix))) {
      next();
      return;
    }
    restoreBody(req);
    inject(req).then(next, (error: unknown) => {
      session.problems.push({
        source: "request",
        message: `${req.method} ${req.url?.split("?")[0]}: ${session.redactor.text(error instanceof Error ? error.message : String(error))}`,
      });
      next();
    });
  };
}
