// One CheckContext per check: the target-bound fetch, the run's token cache, a logger, a clock whose sleeps
// end with the check, and the run's journal of configuration changes.

import {
  type Check,
  type CheckContext,
  CheckFailure,
  type Clock,
  type CredentialRole,
  type Depth,
  type Exchange,
  ExplorationLog,
  type Target,
} from "../check/index.ts";
import { MAX_TIMER_MS } from "../timer-limit.ts";
import { citedRecordings } from "../transport/recording-citations.ts";
import type { TokenCache } from "../transport/token-cache.ts";
import { CheckScope, type TargetTransport } from "../transport/transport.ts";
import type { RunJournal } from "./config-journal.ts";
import type { FactStore } from "./run-facts.ts";

const LOG_LINES = 200;
/** Waits of one check kept for the report's timeline. */
const MAX_WAITS_KEPT = 50;

export interface RunServices {
  target: Target;
  transport: TargetTransport;
  /** The lane's tokens (the run's cache, or a lane's own: see runPlan). */
  tokens: Pick<TokenCache, "token" | "reset">;
  clock: Clock;
  seed: number;
  runs: number;
  /** How far checks explore (absent: "default"). */
  depth?: Depth;
  replayPath?: string;
  /** Command line a replay starts with ("lckit run --target t.yaml"). */
  command: string;
  journal: RunJournal;
  /** Recorded reads the run's read checks share (see CheckContext.recordings); the runner clears it. */
  recordings?: Map<string, Promise<unknown>>;
  /** The facts of the run as this lane's view of the target has them (see run-facts.ts). */
  facts: FactStore;
  onLog?: (checkId: string, level: "info" | "debug", message: string) => void;
}

export interface CheckSession {
  ctx: CheckContext;
  scope: CheckScope;
  /** What the check logged, newest last (capped). */
  log: string[];
  /** Ends everything the check started: pending sleeps reject and their timers are cleared, requests are
   *  aborted, later requests refused. Idempotent. */
  end(reason: string): void;
  /** What the check is waiting for right now, if anything: a sleep or an answer of the target. */
  waitingFor(): string | undefined;
  /** Milliseconds of real waiting the check asked for so far (a drivable clock waits for nothing). */
  waitedMs(): number;
  /** The real waits themselves: when each began (performance.now()) and how long it was asked to be. */
  waits(): { at: number; ms: number }[];
  /** What the check noted it explored (ctx.explore). */
  exploration: ExplorationLog;
}

export interface SessionOptions {
  /** performance.now() at which the check's time limit runs out. */
  deadline: number;
  /** The check's time limit, for messages. */
  limitMs: number;
}

export function createCheckContext(
  check: Check,
  services: RunServices,
  options: SessionOptions = { deadline: Number.POSITIVE_INFINITY, limitMs: Number.POSITIVE_INFINITY },
): CheckSession {
  const scope = new CheckScope(check.id, check.safety, check.harmlessCalls, {
    declared: check.issuesTokensFor ?? [],
    clients: new Map(
      Object.entries(services.target.credentials).flatMap(([role, credential]) =>
        credential === undefined ? [] : [[credential.clientId, role as CredentialRole] as const],
      ),
    ),
  });
  const controller = new AbortController();
  const inFlight = new Map<number, string>();
  let nextRequest = 0;
  // Counts the requests in flight, so a check timing out while the target keeps it waiting is told
  // from one stuck in the kit's own work.
  const counted =
    (scoped: typeof globalThis.fetch): typeof globalThis.fetch =>
    async (input, init) => {
      const n = nextRequest++;
      const request = input instanceof Request ? input : undefined;
      inFlight.set(n, `${init?.method ?? request?.method ?? "GET"} ${request?.url ?? String(input)}`);
      try {
        return await scoped(input, init);
      } finally {
        inFlight.delete(n);
      }
    };
  const fetch = counted(services.transport.bind(scope));
  // ctx.token's requests are the runner's token cache asking: no declaration of the check covers them.
  const cacheFetch = counted(services.transport.bind(scope, "token-cache"));
  const sleeping = { ms: 0, count: 0, total: 0, list: [] as { at: number; ms: number }[] };
  const clock = scopedClock(services.clock, controller.signal, options, sleeping);
  const log: string[] = [];
  const exploration = new ExplorationLog();
  const write = (level: "info" | "debug", message: string) => {
    log.push(`${level}: ${message}`);
    if (log.length > LOG_LINES) log.shift();
    services.onLog?.(check.id, level, message);
  };
  const ctx: CheckContext = {
    target: services.target,
    fetch,
    clock,
    seed: services.seed,
    runs: services.runs,
    depth: services.depth ?? "default",
    explore: (dimension, value) => exploration.add(dimension, value),
    ...(services.replayPath === undefined ? {} : { replayPath: services.replayPath }),
    replayCommand: `${services.command} --check ${shellQuote(check.id)} --seed ${services.seed}`,
    log: { info: (m) => write("info", m), debug: (m) => write("debug", m) },
    token: (role) => services.tokens.token(role, cacheFetch, clock, check.id),
    resetTokens: () => services.tokens.reset(),
    exchanges: () => services.transport.log,
    cite: (exchanges, as = "judged") => {
      if (as === "evidence") scope.adopt(exchanges);
      else scope.cite(exchanges.flatMap((x) => (x.id === undefined ? [] : [x.id])));
    },
    ownExchangesOf: async (work) => {
      const exchanges: Exchange[] = [];
      const stop = scope.watch(exchanges);
      try {
        return { value: await work(), exchanges };
      } finally {
        stop();
      }
    },
    journal: services.journal.forCheck(check.id),
    facts: services.facts.viewFor(check, (message) => write("info", message)),
    signal: controller.signal,
    // A check that changes data would read its own changes from a recording made before them.
    // Through a view that cites, for this check, the exchanges a recording it judges was made of.
    ...(check.safety === "read" && services.recordings
      ? { recordings: citedRecordings(services.recordings, scope) }
      : {}),
  };
  return {
    ctx,
    scope,
    log,
    exploration,
    end(reason) {
      if (!controller.signal.aborted)
        controller.abort(new CheckEnded(`check ${check.id} has ended: ${reason}`));
      scope.close();
    },
    waitingFor() {
      if (sleeping.count > 0) return `a wait of ${sleeping.ms} ms`;
      const request = [...inFlight.values()].at(-1);
      return request === undefined ? undefined : `the answer to ${request}`;
    },
    waitedMs: () => Math.round(sleeping.total),
    waits: () => [...sleeping.list],
  };
}

