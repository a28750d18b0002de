// The model-based explorer of tokens and configuration: a walk through every invariant, then random
// sequences of token requests by every client the target file names, uses of each token held, validity
// written for one client, multi-token support on and off with drawn quotas, refused writes on the rdbms
// tenant's customer and time passing (suites/support/explorer-tokens.ts). Each sequence starts from a known
// state it makes itself: multi-token support off, every token the kit was issued expired, the clients'
// validities as the check set them. A failing sequence is shrunk and shown step by step with its exchanges,
// and replays with --seed (the walk) and --path (a random sequence).
import fc from "fast-check";
import {
  type Check,
  type CheckContext,
  CheckFailure,
  type CredentialRole,
  depthOf,
  explore,
  fail,
} from "../src/check/index.ts";
import { readCustomer } from "./support/customer-restore.ts";
import { defineCheck } from "./support/define.ts";
import { type Budget, newBudget, noteBudget, sequence, startSequence } from "./support/explorer-steps.ts";
import {
  TOKEN_EXPLORER_REQUIREMENTS,
  type TokenCommand,
  type TokenModel,
  type TokenReal,
  tokenCommands,
  tokenWalk,
} from "./support/explorer-tokens.ts";
import { checkProperty } from "./support/property.ts";
import {
  measureRequestMs,
  type QuotaSession,
  upsertClient,
  validityForBurst,
} from "./support/quota-session.ts";
import { QUOTA_FACTS, QUOTA_TOKEN_CHECK, withTokensOfItsOwn } from "./support/quota-tokens.ts";
import { clientOf, credentialOf } from "./support/target-client.ts";
import { defaultValiditySeconds } from "./support/token-lifetime.ts";

/** How far the token explorer goes, per depth: random sequences after the walk (`realRuns` where the clock
 *  runs in real time: each waits every token before it out, so the default depth keeps to the walk, which
 *  judges every invariant once, and a loopback run within its 30 s), their longest length, the
 *  requests each may send and all together (the walk and shrinking included; the setup is not counted:
 *  about 14 requests), the other clients of the quota customer it drives beside the quota client, and the
 *  token requests each client of another customer may get per sequence (their slots are not the kit's). */
export const TOKEN_EXPLORER_DEPTH = {
  default: {
    walk: 32,
    runs: 1,
    realRuns: 0,
    commands: 10,
    perSequence: 12,
    cap: 44,
    otherOwn: 1,
    foreign: 4,
  },
  deep: { walk: 40, runs: 8, realRuns: 8, commands: 24, perSequence: 40, cap: 400, otherOwn: 2, foreign: 4 },
} as const;

/** Clients of the quota customer besides the quota client (the applicationClients it shows), and clients
 *  of other customers the target file names. The admin is left out: the kit writes the configuration with
 *  its token. */
function clientsOf(ctx: CheckContext, session: QuotaSession, otherOwn: number) {
  const members = new Set(session.original.applicationClients ?? []);
  const quota = credentialOf(ctx, "quota").clientId;
  const named = (roles: CredentialRole[]) =>
    roles.filter((role) => {
      const id = ctx.target.credentials[role]?.clientId;
      return id !== undefined && id !== quota && id !== ctx.target.credentials.admin?.clientId;
    });
  const own = named(["viewer", "editor"]).filter((role) => members.has(credentialOf(ctx, role).clientId));
  const foreign = named(["otherAdmin", "rdbmsAdmin"]).filter(
    (role) => !members.has(credentialOf(ctx, role).clientId),
  );
  return { own: ["quota" as CredentialRole, ...own.slice(0, otherOwn)], foreign };
}

/** What outlives a sequence: the configuration as written, the clients of other customers, and tokens
 *  held from before the check. */
interface RunState {
  validity: Map<CredentialRole, number>;
  start: Map<CredentialRole, number>;
  multiToken: boolean;
  /** A sequence failed: what it wrote last is not known, so the next one writes everything again. */
  dirty: boolean;
  /** When every token the kit was issued for the quota customer's clients has expired (kit clock). */
  expireAt: number;
  foreign: CredentialRole[];
  kept: Map<CredentialRole, TokenModel["own"][number]["tokens"]>;
}

/** A known start for a sequence: every token the kit was issued expired, multi-token support off, each
 *  client's validity as the check set it. Nothing is sent once the budget is spent. */
