// Planning a run: which checks run, which are skipped and why. Sends nothing; `lckit run --list` prints it.
import type { Check, CredentialRole, Level, Safety, Target } from "../check/index.ts";
import { matchesId } from "./glob.ts";

export interface PlanOptions {
  target: Target;
  /** Suite names to run (exact); empty or absent: every suite. */
  suites?: readonly string[];
  /** Check ids to run, exact or glob (`token-quota/*`); empty or absent: every check. */
  ids?: readonly string[];
  /** Lowest level to run: MUST runs MUST only, SHOULD runs MUST and SHOULD, MAY (default) runs all. */
  level?: Level;
  /** Safety classes allowed beyond `read` (a disposable target needs none). */
  allow?: readonly Safety[];
  /** Destructive checks against a target that is not disposable run only when this equals target.tenant. */
  confirmTenant?: string;
  /** True when the kit can drive the target's clock (the embedded reference). */
  drivableClock?: boolean;
  /** Shuffles the checks (within the destructive/read-the-others'-traffic groups) by this seed, so that a
   *  verdict that depends on which check ran first shows (`--order-seed`). Absent: the given order. */
  orderSeed?: number;
}

/** Why a check does not run: the user did not select it, safety settings forbid it, or the target lacks
 *  something it needs (credentials, a second tenant, a drivable clock). */
export type SkipKind = "selection" | "safety" | "needs";

export interface PlanEntry {
  check: Check;
  action: "run" | "skip";
  skipKind?: SkipKind;
  reason?: string;
}

export interface Plan {
  target: Target;
  options: {
    suites: string[];
    ids: string[];
    level: Level;
    allow: Safety[];
    confirmTenant?: string;
    drivableClock: boolean;
    orderSeed?: number;
  };
  /** Every check given to planRun, in run order: the given order (shuffled by orderSeed), but destructive
   *  checks after the others and the checks that read the others' traffic (Check.readsOthersTraffic) last. */
  entries: PlanEntry[];
  /** Suite names and id patterns given that matched no check (the CLI reports them as usage errors). */
  unmatched: { suites: string[]; ids: string[] };
}

const levelRank: Record<Level, number> = { MUST: 0, SHOULD: 1, MAY: 2 };

export function planRun(checks: readonly Check[], options: PlanOptions): Plan {
  const suites = [...(options.suites ?? [])];
  const ids = [...(options.ids ?? [])];
  const level = options.level ?? "MAY";
  const allow = [...new Set(options.allow ?? [])];
  const drivableClock = options.drivableClock ?? false;
  const resolved = {
    suites,
    ids,
    level,
    allow,
    confirmTenant: options.confirmTenant,
    drivableClock,
    ...(options.orderSeed === undefined ? {} : { orderSeed: options.orderSeed }),
  };

  const inOrder = options.orderSeed === undefined ? checks : shuffled(checks, options.orderSeed);
  const ordered = [0, 1, 2, 3].flatMap((r) => inOrder.filter((c) => planRank(c) === r));
  const entries = ordered.map((check) => planEntry(check, options.target, resolved));
  return {
    target: options.target,
    options: resolved,
    entries,
    unmatched: {
      suites: suites.filter((s) => !checks.some((c) => c.suite === s)),
      ids: ids.filter((p) => !checks.some((c) => matchesId(c.id, p))),
    },
  };
}

/**
 * Where a check goes in the plan, by what it does to the data the others read: destructive checks delete
 * data other checks read, so they go after the rest, and the one that empties the tenant after them; a
 * check that reads everyone's traffic goes last of all. Within a rank the given order holds, or the order
 * seed's.
 */
export function planRank(check: Check): number {
  if (check.readsOthersTraffic === true) return 3;
  if (check.safety !== "destructive") return 0;
  return check.emptiesTenant === true ? 2 : 1;
}

