// What one verification run shares between the state handlers, the request filter and the report: the
// target, a client over it, tokens per credential role, the states set up right now, and the problems seen.

import type { Credential, CredentialRole, Target } from "../check/index.ts";
import { accessTokenOf, createClient, describeResponse, type InterfaceClient } from "../client/index.ts";
import { Redactor } from "../redaction/redact.ts";
import type { Reference } from "../reference/index.ts";
import { RUN_DEFAULTS } from "../run-defaults.ts";

/** Something that kept a state from holding or a request from being sent as the pact says. */
export interface VerificationProblem {
  /** The provider state, or "request" for a problem of the request filter. */
  source: string;
  message: string;
}

export interface ProviderSession {
  target: Target;
  client: InterfaceClient;
  /** Set when verifying the embedded reference: its state may be arranged directly. */
  reference?: Reference;
  /** Provider states set up and not yet torn down (the interaction being verified). */
  active: Set<string>;
  problems: VerificationProblem[];
  redactor: Redactor;
  credential(role: CredentialRole): Credential | undefined;
  /** An access token of `role`, fetched with client_credentials once and reused. */
  token(role: CredentialRole): Promise<string>;
}

/** A fetch that gives up after `timeoutMs`, so a hanging target cannot hang the verification. */
export function timedFetch(timeoutMs: number): typeof fetch {
  return (input, init) => fetch(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(timeoutMs) });
}

export function createSession(target: Target, options: { reference?: Reference; timeoutMs?: number } = {}) {
  const client = createClient({
    fetch: timedFetch(options.timeoutMs ?? RUN_DEFAULTS.timeoutMs),
    baseUrl: target.baseUrl,
    rdmUrl: target.rdmUrl,
  });
  const redactor = new Redactor();
  for (const credential of Object.values(target.credentials)) redactor.addSecret(credential?.clientSecret);
  const tokens = new Map<CredentialRole, Promise<string>>();
  const session: ProviderSession = {
    target,
    client,
    ...(options.reference ? { reference: options.reference } : {}),
    active: new Set(),
    problems: [],
    redactor,
    credential: (role) => target.credentials[role],
    token(role) {
      let pending = tokens.get(role);
      if (!pending) {
        pending = fetchToken(session, role);
        tokens.set(role, pending);
        // A failed fetch is not kept: the next request tries again.
        pending.catch(() => tokens.delete(role));
      }
      return pending;
    },
  };
  return session;
}

async function fetchToken(session: ProviderSession, role: CredentialRole): Promise<string> {
  const credential = session.credential(role);
  if (!credential)
    throw new Error(
      `no credentials of role "${role}"; name them in the target file under credentials.${role} (clientIdEnv, clientSecretEnv)`,
    );
  const response = await session.client.token(credential);
  const token = accessTokenOf(response);
  if (!token)
    throw new Error(
      `could not obtain a token for role "${role}" (client ${credential.clientId}): ${session.redactor.text(describeResponse(response))}; check the credentials and that the client may use client_credentials`,
    );
  session.redactor.addSecret(token);
  return token;
}
