// Headers that belong to one connection, not to the message: a forwarder (the mock's refusal proxy, the
// Pact provider router) drops them, as RFC 9110 section 7.6.1 asks of an intermediary.
import type { IncomingHttpHeaders } from "node:http";

/** Hop-by-hop headers, lower case: the ones RFC 9110 names, with Proxy-Connection and Trailer, which
 *  clients and older intermediaries still send. */
export const HOP_BY_HOP_HEADERS: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** The headers of an incoming request to send on, without the hop-by-hop ones and without `alsoDropped`
 *  (lower case: e.g. host, which the forwarder's own request sets for the next hop). */
export function forwardedRequestHeaders(
  incoming: IncomingHttpHeaders,
  alsoDropped: ReadonlySet<string> = new Set(),
): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || HOP_BY_HOP_HEADERS.has(name) || alsoDropped.has(name)) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}
