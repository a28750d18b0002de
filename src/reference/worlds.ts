// Worlds of the client sweep: states a correct deployment can be in when a client starts, beside the
// provider choices (VARIANTS). A provider choice changes how the reference answers everyone; a world
// changes only what the client under check meets, so it is no provider choice for the provider suites.
import { VARIANTS, type VariantEntry, type VariantName } from "./variants.ts";

/** How long the tokens other sessions hold in quota-held-elsewhere stay valid, from the client's first
 *  token request: short, so that a client that waits is served within its run. */
export const QUOTA_HELD_ELSEWHERE_SECONDS = 3;

export const SANDBOX_WORLDS = [
  {
    name: "quota-held-elsewhere",
    group: "quota-at-start",
    silentPoint:
      "how many of the client's active tokens other sessions hold when it starts (a deployment's state; a token request at the limit is declined, and the caller waits for a token to expire or raises the quota): not shown",
    description: `other sessions of your client hold its whole quota (maxActiveTokensAllowed) when it first asks for a token, each token valid for ${QUOTA_HELD_ELSEWHERE_SECONDS} s more: token requests are declined (429, limit exceeded, Retry-After the seconds until one expires) until those expire; a client without multi-token support meets the default world`,
  },
] as const satisfies readonly VariantEntry[];

export type SandboxWorldName = (typeof SANDBOX_WORLDS)[number]["name"];

/** A choice of the client sweep: a provider choice or a world. */
export type SandboxChoiceName = VariantName | SandboxWorldName;

export function isSandboxWorld(name: string | undefined): name is SandboxWorldName {
  return SANDBOX_WORLDS.some((w) => w.name === name);
}

/** A choice of the client sweep by name: a provider choice (VARIANTS) or a world. */
export function sandboxChoice(name: string | undefined): VariantEntry | undefined {
  return [...VARIANTS, ...SANDBOX_WORLDS].find((entry) => entry.name === name);
}
