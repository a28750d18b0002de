// A check's own token requests, held to its declaration (Check.issuesTokensFor): tokens a check asks the
// token endpoint for count toward the quota of the client's customer, which the token checks set and
// count, so the planner must know of them. A token request for a client the check did not declare is
// refused before it is sent, naming the fix, as a call beyond the check's safety class is.
import type { CredentialRole } from "../check/index.ts";

/** What the transport needs to judge a check's token requests: the roles it declares and the client id of
 *  each role of the target (as the check's lane sees it). */
export interface TokenDeclaration {
  declared: readonly CredentialRole[];
  clients: ReadonlyMap<string, CredentialRole>;
}

/** The client id a request to the token endpoint names (HTTP Basic, or client_id in a form body), or
 *  undefined for any other request. */
export function tokenRequestClient(
  method: string,
  url: string,
  headers: Headers,
  bodyText: string | undefined,
): string | undefined {
  if (method.toUpperCase() !== "POST") return undefined;
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return undefined;
  }
  if (!/\/oauth\/token\/*$/.test(path)) return undefined;
  const basic = /^Basic\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "");
  if (basic?.[1] !== undefined) {
    const decoded = Buffer.from(basic[1], "base64").toString("utf8");
    const id = decoded.split(":")[0] ?? "";
    try {
      return new URLSearchParams(`x=${id}`).get("x") ?? id;
    } catch {
      return id;
    }
  }
  if (bodyText !== undefined && /x-www-form-urlencoded/i.test(headers.get("content-type") ?? ""))
    return new URLSearchParams(bodyText).get("client_id") ?? undefined;
  return undefined;
}

/** Why a check's token request must not be sent, or undefined when its declaration covers it (or the
 *  client is none of the target's roles: a made-up client gets no token to count). */
export function undeclaredTokenRequest(
  checkId: string,
  declaration: TokenDeclaration,
  clientId: string | undefined,
): string | undefined {
  if (clientId === undefined) return undefined;
  const role = declaration.clients.get(clientId);
  if (role === undefined || declaration.declared.includes(role)) return undefined;
  const declared = [...declaration.declared, role].map((r) => `"${r}"`).join(", ");
  return (
    `${checkId} asked the token endpoint for a token of the ${role} client itself, which its declaration ` +
    `does not say; the kit refused to send it. Such tokens count toward the quota of the client's customer, ` +
    `which the token checks set: declare issuesTokensFor: [${declared}] in the check (or get the token ` +
    "through ctx.token, which the runner fetches once)"
  );
}
