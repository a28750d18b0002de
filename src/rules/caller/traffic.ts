// A client's recorded traffic read once for the caller rules: which operation each request called, which
// client sent it, which tokens were issued to whom. The rules then judge from this, never from raw text.
import { operationCalled } from "../../contract/index.ts";
import type { RecordedExchange } from "../../reference/index.ts";

export interface TrafficExchange extends Omit<RecordedExchange, "body"> {
  body: string | undefined;
  /** The contract's operationId, or undefined for a path the interface does not have. */
  operation: string | undefined;
  pathname: string;
  /** The query string, with its "?" ("" when none). */
  search: string;
  /** The bearer token it carried, read once (undefined: no Authorization: Bearer <token>). */
  bearer: string | undefined;
  /** The client that sent it: from Basic credentials or form fields on the token endpoint, from the owner of
   *  the bearer token elsewhere; undefined when neither tells. */
  clientId: string | undefined;
}

export interface IssuedTokenSeen {
  value: string;
  /** seq of the token request that issued it. */
  seq: number;
  clientId: string;
  issuedAt: number;
  expiresAt: number;
  /** When the token answer had come (issuedAt is when its request was sent), where the traffic says. */
  answeredAt?: number;
}

/** What the sandbox's world says of a client: its multi-token quota (when multi-token support is on). */
export interface CallerClient {
  clientId: string;
  maxActiveTokensAllowed?: number;
  multitoken: boolean;
  /** Tokens of the client that other sessions held from before its first request until expiresAt (the
   *  client check's world quota-held-elsewhere): they count toward its quota; its traffic never shows them. */
  heldElsewhere?: readonly { expiresAt: number }[];
}

export interface Traffic {
  exchanges: TrafficExchange[];
  tokens: IssuedTokenSeen[];
  clients: ReadonlyMap<string, CallerClient>;
  /** The provider choice the sandbox took (a variant name), when a sweep ran it. */
  variant?: string;
  /** In a sweep, the same command's traffic under the default, for the rule that judges differences. */
  baseline?: { traffic: Traffic };
  /** {base_url} and {rdm_url} where the deployment serves them at different addresses (no trailing slash):
   *  then each request's address is judged too. */
  addresses?: { baseUrl: string; rdmUrl: string };
  /** The command that made this traffic failed (a client check knows; recorded traffic does not). */
  commandFailed?: boolean;
}

function basicClient(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^basic\s+(\S+)/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1] as string, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon < 0 ? undefined : decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " "));
}

/** A walk of the traffic that several rules read, made once per traffic: each rule's judge calls the
 *  returned function, and the first call walks. */
export function oncePerTraffic<T>(walk: (traffic: Traffic) => T): (traffic: Traffic) => T {
  const walked = new WeakMap<Traffic, T>();
  return (traffic) => {
    if (walked.has(traffic)) return walked.get(traffic) as T;
    const result = walk(traffic);
    walked.set(traffic, result);
    return result;
  };
}

export function bearerOf(headers: Record<string, string>): string | undefined {
  const match = /^bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? "");
  return match ? (match[1] as string) : undefined;
}

