// Worlds of the client sweep: states a correct deployment can be in when a client starts, beside the
// provider choices (VARIANTS). A provider choice changes how the reference answers everyone; a world
// changes only what the client under check meets, so it is no provider choice for the provider suites.
import type { ReferenceOptions } from "./core.ts";
import type { FixtureData } from "./fixture-world.ts";
import { VARIANTS, type VariantEntry, type VariantName } from "./variants.ts";

/** How long the tokens other sessions hold in quota-held-elsewhere stay valid, from the client's first
 *  token request: short, so that a client that waits is served within its run. */
export const QUOTA_HELD_ELSEWHERE_SECONDS = 3;

/** World tokens-expire-in-use: the client's accessTokenValidity and the wall-clock time every answer
 *  takes. A token then lives about five answers (1000 / 200), so a client that keeps its token until the
 *  service says it expired meets that answer within any run of a few calls; one that renews ahead from
 *  expires_in may never meet it, which is as legal. */
export const TOKENS_EXPIRE_IN_USE = { seconds: 1, latencyMs: 200 } as const;

/** World new-id-every-page-large-tenant: how many times the data's lookups and statistics it holds. */
export const LARGE_TENANT_TIMES = 3;

export const SANDBOX_WORLDS = [
  {
    name: "quota-held-elsewhere",
    group: "quota-at-start",
    silentPoint:
      "how many of the client's active tokens other sessions hold when it starts (a deployment's state; a token request at the limit is declined, and the caller waits for a token to expire or raises the quota): not shown",
    description: `other sessions of your client hold its whole quota (maxActiveTokensAllowed) when it first asks for a token, each token valid for ${QUOTA_HELD_ELSEWHERE_SECONDS} s more: token requests are declined (429, limit exceeded, Retry-After the seconds until one expires) until those expire; a client without multi-token support meets the default world`,
  },
  {
    name: "tokens-expire-in-use",
    group: "token-validity",
    silentPoint:
      "the client's token validity (\"Token validity is set per client with accessTokenValidity (seconds)\": a deployment's configuration) and how long a deployment takes to answer: not shown",
    description: `your client's tokens are valid for ${TOKENS_EXPIRE_IN_USE.seconds} s (its accessTokenValidity, as expires_in says) and every answer takes ${TOKENS_EXPIRE_IN_USE.latencyMs} ms: a token expires while your client uses it, and a call with it is answered with the expired-token error; a client that then requests a new token and goes on passes`,
  },
  {
    name: "new-id-every-page-large-tenant",
    group: "scroll-id-lifetime",
    silentPoint:
      "whether a scroll keeps one id or gets a new one with every page (not shown), in a tenant whose scans run to several pages at the largest limit (a deployment's data)",
    description: `every answer that continues a scroll carries a new scrollId (an earlier page's id is then unknown, 400), in a tenant of ${LARGE_TENANT_TIMES} times the lookups and statistics: each scan then has pages beyond the second, each with an id of its own, so a client that sends any id but the last answer's is refused`,
  },
  {
    name: "addresses-apart",
    group: "addresses",
    silentPoint:
      'whether {base_url} and {rdm_url} are one address ("Addresses: {base_url} for the token-configuration and autopilot-configuration paths; {rdm_url} for the lookup-data service paths"; a deployment\'s layout): not shown',
    description:
      "{base_url} and {rdm_url} are two addresses (LCKIT_BASE_URL and LCKIT_RDM_URL differ): each serves only its own paths, and a path sent to the other address is not found (404), as behind a gateway that routes by host",
  },
] as const satisfies readonly VariantEntry[];

export type SandboxWorldName = (typeof SANDBOX_WORLDS)[number]["name"];

/** A choice of the client sweep: a provider choice or a world. */
export type SandboxChoiceName = VariantName | SandboxWorldName;

export function isSandboxWorld(name: string | undefined): name is SandboxWorldName {
  return SANDBOX_WORLDS.some((w) => w.name === name);
}

/** The data with every lookup and statistic copied LARGE_TENANT_TIMES - 1 times more under a new code or
 *  unmapped value (-2, -3, ...): the same kinds of record, more of them. */
function largeTenant(world: FixtureData): FixtureData {
  const copies = Array.from({ length: LARGE_TENANT_TIMES - 1 }, (_, i) => `-${i + 2}`);
  return {
    ...world,
    lookups: [
      ...world.lookups,
      ...copies.flatMap((suffix) =>
        world.lookups.map((lookup) => ({
          ...lookup,
          code: `${lookup.code}${suffix}`,
          // Source mappings name source values, which a copy must not claim twice.
          sourceMappings: [],
        })),
      ),
    ],
    statistics: [
      ...world.statistics,
      ...copies.flatMap((suffix) =>
        world.statistics.map((stat) => ({ ...stat, unmappedValue: `${stat.unmappedValue}${suffix}` })),
      ),
    ],
  };
}

/** A choice of the client sweep by name: a provider choice (VARIANTS) or a world. */
export function sandboxChoice(name: string | undefined): VariantEntry | undefined {
  return [...VARIANTS, ...SANDBOX_WORLDS].find((entry) => entry.name === name);
}

/** The sandbox a world starts for the client `clientId`: its data (changed where the world is a
 *  configuration) and the reference's options. */
export function sandboxForWorld(
  name: SandboxWorldName,
  world: FixtureData,
  clientId: string,
): { world: FixtureData; options: ReferenceOptions; listen?: { rdmPort: number } } {
  switch (name) {
    case "addresses-apart":
      // A port of its own for {rdm_url}, drawn by the system as the base port is.
      return { world, options: {}, listen: { rdmPort: 0 } };
    case "quota-held-elsewhere":
      return { world, options: { quotaHeldElsewhere: { clientId, seconds: QUOTA_HELD_ELSEWHERE_SECONDS } } };
    case "new-id-every-page-large-tenant":
      return { world: largeTenant(world), options: { variants: ["scroll-id-per-page"] } };
    case "tokens-expire-in-use":
      return {
        world: {
          ...world,
          clients: world.clients.map((c) =>
            c.clientId === clientId ? { ...c, accessTokenValidity: TOKENS_EXPIRE_IN_USE.seconds } : c,
          ),
        },
        options: { latencyMs: TOKENS_EXPIRE_IN_USE.latencyMs },
      };
  }
}
