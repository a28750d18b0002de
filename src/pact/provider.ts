// Names the kit's pacts share: the provider every consumer contracts with, and where pact files live.

/** Provider name of every pact about this interface (consumers choose their own names). */
export const PROVIDER_NAME = "lookup-data-interface";

/** Default directory of pact files, relative to the working directory. */
export const DEFAULT_PACT_DIR = "pacts";

/** Consumer names of the kit's own consumer tests (test/pact/consumer-*.test.ts). */
export const CONSUMERS = {
  lookups: "lookup-consumer",
  autopilot: "autopilot-consumer",
  configuration: "configuration-consumer",
  events: "event-consumer",
} as const;

/** The file name Pact gives the pact between `consumer` and the provider. */
export function pactFileName(consumer: string, provider: string = PROVIDER_NAME): string {
  return `${consumer}-${provider}.json`;
}