async function cleanStart(r: TokenReal, state: RunState, budget: Budget): Promise<boolean> {
  if (budget.left === 0) return false;
  const wait = state.expireAt - r.ctx.clock.now();
  if (wait > 0) await r.session.pass(wait / 1000);
  if (state.multiToken || state.dirty) await r.session.switchOffQuietly();
  for (const [role, seconds] of state.start)
    if (state.dirty || state.validity.get(role) !== seconds) {
      if (role === "quota") await r.session.setValidity(seconds);
      else await upsertClient(r.ctx, r.session.customerId, role, { accessTokenValidity: seconds });
      state.validity.set(role, seconds);
    }
  state.multiToken = false;
  state.dirty = false;
  return true;
}

function modelOf(
  r: TokenReal,
  state: RunState,
  budget: Budget,
  rdbms: TokenModel["rdbms"],
  validities: number[],
  foreignPerSequence: number,
): TokenModel {
  return {
    now: () => r.ctx.clock.now(),
    drivable: r.session.drivable,
    multiToken: false,
    max: 1,
    own: [...state.start.keys()].map((role) => ({
      role,
      validitySeconds: state.validity.get(role) as number,
      tokens: [...(state.kept.get(role) ?? [])],
      offReturned: [],
    })),
    // What a client of another customer showed is known within a sequence only: a sequence (shrunk or
    // replayed alone) judges what it saw itself.
    foreign: state.foreign.map((role) => ({ role, usable: true })),
    foreignLeft: new Map(state.foreign.map((role) => [role, foreignPerSequence])),
    ...(rdbms ? { rdbms } : {}),
    validities,
    passes: 0,
    maxPasses: r.session.drivable ? 8 : 2,
    budget,
  };
}

/** One sequence from a clean start; the state it leaves is noted for the next. */
async function runSequence(
  ctx: CheckContext,
  session: QuotaSession,
  state: RunState,
  budget: Budget,
  commands: readonly TokenCommand[],
  make: (r: TokenReal) => TokenModel,
  allowance?: number,
): Promise<void> {
  startSequence(budget);
  // The walk has an allowance of its own: it judges every invariant once, at every depth.
  if (allowance !== undefined) budget.left = budget.cap - budget.spent >= allowance ? allowance : 0;
  const r: TokenReal = { ctx, client: clientOf(ctx), steps: [], budget, session };
  if (!(await cleanStart(r, state, budget))) return;
  const model = make(r);
  // The walk's steps of time are all of them (in real time the random sequences take few).
  if (allowance !== undefined) model.maxPasses = Math.max(model.maxPasses, 6);
  state.dirty = true;
  try {
    await fc.asyncModelRun(() => ({ model, real: r }), commands);
    state.dirty = false;
  } finally {
    state.multiToken = model.multiToken;
    for (const c of model.own) {
      state.validity.set(c.role, c.validitySeconds);
      state.kept.set(
        c.role,
        c.tokens.filter((t) => t.fromBefore),
      );
      const issued = c.tokens.filter((t) => !t.fromBefore).map((t) => t.latestExpiry);
      state.expireAt = Math.max(state.expireAt, ...issued);
    }
  }
}

/** A step of the walk that notes its position when it runs: a failure ends the walk at the last one. */
class Numbered implements TokenCommand {
  constructor(
    readonly inner: TokenCommand,
    readonly position: number,
    readonly last: { at: number },
  ) {}
  check = (m: Readonly<TokenModel>) => this.inner.check(m);
  run(m: TokenModel, r: TokenReal) {
    this.last.at = this.position;
    return this.inner.run(m, r);
  }
  toString = () => this.inner.toString();
}

/** The walk, and where it fails, the shortest walk that still fails the same rule: cut after the step that
 *  failed, then steps dropped one at a time from the end while the budget lasts. Shown with the command
 *  that replays it (the walk is the same at every seed, so the seed replays it). */
async function walkShrunk(
  ctx: CheckContext,
  walk: TokenCommand[],
  run: (commands: readonly TokenCommand[]) => Promise<void>,
  budget: Budget,
): Promise<void> {
  const last = { at: -1 };
  const failure = async (commands: readonly TokenCommand[]) =>
    run(commands.map((c, i) => new Numbered(c, i, last))).then(
      () => undefined,
      (error: unknown) => {
        if (error instanceof CheckFailure) return error;
        throw error;
      },
    );
  const rule = (error: CheckFailure) => error.message.split(":")[0];
  let first = await failure(walk);
  if (first === undefined) return;
  let shortest = walk.slice(0, last.at + 1);
  for (let i = shortest.length - 2; i >= 0 && budget.spent < budget.cap; i--) {
    const shorter = shortest.filter((_, j) => j !== i);
    const again = await failure(shorter);
    if (again !== undefined && rule(again) === rule(first)) {
      shortest = shorter.slice(0, last.at + 1);
      first = again;
    }
  }
  fail(first.message, {
    ...first.details,
    counterexample: {
      seed: ctx.seed,
      path: "",
      value: `the token walk, shrunk to ${shortest.length} of ${walk.length} steps: ${shortest.map(String).join(", ")}`,
      replay: ctx.replayCommand,
    },
  });
}

