// The sandbox's control: what a consumer's test drives while the sandbox runs (move the clock, switch
// variants and faults, add latency or a gateway rate limit, reset, read the state to assert on). The same
// object backs the library API (reference.control) and the HTTP control interface (control-app.ts).
import type { ReferenceContext } from "./context.ts";
import { runDueTasks } from "./delete-task.ts";
import { type FaultName, faultSet } from "./faults.ts";
import type { Gateway, GatewayRateLimit } from "./gateway.ts";
import type { RecordedExchange } from "./recording.ts";
import type { TaskStatus } from "./types.ts";
import { type VariantName, variantSet } from "./variants.ts";

/** Variants that shape the loaded world rather than behaviour: they hold from the start or not at all. */
const START_ONLY: readonly VariantName[] = ["admin-administers-other-tenant"];

export interface ClientTokens {
  clientId: string;
  customerId: string;
  /** Tokens still valid now (they count toward the quota with multi-token support on). */
  active: number;
  /** Tokens issued since the start or the last reset. */
  issued: number;
  /** maxActiveTokensAllowed of the client's customer, when multi-token support is on. */
  maxActiveTokensAllowed?: number;
  /** Epoch ms (reference clock) when the next active token expires. */
  nextExpiry?: number;
}

export interface SandboxState {
  /** Reference clock, epoch ms and ISO 8601. */
  now: number;
  time: string;
  variants: VariantName[];
  faults: FaultName[];
  latencyMs: number;
  rateLimit: GatewayRateLimit | null;
  /** Every client of the loaded data, in data order. */
  tokens: ClientTokens[];
  /** Open scrolls (expired ones are swept first): the scan and tenant, and how far each was read. */
  scrolls: { scope: string; position: number; length: number; idleMs: number }[];
  tasks: { id: string; tenantId: string; status: TaskStatus; finished: boolean }[];
  /** Requests recorded so far (only when the sandbox records), and those dropped over the bound. */
  requests: { recorded: number; dropped: number } | null;
}

export interface SandboxControl {
  /** Moves the reference clock forwards: tokens and scrolls whose time ran out expire at once. */
  advanceClock(ms: number): SandboxState;
  /** Replaces the switched-on variants (at most one per choice); unknown names are refused, nothing changes. */
  setVariants(names: readonly string[]): SandboxState;
  /** Replaces the switched-on seeded faults. */
  setFaults(names: readonly string[]): SandboxState;
  /** Wall-clock milliseconds added before every answer of the interface's paths (0: none). */
  setLatency(ms: number): SandboxState;
  /** A gateway rate limit over every request of the interface's paths (429 with Retry-After); null: none. */
  setRateLimit(limit: GatewayRateLimit | null): SandboxState;
  /** Back to the loaded data and the switches the sandbox started with: tokens, scrolls, tasks and the
   *  recording are gone; the clock is not moved back. */
  reset(): SandboxState;
  state(): SandboxState;
  /** The recorded exchanges, in arrival order (empty unless the sandbox records). */
  recording(): readonly RecordedExchange[];
}

export interface ControlParts {
  ctx: ReferenceContext;
  faults: Set<FaultName>;
  variants: Set<VariantName>;
  gateway: Gateway;
  /** Rebuilds the state from the loaded data (reset). */
  rebuild(): void;
  start: { faults: readonly FaultName[]; variants: readonly VariantName[]; latencyMs: number };
}

function replace<T>(set: Set<T>, values: Iterable<T>): void {
  set.clear();
  for (const value of values) set.add(value);
}

export function sandboxControl(parts: ControlParts): SandboxControl {
  const { ctx, gateway } = parts;

  const state = (): SandboxState => {
    const now = ctx.clock.now();
    runDueTasks(ctx);
    const tokens = [...ctx.state.clients.values()].map(({ client, customerId }): ClientTokens => {
      const list = ctx.state.tokensByClient.get(client.clientId) ?? [];
      const active = list.filter((token) => token.expiresAt > now);
      const config = ctx.state.customers.get(customerId)?.multitokenConfig;
      const max = config?.clientCredentialsMultiTokenConfig?.maxActiveTokensAllowed;
      let issued = 0;
      for (const token of ctx.state.tokens.values()) if (token.clientId === client.clientId) issued += 1;
      const nextExpiry = active.reduce<number | undefined>(
        (min, token) => (min === undefined || token.expiresAt < min ? token.expiresAt : min),
        undefined,
      );
      return {
        clientId: client.clientId,
        customerId,
        active: active.length,
        issued,
        ...(max === undefined ? {} : { maxActiveTokensAllowed: max }),
        ...(nextExpiry === undefined ? {} : { nextExpiry }),
      };
    });
    return {
      now,
      time: new Date(now).toISOString(),
      variants: [...parts.variants],
      faults: [...parts.faults],
      latencyMs: gateway.settings.latencyMs,
      rateLimit: gateway.settings.rateLimit ?? null,
      tokens,
      scrolls: ctx.state.scrolls.list(now).map(({ scope, position, length, lastUsedAt }) => ({
        scope,
        position,
        length,
        idleMs: now - lastUsedAt,
      })),
      tasks: [...ctx.state.tasks.values()].map((task) => ({
        id: task.id,
        tenantId: task.tenantId,
        status: task.status,
        finished: task.status === "COMPLETED" || task.status === "FAILED",
      })),
      requests: gateway.recording
        ? { recorded: gateway.recording.exchanges.length, dropped: gateway.recording.dropped }
        : null,
    };
  };

  return {
    advanceClock(ms) {
      ctx.clock.advance(ms);
      return state();
    },
    setVariants(names) {
      const chosen = variantSet(names);
      for (const name of START_ONLY) {
        if (chosen.has(name) !== parts.variants.has(name)) {
          throw new Error(
            `variant "${name}" shapes the loaded data; start the sandbox with it (lckit serve --variant ${name}) instead of switching it`,
          );
        }
      }
      replace(parts.variants, chosen);
      return state();
    },
    setFaults(names) {
      replace(parts.faults, faultSet(names));
      return state();
    },
    setLatency(ms) {
      if (!Number.isFinite(ms) || ms < 0 || ms > 600_000) {
        throw new RangeError(`latency: expected milliseconds between 0 and 600000, got ${ms}`);
      }
      gateway.settings.latencyMs = ms;
      return state();
    },
    setRateLimit(limit) {
      if (limit !== null) {
        for (const field of ["requests", "perSeconds"] as const) {
          const n = limit[field];
          if (!Number.isInteger(n) || n < 1) {
            throw new RangeError(
              `rate limit ${field}: expected an integer >= 1, got ${n}; e.g. { "requests": 10, "perSeconds": 1 }`,
            );
          }
        }
        gateway.settings.rateLimit = { requests: limit.requests, perSeconds: limit.perSeconds };
      } else {
        delete gateway.settings.rateLimit;
      }
      gateway.admitted.length = 0;
      return state();
    },
    reset() {
      parts.rebuild();
      replace(parts.faults, parts.start.faults);
      replace(parts.variants, parts.start.variants);
      gateway.settings.latencyMs = parts.start.latencyMs;
      delete gateway.settings.rateLimit;
      gateway.admitted.length = 0;
      gateway.recording?.clear();
      return state();
    },
    state,
    recording: () => [...(gateway.recording?.exchanges ?? [])].sort((a, b) => a.seq - b.seq),
  };
}