/** `items` in an order drawn from `seed` (Fisher-Yates over mulberry32): the same seed, the same order. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

function planEntry(check: Check, target: Target, options: Plan["options"]): PlanEntry {
  const selection = selectionReason(check, options);
  if (selection) return { check, action: "skip", skipKind: "selection", reason: selection };
  const safety = safetyReason(check, target, options);
  if (safety) return { check, action: "skip", skipKind: "safety", reason: safety };
  const needs = needsReason(check, target, options.drivableClock);
  if (needs) return { check, action: "skip", skipKind: "needs", reason: needs };
  return { check, action: "run" };
}

function selectionReason(check: Check, options: Plan["options"]): string | undefined {
  if (options.suites.length > 0 && !options.suites.includes(check.suite))
    return `not selected: suite ${check.suite} is not among --suite ${options.suites.join(", ")}`;
  if (options.ids.length > 0 && !options.ids.some((p) => matchesId(check.id, p)))
    return `not selected: id matches none of --check ${options.ids.join(", ")}`;
  if (levelRank[check.level] > levelRank[options.level])
    return `not selected: level ${check.level} is below --level ${options.level}`;
  return undefined;
}

function safetyReason(check: Check, target: Target, options: Plan["options"]): string | undefined {
  // Only a disposable target (the embedded reference, a sandbox its file marks so) is the kit's playground.
  // Loopback is no permission: a port-forward or an SSH tunnel to production is on 127.0.0.1 too.
  if (target.disposable === true || check.safety === "read") return undefined;
  if (!options.allow.includes(check.safety))
    return (
      `safety: ${check.safety} checks do not run against a target that is not marked disposable unless ` +
      `allowed; add --allow ${check.safety} (or "allow: [${check.safety}]" in the target file) to run it, ` +
      `or "disposable: true" if the target is a sandbox the kit may change freely`
    );
  if (check.safety === "destructive" && options.confirmTenant !== target.tenant)
    return (
      `safety: destructive checks delete data in tenant ${target.tenant}; name the tenant with ` +
      `--confirm-tenant ${target.tenant} (or "confirmTenant: ${target.tenant}" in the target file) to run it` +
      (options.confirmTenant === undefined ? "" : ` (got "${options.confirmTenant}")`)
    );
  return undefined;
}

function needsReason(check: Check, target: Target, drivableClock: boolean): string | undefined {
  const missing: string[] = [];
  const roles = check.needs.roles.filter((role: CredentialRole) => target.credentials[role] === undefined);
  if (roles.length > 0)
    missing.push(
      `credentials for role${roles.length > 1 ? "s" : ""} ${roles.join(", ")} ` +
        `(add ${roles.map((r) => `credentials.${r}`).join(", ")} to the target file)`,
    );
  if (check.needs.otherTenant && target.otherTenant === undefined)
    missing.push("a second tenant (add otherTenant and credentials.otherAdmin to the target file)");
  if (check.needs.rdbmsTenant && (target.rdbmsTenant === undefined || target.rdbmsCustomerId === undefined))
    missing.push(
      "a tenant with auth.migration.mode=rdbms (add rdbmsTenant and rdbmsCustomerId to the target file)",
    );
  if (check.needs.drivableClock && !drivableClock)
    missing.push("a clock the kit can drive (only the embedded reference has one)");
  return missing.length === 0 ? undefined : `needs ${missing.join("; ")}`;
}

/** Entries that will run, in order. */
export function runnable(plan: Plan): PlanEntry[] {
  return plan.entries.filter((e) => e.action === "run");
}

/** Entries the user selected (run or skipped for safety or needs). */
export function selected(plan: Plan): PlanEntry[] {
  return plan.entries.filter((e) => e.skipKind !== "selection");
}