function json(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Path and query of an absolute URL as the sandbox recorded it (WHATWG-normalised already), without
 *  parsing it again. */
export function pathOf(url: string): { pathname: string; search: string } {
  const scheme = url.indexOf("://");
  const start = scheme < 0 ? 0 : url.indexOf("/", scheme + 3);
  if (start < 0) return { pathname: "/", search: "" };
  const hash = url.indexOf("#", start);
  const end = hash < 0 ? url.length : hash;
  const query = url.indexOf("?", start);
  return query < 0 || query > end
    ? { pathname: url.slice(start, end), search: "" }
    : { pathname: url.slice(start, query), search: url.slice(query, end) };
}

/** A reading that depends on two strings alone (an operation and its path, query or body), made once per
 *  distinct pair: a client repeats its paths and queries, so a day of traffic reads a few hundred of them.
 *  Keyed by the two strings as they are (a string joined per request, to look it up, cost more than the
 *  reading it saved). The reading is given once, here, and called with `of` (the request it reads): no
 *  closure is made per request. At most `limit` pairs are kept; past them it reads again. */
export function remembered<A, T>(
  read: (of: A) => T,
  limit = 100_000,
): (scope: string, key: string, of: A) => T {
  const known = new Map<string, Map<string, T>>();
  let size = 0;
  return (scope, key, of) => {
    let inScope = known.get(scope);
    if (inScope === undefined) {
      inScope = new Map();
      known.set(scope, inScope);
    } else {
      const value = inScope.get(key);
      if (value !== undefined || inScope.has(key)) return value as T;
    }
    const value = read(of);
    if (size < limit) {
      inScope.set(key, value);
      size += 1;
    }
    return value;
  };
}

/** What a method and URL name, read once per distinct pair: the path and query as single strings every
 *  request to that URL shares (a Map finds a shared string at once; a slice made per request is hashed
 *  again at each lookup), and the operation. */
interface Route {
  pathname: string;
  search: string;
  operation: string | undefined;
}

/** The routes of a traffic's method and URL pairs, each read once (the operation once per method and path,
 *  whatever the query). */
function routeLookup(): (x: RecordedExchange) => Route {
  const operationRead = remembered((x: RecordedExchange) => operationCalled(x.method, x.url)?.operationId);
  const routeRead = remembered((x: RecordedExchange): Route => {
    const { pathname, search } = pathOf(x.url);
    return { pathname, search, operation: operationRead(x.method, pathname, x) };
  });
  return (x) => routeRead(x.method, x.url, x);
}

export function readTraffic(
  recorded: readonly RecordedExchange[],
  clients: readonly CallerClient[],
): Traffic {
  const owner = new Map<string, string>();
  const routeOf = routeLookup();
  const tokens: IssuedTokenSeen[] = [];
  // A recording is in seq order already, as a rule: then it is not sorted again.
  let ordered = true;
  for (let i = 1; i < recorded.length && ordered; i++)
    ordered = (recorded[i - 1] as RecordedExchange).seq <= (recorded[i] as RecordedExchange).seq;
  const sorted = ordered ? recorded : [...recorded].sort((a, b) => a.seq - b.seq);
  const bearers = new Map<string | undefined, string | undefined>();
  const exchanges = sorted.map((x): TrafficExchange => {
    const { pathname, search, operation } = routeOf(x);
    let clientId: string | undefined;
    // The Authorization header read once per distinct value: a client sends the same token many times.
    const authorization = x.headers.authorization;
    let bearer = bearers.get(authorization);
    if (bearer === undefined && !bearers.has(authorization)) {
      bearer = bearerOf(x.headers);
      if (bearers.size < 100_000) bearers.set(authorization, bearer);
    }
    if (operation === "issueToken") {
      clientId =
        basicClient(x.headers.authorization) ??
        new URLSearchParams(x.body ?? "").get("client_id") ??
        undefined;
      const answer =
        x.status === 200 ? (json(x.responseBody) as Record<string, unknown> | undefined) : undefined;
      if (clientId !== undefined && typeof answer?.access_token === "string") {
        const seconds = typeof answer.expires_in === "number" ? answer.expires_in : 3600;
        owner.set(answer.access_token, clientId);
        tokens.push({
          value: answer.access_token,
          seq: x.seq,
          clientId,
          issuedAt: x.at,
          expiresAt: x.at + seconds * 1000,
        });
      }
    } else clientId = bearer === undefined ? undefined : owner.get(bearer);
    // Named fields, not a spread: a spread of each recorded exchange cost more than the rest together.
    return {
      seq: x.seq,
      at: x.at,
      method: x.method,
      url: x.url,
      headers: x.headers,
      body: x.body,
      status: x.status,
      responseHeaders: x.responseHeaders,
      responseBody: x.responseBody,
      durationMs: x.durationMs,
      pathname,
      search,
      operation,
      bearer,
      clientId,
    };
  });
  return { exchanges, tokens, clients: new Map(clients.map((c) => [c.clientId, c])) };
}

export { json as parseJson };