/** Rejects what a check still awaits once the check is over. */
export class CheckEnded extends Error {
  override name = "CheckEnded";
}

/**
 * The run's clock as one check sees it. A real wait is bounded by the kit, not by the target: a wait
 * longer than the check has left fails the check at once (the length comes from the target's answers:
 * expires_in, Retry-After, task progress), and every pending wait ends with the check, its timer cleared,
 * so nothing a check started keeps the process alive. A drivable clock (the embedded reference) does not
 * wait: moving it costs nothing, so no bound applies.
 */
function scopedClock(
  base: Clock,
  signal: AbortSignal,
  options: SessionOptions,
  sleeping: { ms: number; count: number; total: number; list: { at: number; ms: number }[] },
): Clock {
  const sleep = (ms: number): Promise<void> => {
    if (signal.aborted) return Promise.reject(signal.reason);
    const wait = Math.max(0, Number.isFinite(ms) ? ms : Number.MAX_SAFE_INTEGER);
    if (base.advance)
      return base.sleep(wait).then(() => (signal.aborted ? Promise.reject(signal.reason) : undefined));
    const left = options.deadline - performance.now();
    if (wait > left || wait > MAX_TIMER_MS)
      return Promise.reject(
        new CheckFailure(
          `the check would have to wait ${seconds(wait)} s, more than the ${seconds(Math.max(0, left))} s left ` +
            `of its time limit (${seconds(options.limitMs)} s); the length of the wait comes from the target's ` +
            "answers (an expires_in, a Retry-After, a task that does not finish): see the evidence for the value it announced",
          {
            expected: `a wait the check can afford (at most ${seconds(Math.max(0, left))} s)`,
            actual: `a wait of ${seconds(wait)} s`,
          },
        ),
      );
    return new Promise<void>((resolve, reject) => {
      sleeping.count += 1;
      sleeping.ms = wait;
      sleeping.total += wait;
      // Kept for the report's timeline; a check that polls many times keeps its first waits only.
      if (sleeping.list.length < MAX_WAITS_KEPT) sleeping.list.push({ at: performance.now(), ms: wait });
      let settled = false;
      const done = () => {
        settled = true;
        sleeping.count -= 1;
        signal.removeEventListener("abort", aborted);
      };
      // The base clock waits (a test's clock may move a target's time instead of waiting for real); it
      // is handed the signal so that it clears its timer when the check ends (systemClock does).
      base.sleep(wait, signal).then(
        () => {
          if (settled) return;
          done();
          resolve();
        },
        (error: unknown) => {
          if (settled) return;
          done();
          reject(error);
        },
      );
      const aborted = () => {
        if (settled) return;
        done();
        reject(signal.reason);
      };
      signal.addEventListener("abort", aborted, { once: true });
    });
  };
  return {
    now: () => base.now(),
    sleep,
    ...(base.advance === undefined
      ? { remainingMs: () => Math.max(0, Math.min(options.deadline - performance.now(), MAX_TIMER_MS)) }
      : { advance: base.advance }),
  };
}

function seconds(ms: number): string {
  return ms >= 10_000 ? String(Math.round(ms / 1000)) : (ms / 1000).toFixed(1);
}

/** Quotes a word for a POSIX shell when it holds anything beyond safe characters. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
