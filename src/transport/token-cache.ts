// One access token per credential role for the whole run, fetched with client_credentials and Basic auth
// (docs/assumptions.md, TOKEN-ENDPOINT; id and secret form-encoded first, RFC 6749 §2.3.1), renewed when the target's clock says it expired.

import { CheckFailure, type Clock, type CredentialRole, type Target } from "../check/index.ts";
import { basicAuthorization } from "../client/token.ts";
import { trimTrailingSlashes } from "../http/trailing-slashes.ts";
import type { Redactor } from "../redaction/redact.ts";

/** Renew a little before expiry so a token does not die between the cache and the target. */
const EXPIRY_MARGIN_MS = 5_000;

interface Cached {
  token: string;
  expiresAt: number;
}

export class TokenCache {
  private readonly cache = new Map<CredentialRole, Cached>();

  constructor(
    private readonly target: Target,
    private readonly redactor: Redactor,
  ) {
    // Every form a credential can take on the wire (the secret, both Basic encodings of the pair) is known
    // to the redactor before the first request, whatever the target echoes.
    for (const credential of Object.values(target.credentials))
      if (credential) redactor.addCredential(credential.clientId, credential.clientSecret);
  }

  reset(): void {
    this.cache.clear();
  }

  async token(role: CredentialRole, fetch: typeof globalThis.fetch, clock: Clock, checkId: string) {
    const cached = this.cache.get(role);
    if (cached && clock.now() < cached.expiresAt) return cached.token;
    const credential = this.target.credentials[role];
    if (!credential)
      // Planning skips checks whose declared roles lack credentials; reaching this is a fault of the check.
      throw new Error(
        `check ${checkId} asked for a token of role "${role}", which the target has no credentials for ` +
          `and which the check does not declare in needs.roles; declare it so planning can skip the check`,
      );
    const url = `${trimTrailingSlashes(this.target.baseUrl)}/oauth/token`;
    const response = await fetch(url, {
      method: "POST",
      headers: {
        authorization: basicAuthorization(credential),
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
      },
      body: "grant_type=client_credentials",
    });
    const text = await response.text();
    const refuse = (what: string): never => {
      throw new CheckFailure(
        `could not obtain an access token for role "${role}" (client ${credential.clientId}): POST ${url} ` +
          `${what}; check the role's credentials in the target file and that the client may use the ` +
          "client_credentials grant",
        { expected: '200 with a JSON body holding "access_token"', actual: `${response.status} ${text}` },
      );
    };
    if (!response.ok) refuse(`answered ${response.status}`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      refuse(`answered ${response.status} with a body that is not JSON`);
    }
    const token = (body as { access_token?: unknown } | null)?.access_token;
    if (typeof token !== "string" || token === "") return refuse("answered without an access_token");
    this.redactor.addSecret(token);
    const expiresIn = Number((body as { expires_in?: unknown }).expires_in);
    const lifetime = Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn * 1000 : 3_600_000;
    this.cache.set(role, { token, expiresAt: clock.now() + Math.max(0, lifetime - EXPIRY_MARGIN_MS) });
    return token;
  }
}
