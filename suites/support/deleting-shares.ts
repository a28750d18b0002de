// The tenant's lookups shared out among the checks that delete them, so that no deleting check's verdict
// depends on which deleting check ran before it (the plan runs them in any order: --order-seed). The
// shares are drawn from the tenant as it was before the first deleting check of the run (a run fact: the
// first deleting check reads it, before it deletes anything), never from what is left when a check starts:
// - delete-task/by-type deletes the type with the most lookups (ties broken by the run's seed);
// - the explorer deletes by type the type with the fewest, where the tenant holds three types or more;
// - the lookups of every other type go, by a hash of their identity, to the checks that delete by URIs
//   (the explorer, delete-task/by-uris, delete-task/foreign-uris-delete-nothing), a third each.
// A check deletes only from its share of what is still there, and reads the whole tenant before and after
// its tasks, so what an earlier check removed (rightly, or wrongly under a fault) is neither held against
// it nor able to pass for its own task's effect. Where its share is gone, it judges nothing (inconclusive).
// delete-task/all-of-tenant empties the tenant: the plan runs it after every other deleting check.
import { type CheckContext, defineFact, inconclusive } from "../../src/check/index.ts";
import { typeName } from "./data-operations.ts";
import { identityOf, type Rec } from "./data-oracle.ts";

/** The checks that delete from the tenant's lookups by URIs, each with a share of its own. */
export type UriShare = "explorer" | "by-uris" | "foreign-uris";
const URI_SHARES: readonly UriShare[] = ["explorer", "by-uris", "foreign-uris"];

/** The tenant's lookups (identity and type name) before the run's first deleting check. */
export const tenantBeforeDeletes = defineFact<{ id: string; type: string }[] | undefined>(
  "deleting/tenant-before",
  "the tenant's lookups before the run's first deleting check, which the deleting checks share out",
);

export interface Shares {
  /** The type delete-task/by-type deletes (undefined: the tenant held no lookup). */
  byType?: string;
  /** The type the explorer deletes by type (undefined: fewer than three types). */
  explorerType?: string;
  /** The check whose URIs may name the lookup; undefined for the lookups of the two types above. */
  uriShareOf(lookup: Rec): UriShare | undefined;
}

/** FNV-1a of a string: a share that depends on the lookup alone, not on what else the tenant holds. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export function sharesOf(before: readonly { id: string; type: string }[], seed: number): Shares {
  const counts = new Map<string, number>();
  for (const { type } of before) counts.set(type, (counts.get(type) ?? 0) + 1);
  const ranked = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const most = ranked[0]?.[1] ?? 0;
  const largest = ranked.filter(([, n]) => n === most).map(([t]) => t);
  const byType = largest[Math.abs(seed) % Math.max(1, largest.length)];
  const explorerType = ranked.length >= 3 ? ranked.at(-1)?.[0] : undefined;
  return {
    ...(byType === undefined ? {} : { byType }),
    ...(explorerType === undefined ? {} : { explorerType }),
    uriShareOf(lookup) {
      const type = typeName(String(lookup.type));
      if (type === byType || type === explorerType) return undefined;
      return URI_SHARES[hash(identityOf("lookups", lookup)) % URI_SHARES.length];
    },
  };
}

/** The shares of the run, from the tenant before its first deleting check: `present` (the tenant as the
 *  calling check read it, before its own first task) is that state when no deleting check ran before. */
export function runShares(ctx: CheckContext, present: readonly Rec[]): Shares {
  let before = ctx.facts.get(tenantBeforeDeletes);
  if (before === undefined) {
    before = present.map((l) => ({ id: identityOf("lookups", l), type: typeName(String(l.type)) }));
    ctx.facts.set(tenantBeforeDeletes, before);
  }
  return sharesOf(before, ctx.seed);
}

/** The check's share is gone (an earlier check removed it, rightly or under a fault): nothing to judge. */
export function shareGone(ctx: CheckContext, check: string, share: string): never {
  inconclusive({
    saw: `${check}: tenant ${ctx.target.tenant} holds none of the lookups this check deletes (${share}) any more`,
    readings: [
      "an earlier deleting check of this run removed them",
      "the tenant held too few lookups to share among the deleting checks",
    ],
    decideBy: `run ${check} alone (--check ${check}) against a tenant with lookups of three types or more`,
  });
}
