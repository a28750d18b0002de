// The reference without a listener and without file loading: the world comes in as validated data. What a
// browser bundle (lookup-conformance-kit/msw/browser) builds on; index.ts adds fixtures, data files and listen.
import type { Hono } from "hono";
import { combinedApp, platformApp, rdmApp } from "./app.ts";
import { type ReferenceClock, wallReferenceClock } from "./clock.ts";
import type { QuotaHeldElsewhere, ReferenceContext } from "./context.ts";
import { type SandboxControl, sandboxControl } from "./control.ts";
import type { ReferenceData } from "./data-document.ts";
import { type FaultName, faultSet } from "./faults.ts";
import type { FixtureData } from "./fixture-world.ts";
import { type Fetcher, type Gateway, throughGateway } from "./gateway.ts";
import { type GenerateOptions, generateLookups, generateStatistics } from "./generate.ts";
import { Recording } from "./recording.ts";
import { createState, type ReferenceState } from "./state.ts";
import { type VariantName, variantSet } from "./variants.ts";

export interface ReferenceOptions {
  /** Default: the wall clock (systemClock()). Use manualClock() to drive token and scroll expiry in tests. */
  clock?: ReferenceClock;
  /** Default: fixtures/reference. */
  fixturesDir?: string;
  /**
   * The team's own world instead of the fixtures: a data document (tenants, customers, clients, lookups,
   * statistics, blockedValues) or the path of a YAML or JSON file holding one. Validated before anything
   * starts (FixtureError naming file, JSON path, problem and a correct entry). Excludes fixturesDir.
   */
  data?: ReferenceData | string;
  /** Seeded faults to switch on (see FAULTS). Default: none. */
  faults?: readonly FaultName[];
  /** Correct choices where the document is silent (see VARIANTS). Default: none, the kit's own choices. */
  variants?: readonly VariantName[];
  /** Delay before a delete task runs. Default 0 (the next macrotask). */
  taskDelayMs?: number;
  /** Adds generated lookups and statistics to a tenant. */
  generate?: GenerateOptions;
  /** Keep every exchange (reference.control.recording()): what lckit client check judges. Default false. */
  record?: boolean;
  /** Wall-clock milliseconds added before every answer (the control API changes it). Default 0. */
  latencyMs?: number;
  /** A deployment at its quota when the client starts: other sessions of this client hold every token its
   *  quota allows, each valid for `seconds` from the client's first token request (lckit client check's
   *  world quota-held-elsewhere). Default: none. */
  quotaHeldElsewhere?: QuotaHeldElsewhere;
}

/** The reference without listen(): everything served in memory. */
export interface ReferenceCore {
  /** Serves both path sets in memory. */
  fetch(request: Request): Promise<Response>;
  /** Both path sets on one Hono app. */
  app: Hono;
  clock: ReferenceClock;
  /** The live state, for tests: read it, do not change it (control.reset() replaces it). */
  readonly state: ReferenceState;
  /** The switched-on faults and variants (control.setFaults / setVariants change them). */
  faults: ReadonlySet<FaultName>;
  variants: ReadonlySet<VariantName>;
  /** Drive the sandbox while it runs: clock, switches, latency, rate limit, reset, state, recording. */
  control: SandboxControl;
  /** The fetch handlers a listener serves: both path sets, or each on its own. */
  servers: {
    combined: Fetcher;
    platform: () => Fetcher;
    rdm: () => Fetcher;
  };
}

