// Which body carries the scroll id on next-page requests: pinned by the target profile, or found by a
// safe read probe ("auto") and remembered per target and scan.

import { type CheckContext, type CredentialRole, defineFact } from "../../src/check/index.ts";
import {
  pageOf,
  type ScanEndpoint,
  type ScrollIdEncoding,
  scrollIdEncodings,
} from "../../src/client/index.ts";
import { clientOf } from "./target-client.ts";

/** Run fact: the scroll id encoding found to work, per scan endpoint kind (a probe costs two requests). */
export const scrollIdEncodingFact = defineFact<ReadonlyMap<string, ScrollIdEncoding>>(
  "scroll-id-encoding",
  "the scroll id encoding a safe probe found to work, per scan endpoint",
);

export async function scrollEncodingFor(
  ctx: CheckContext,
  role: CredentialRole,
  endpoint: ScanEndpoint,
): Promise<ScrollIdEncoding> {
  const pinned = ctx.target.profile.scrollIdEncoding;
  if (pinned !== "auto") return pinned;
  const known = ctx.facts.get(scrollIdEncodingFact) ?? new Map<string, ScrollIdEncoding>();
  const cached = known.get(endpoint.kind);
  if (cached) return cached;
  const client = clientOf(ctx);
  const auth = await ctx.token(role);
  for (const encoding of scrollIdEncodings) {
    // A fresh scroll per attempt: a refused attempt must not be mistaken for a consumed page.
    const first = pageOf(await client.scanFirst(auth, endpoint, { limit: 1 }));
    if (!first?.scrollId) return "object"; // one page only: nothing to detect, and nothing depends on it
    const next = await client.scanNext(auth, endpoint, first.scrollId, encoding, { limit: 1 });
    if (pageOf(next)) {
      ctx.facts.set(scrollIdEncodingFact, new Map([...known, [endpoint.kind, encoding]]));
      ctx.log.info(`scroll id encoding detected for ${endpoint.kind}: ${encoding}`);
      return encoding;
    }
  }
  ctx.log.info(`no scroll id encoding worked for ${endpoint.kind}; using the kit's choice (object)`);
  return "object";
}
