// A request that calls none of the contract's operations, read against them: which requests the document
// leaves unjudged (the token endpoint is not shown), and the operations nearest to the one it missed, so a
// finding names what the caller most likely meant.
import { type ContractOperation, loadContract } from "../../contract/index.ts";
import type { TrafficExchange } from "./traffic.ts";

/** Why a request that matches no operation is still not judged, or undefined: it is judged. The token
 *  endpoint and its request shape are not shown, so an OAuth token request (grant_type in its form or query)
 *  or a lookup of an authorization server's metadata (/.well-known/) may go where the caller's deployment
 *  says; HEAD and OPTIONS (a CORS preflight) ask about a path the contract has, not for an operation. */
export function unjudgedReason(x: TrafficExchange): string | undefined {
  if (/(^|[?&])grant_type=/.test(`${x.search.slice(1)}&${x.body ?? ""}`)) return "a token request";
  if (x.pathname.includes("/.well-known/")) return "an authorization server's metadata";
  const method = x.method.toUpperCase();
  if (method === "HEAD" || method === "OPTIONS") {
    const contract = loadContract();
    const known = contract.operations.some(
      (o) =>
        (method === "OPTIONS" || o.method === "GET") && contract.findOperation(o.host, o.method, x.pathname),
    );
    if (known) return `${method} of a path the contract has`;
  }
  return undefined;
}

const segmentsOf = (path: string) => path.split("/").filter(Boolean);

/** Edits (insert, delete, substitute a segment) that turn the request's path into the template's; a
 *  template parameter takes any one segment. */
function segmentDistance(given: string[], template: string[]): number {
  const d = Array.from({ length: given.length + 1 }, (_, i) =>
    Array.from({ length: template.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= given.length; i++)
    for (let j = 1; j <= template.length; j++) {
      const t = template[j - 1] as string;
      const same = t.startsWith("{") || t === given[i - 1];
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      row[j] = Math.min(
        (up[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (up[j - 1] as number) + (same ? 0 : 1),
      );
    }
  return (d[given.length] as number[])[template.length] as number;
}

/** The documented operations nearest to a request's method and path (a wrong method costs one edit),
 *  closest first, at most `most`. */
export function nearestOperations(x: TrafficExchange, most = 2): ContractOperation[] {
  const given = segmentsOf(x.pathname);
  const ranked = loadContract()
    .operations.filter((o) => !o.extension)
    .map((o) => ({
      o,
      distance: segmentDistance(given, segmentsOf(o.path)) + (o.method === x.method.toUpperCase() ? 0 : 1),
    }))
    .sort((a, b) => a.distance - b.distance);
  const best = ranked[0]?.distance ?? 0;
  return ranked
    .filter((r) => r.distance === best)
    .slice(0, most)
    .map((r) => r.o);
}

export const shownOperation = (o: ContractOperation) => `${o.method} ${o.path} (${o.operationId})`;