export const exploreTokens: Check = defineCheck({
  id: "explore/tokens",
  ...QUOTA_TOKEN_CHECK,
  // Time passes on the driven clock; in real time the walk waits its clients' few seconds of validity out
  // step by step (about 14 s on loopback), and at "deep" each random sequence starts once the tokens before
  // it have expired.
  expectedWaitSeconds: 14,
  title:
    "MUST answer any sequence of token requests by every client, uses, validity and quota writes, refused rdbms writes and time passing as the token state table says, per client and per customer",
  requirements: TOKEN_EXPLORER_REQUIREMENTS,
  issuesTokensFor: ["quota", "viewer", "editor", "otherAdmin", "rdbmsAdmin"],
  facts: QUOTA_FACTS,
  needs: { roles: ["admin", "quota"] },
  async run(ctx) {
    const depth = TOKEN_EXPLORER_DEPTH[depthOf(ctx)];
    await withTokensOfItsOwn(ctx, async (session) => {
      const clients = clientsOf(ctx, session, depth.otherOwn);
      // Distinct validities (apart by more than the rounding a target may take), the last the shortest: the
      // walk writes it for the quota client, and the others' tokens must keep theirs. Where the clock is
      // driven, the quota client keeps the session's validity to start with (one write fewer).
      const step = session.drivable ? 20 : 2;
      const base = session.drivable
        ? session.validitySeconds - step
        : validityForBurst(await measureRequestMs(session, 2), 6);
      const validities = [base + step, base + 2 * step, base + 3 * step, base];
      const start = new Map(clients.own.map((role, i) => [role, validities[i] as number]));
      const rdbmsId = ctx.target.rdbmsCustomerId;
      const rdbms =
        rdbmsId !== undefined && ctx.target.credentials.rdbmsAdmin !== undefined
          ? { customerId: rdbmsId, original: await readCustomer(ctx, "rdbmsAdmin", rdbmsId) }
          : undefined;
      // Each client's validity as it was (put back at the end), then the check's own (the read right before
      // the write journals it: see upsertClient).
      const previous = new Map<CredentialRole, number>();
      for (const [role, seconds] of start)
        if (role === "quota") {
          if (seconds !== session.validitySeconds) await session.setValidity(seconds);
        } else {
          previous.set(
            role,
            (await upsertClient(ctx, session.customerId, role, {})) ?? defaultValiditySeconds,
          );
          await upsertClient(ctx, session.customerId, role, { accessTokenValidity: seconds });
        }
      explore(
        ctx,
        "model",
        `clients ${clients.own.join(", ")}; other customers ${clients.foreign.join(", ") || "none"}`,
      );
      const state: RunState = {
        validity: new Map(start),
        start,
        multiToken: false,
        dirty: false,
        expireAt: 0,
        foreign: clients.foreign,
        kept: new Map(),
      };
      const budget = newBudget(depth.perSequence, depth.cap);
      const make = (r: TokenReal) => modelOf(r, state, budget, rdbms, validities, depth.foreign);
      const run = (commands: readonly TokenCommand[], allowance?: number) =>
        runSequence(ctx, session, state, budget, commands, make, allowance);
      try {
        // The walk runs on a replay too: the sequences after it start from what it showed of the clients of
        // other customers, as they did when they failed.
        const walk = tokenWalk(clients.own.length, clients.foreign.length);
        await walkShrunk(ctx, walk, (commands) => run(commands, depth.walk), budget);
        const runs = session.drivable ? depth.runs : depth.realRuns;
        if (runs > 0)
          await checkProperty(
            ctx,
            fc.asyncProperty(sequence(tokenCommands, depth.commands, 4), (commands) => run(commands)),
            { numRuns: runs, noShrink: ctx.replayPath !== undefined },
          );
      } finally {
        noteBudget(ctx, budget, "tokens");
        // Nothing the check issued outlives it: the next check's clients start with no token of ours.
        const wait = state.expireAt - ctx.clock.now();
        if (wait > 0) await session.pass(wait / 1000);
        for (const [role, seconds] of previous)
          await upsertClient(ctx, session.customerId, role, { accessTokenValidity: seconds });
      }
    });
  },
});
