// One CheckContext per check: the target-bound fetch, the run's token cache, a logger, the clock.
import type { Check, CheckContext, Clock, Target } from "./check.ts";
import { CheckScope, type TargetTransport } from "./target-fetch.ts";
import type { TokenCache } from "./token-cache.ts";

const LOG_LINES = 200;

export interface RunServices {
  target: Target;
  transport: TargetTransport;
  tokens: TokenCache;
  clock: Clock;
  seed: number;
  runs: number;
  replayPath?: string;
  /** Command line a replay starts with ("lckit run --target t.yaml"). */
  command: string;
  onLog?: (checkId: string, level: "info" | "debug", message: string) => void;
}

export interface CheckSession {
  ctx: CheckContext;
  scope: CheckScope;
  /** What the check logged, newest last (capped). */
  log: string[];
}

export function createCheckContext(check: Check, services: RunServices): CheckSession {
  const scope = new CheckScope(check.id);
  const fetch = services.transport.bind(scope);
  const log: string[] = [];
  const write = (level: "info" | "debug", message: string) => {
    log.push(`${level}: ${message}`);
    if (log.length > LOG_LINES) log.shift();
    services.onLog?.(check.id, level, message);
  };
  const ctx: CheckContext = {
    target: services.target,
    fetch,
    clock: services.clock,
    seed: services.seed,
    runs: services.runs,
    ...(services.replayPath === undefined ? {} : { replayPath: services.replayPath }),
    replayCommand: `${services.command} --check ${shellQuote(check.id)} --seed ${services.seed}`,
    log: { info: (m) => write("info", m), debug: (m) => write("debug", m) },
    token: (role) => services.tokens.token(role, fetch, services.clock, check.id),
    resetTokens: () => services.tokens.reset(),
    exchanges: () => services.transport.log,
  };
  return { ctx, scope, log };
}

/** Quotes a word for a POSIX shell when it holds anything beyond safe characters. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