/** A reference over a world already validated (loadFixtures, loadDataFile or referenceData). */
export function createReferenceCore(world: FixtureData, options: ReferenceOptions = {}): ReferenceCore {
  const clock = options.clock ?? wallReferenceClock();
  const faults = new Set(faultSet(options.faults ?? []));
  const variants = new Set(variantSet(options.variants ?? []));
  const start = { faults: [...faults], variants: [...variants], latencyMs: options.latencyMs ?? 0 };
  const taskDelayMs = options.taskDelayMs ?? 0;
  if (!Number.isFinite(taskDelayMs) || taskDelayMs < 0) {
    throw new RangeError(`taskDelayMs: expected a number of milliseconds >= 0, got ${taskDelayMs}`);
  }
  const held = options.quotaHeldElsewhere;
  if (held && !(Number.isFinite(held.seconds) && held.seconds > 0)) {
    throw new RangeError(`quotaHeldElsewhere.seconds: expected a number of seconds > 0, got ${held.seconds}`);
  }
  const fixtures = withVariantFixtures(world, variants);
  const gen = options.generate;
  if (gen && !fixtures.tenants.some((t) => t.id === gen.tenant)) {
    throw new Error(
      `generate.tenant: unknown tenant "${gen.tenant}"; expected one of ${fixtures.tenants.map((t) => t.id).join(", ")}`,
    );
  }
  for (const field of ["lookups", "statistics"] as const) {
    const n = gen?.[field];
    if (n !== undefined && !(Number.isInteger(n) && n >= 0)) {
      throw new RangeError(`generate.${field}: expected an integer >= 0, got ${n}`);
    }
  }
  const extra = {
    lookups: gen?.lookups ? generateLookups(gen.tenant, gen.lookups, gen.seed) : [],
    statistics: gen?.statistics ? generateStatistics(gen.tenant, gen.statistics, gen.seed) : [],
  };
  // One context for every handler; reset swaps its state for a fresh one built from the same data.
  const ctx: { -readonly [K in keyof ReferenceContext]: ReferenceContext[K] } = {
    state: createState(fixtures, extra),
    clock,
    faults,
    variants,
    taskDelayMs,
    ...(options.quotaHeldElsewhere ? { quotaHeldElsewhere: options.quotaHeldElsewhere } : {}),
  };
  const gateway: Gateway = {
    settings: { latencyMs: start.latencyMs },
    admitted: [],
    ...(options.record ? { recording: new Recording() } : {}),
  };
  const control = sandboxControl({
    ctx,
    faults,
    variants,
    gateway,
    start,
    rebuild: () => {
      ctx.state = createState(fixtures, extra);
    },
  });
  // The start latency is refused as the control refuses it (a number of milliseconds, 0 to 600000).
  if (options.latencyMs !== undefined) control.setLatency(options.latencyMs);
  const app = combinedApp(ctx);
  const fetch = throughGateway(gateway, clock, (request) => app.fetch(request));
  return {
    fetch: async (request) => fetch(request),
    app,
    clock,
    get state() {
      return ctx.state;
    },
    faults,
    variants,
    control,
    servers: {
      combined: fetch,
      platform: () => {
        const platform = platformApp(ctx);
        return throughGateway(gateway, clock, (request) => platform.fetch(request));
      },
      rdm: () => {
        const rdm = rdmApp(ctx);
        return throughGateway(gateway, clock, (request) => rdm.fetch(request));
      },
    },
  };
}

/** Variants that change the fixture world rather than behaviour: wider tenant lists, statistics that
 *  share an unmapped value. */
function withVariantFixtures(fixtures: FixtureData, variants: ReadonlySet<VariantName>): FixtureData {
  const world = variants.has("statistics-sharing-a-value") ? withSharedValues(fixtures) : fixtures;
  return variants.has("admin-administers-other-tenant") ? withWiderAdmin(world) : world;
}

/** A second record for every fifth statistic's unmapped value: created a second later, with another
 *  candidate (none where the first had one) and score. */
function withSharedValues(fixtures: FixtureData): FixtureData {
  const seconds = fixtures.statistics
    .filter((_, i) => i % 5 === 0)
    .map((stat) => {
      const { candidateLookupCode, candidateValue, ...rest } = stat;
      return {
        ...rest,
        createdAt: stat.createdAt + 1000,
        semanticScore: Math.round((1 - stat.semanticScore) * 1000) / 1000,
        ...(candidateLookupCode === undefined
          ? { candidateLookupCode: "OTHER", candidateValue: "Another candidate" }
          : {}),
      };
    });
  return { ...fixtures, statistics: [...fixtures.statistics, ...seconds] };
}

function withWiderAdmin(fixtures: FixtureData): FixtureData {
  const [first, second] = fixtures.tenants;
  if (!first || !second) return fixtures;
  const role = `ROLE_ADMIN_TENANT_${first.id}`;
  return {
    ...fixtures,
    clients: fixtures.clients.map((client) =>
      client.authorities.includes(role)
        ? { ...client, authorities: [...client.authorities, `ROLE_ADMIN_TENANT_${second.id}`] }
        : client,
    ),
  };
}