/**
 * How a run against a target whose clock cannot be driven overlaps its waiting. Checks that change token
 * quotas or wait on token validity (safety "quota", or a check using the quota client, whose validity and
 * quota the kit changes) spend most of their time waiting; they run one after another in one lane, while
 * the read checks that do not use the quota client run one after another in a second lane beside them.
 * A read check that asks the token endpoint for tokens itself (Check.issuesTokensFor) joins the token
 * lane instead: its tokens would count toward a quota the token checks are counting, and a quota they set
 * could refuse it.
 * Reads change nothing and the quota lane changes only the quota client and the quota configuration of
 * its customer, which no read check looks at through a token of its own (the read lane's tokens are
 * fetched before the lanes start, so a validity the quota lane shortens never reaches them). After its
 * reads the second lane runs the checks that change data only (Check.changes "data": delete tasks), in
 * plan order. Everything else (configuration changes, the checks that read everyone's traffic) runs
 * afterwards alone, in plan order. Indexes are into `entries`; skipped entries go `after`.
 *
 * With a second quota client in a customer of its own (Target.quotaAlt), the token lane splits in two:
 * the quota checks that need nothing but the admin and the quota client (no viewer, no other tenant, no
 * token requests of their own) may run in the second token lane, where "the quota client" and its
 * customer are the second ones; the rest stays in the first. Quotas are set per customer, so the two
 * lanes never change the same thing. The split balances the lanes by each check's expected wait.
 */
export interface Schedule {
  /** Lanes that run side by side, each in order. */
  lanes: number[][];
  /** What runs once every lane is done, one at a time. */
  after: number[];
  /** Index into `lanes` of the lane whose checks use the second quota client, when the lane is split. */
  secondQuotaLane?: number;
  /** Why the token checks run as they do, said once (the plan's and the run's output print it). */
  note?: string;
}

export function waitsOnTokens(check: Check): boolean {
  return check.safety === "quota" || check.needs.roles.includes("quota");
}

/** True for a check that must not run beside the token checks: it waits on tokens itself, or its own token
 *  requests would meet (and change) the quotas they set. */
export function inTokenLane(check: Check): boolean {
  return waitsOnTokens(check) || (check.issuesTokensFor ?? []).length > 0;
}

/** The note a live run without a second quota client gives, once. */
export const ONE_QUOTA_CLIENT_NOTE =
  "one quota client: quota checks run one after another; add credentials.quotaAlt and quotaAltCustomerId " +
  "(a second quota client in a customer of its own) to run them in two lanes";

/** Expected wait of a check that waits on tokens and declares none (Check.expectedWaitSeconds). */
const DEFAULT_WAIT_S = 2;

export function expectedWaitSeconds(check: Check): number {
  return check.expectedWaitSeconds ?? (waitsOnTokens(check) ? DEFAULT_WAIT_S : 0);
}

/** True for a check that may run with the second quota client as its quota client: it works with nothing
 *  but the admin and the quota client and their customer (so a view that swaps the quota client and its
 *  customer changes everything it touches), and asks the token endpoint through them only. */
export function usesQuotaClientOnly(check: Check): boolean {
  return (
    check.safety === "quota" &&
    check.needs.roles.every((role) => role === "admin" || role === "quota") &&
    check.needs.otherTenant !== true &&
    check.needs.rdbmsTenant !== true &&
    (check.issuesTokensFor ?? []).every((role) => role === "admin" || role === "quota")
  );
}

/** Splits the token lane in two, balanced by expected wait: the checks only the first quota client can
 *  run stay in the first lane, the others go, longest first, to the lane expected to finish first. Each
 *  lane keeps plan order. */
function splitTokenLane(entries: readonly PlanEntry[], tokenLane: number[]): [number[], number[]] {
  const check = (i: number) => (entries[i] as PlanEntry).check;
  const first = tokenLane.filter((i) => !usesQuotaClientOnly(check(i)));
  const second: number[] = [];
  const total = (lane: number[]) => lane.reduce((t, i) => t + expectedWaitSeconds(check(i)), 0);
  const movable = tokenLane
    .filter((i) => usesQuotaClientOnly(check(i)))
    .sort((a, b) => expectedWaitSeconds(check(b)) - expectedWaitSeconds(check(a)) || a - b);
  // Two checks that leave long-lived tokens in one lane: the later waits the earlier's out. One goes to the
  // lane without one where there is such a lane (Check.leavesLongTokens).
  const leaves = (i: number) => check(i).leavesLongTokens === true;
  for (const i of movable) {
    const [chosen, other] = total(second) < total(first) ? [second, first] : [first, second];
    (leaves(i) && chosen.some(leaves) && !other.some(leaves) ? other : chosen).push(i);
  }
  const byPlan = (a: number, b: number) => a - b;
  return [first.sort(byPlan), second.sort(byPlan)];
}

/**
 * A token lane in the order that shares its waits best: a check that waits on the quota client's tokens
 * without a quota session of its own (an expired-token check: it lets one of the quota client's tokens
 * expire, and does not need the others gone) goes right after the lane's first quota check instead of
 * before it. Its own wait then also lets that check's tokens expire, so the quota check after it starts at
 * once; ahead of the first quota check, its wait is one the lane pays on top of the first clean start.
 * Everything else keeps plan order.
 */
export function sharingWaits(entries: readonly PlanEntry[], lane: readonly number[]): number[] {
  const check = (i: number) => (entries[i] as PlanEntry).check;
  const first = lane.findIndex((i) => check(i).safety === "quota");
  if (first < 0) return [...lane];
  const ahead = lane.slice(0, first);
  const moved = ahead.filter((i) => waitsOnTokens(check(i)));
  if (moved.length === 0) return [...lane];
  const stays = ahead.filter((i) => !moved.includes(i));
  return [...stays, lane[first] as number, ...moved, ...lane.slice(first + 1)];
}

/** A lane with the checks that leave long-lived tokens (Check.leavesLongTokens) last, the rest in their
 *  order: placed earlier, the token check after one would wait its tokens out (seconds, on loopback the
 *  whole run's margin); last, nothing in the lane waits for them. */
export function longTokensLast(entries: readonly PlanEntry[], lane: readonly number[]): number[] {
  const leaves = (i: number) => (entries[i] as PlanEntry).check.leavesLongTokens === true;
  return [...lane.filter((i) => !leaves(i)), ...lane.filter(leaves)];
}

export function schedule(
  entries: readonly PlanEntry[],
  options: { concurrent: boolean; secondQuotaClient?: boolean },
): Schedule {
  const all = entries.map((_, i) => i);
  if (!options.concurrent) return { lanes: [], after: all };
  const running = (i: number) => entries[i]?.action === "run";
  const check = (i: number) => (entries[i] as PlanEntry).check;
  // A check that reads the others' traffic runs once they are all done.
  const laneable = (i: number) => running(i) && check(i).readsOthersTraffic !== true;
  const tokenLane = all.filter((i) => laneable(i) && inTokenLane(check(i)));
  const readLane = all.filter((i) => laneable(i) && check(i).safety === "read" && !inTokenLane(check(i)));
  // Once the reads are done, the checks that change data only (delete tasks) follow in the same lane:
  // the token checks change configuration, and use the data only as something to send a token with.
  const dataLane = all.filter(
    (i) => laneable(i) && check(i).safety !== "read" && check(i).changes === "data" && !inTokenLane(check(i)),
  );
  // Overlapping pays only when both lanes have work and the token lane waits (checks that only ask the
  // token endpoint are quick: they alone are no reason to run anything side by side).
  const waits = tokenLane.some((i) => waitsOnTokens(check(i)));
  const laned = new Set([...tokenLane, ...readLane, ...dataLane]);
  const after = all.filter((i) => !laned.has(i));
  const others = [...readLane, ...dataLane];
  if (options.secondQuotaClient === true && waits) {
    const [first, second] = splitTokenLane(entries, tokenLane);
    if (second.length > 0 && first.length > 0) {
      const lanes = [
        longTokensLast(entries, sharingWaits(entries, first)),
        longTokensLast(entries, sharingWaits(entries, second)),
        ...(others.length > 0 ? [others] : []),
      ];
      return { lanes, after, secondQuotaLane: 1 };
    }
  }
  const note = options.secondQuotaClient === true ? undefined : ONE_QUOTA_CLIENT_NOTE;
  if (!waits || others.length === 0)
    return { lanes: [], after: all, ...(waits && note !== undefined ? { note } : {}) };
  return {
    lanes: [longTokensLast(entries, sharingWaits(entries, tokenLane)), others],
    after,
    ...(note === undefined ? {} : { note }),
  };
}
