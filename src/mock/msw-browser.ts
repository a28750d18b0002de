// lookup-conformance-kit/msw/browser: the MSW request handlers of lookup-conformance-kit/msw for a page
// (setupWorker from msw/browser), backed by the same stateful reference. Nothing here reaches a Node-only
// module: no listener, no file loading; the team's world comes in as an object (`data`), validated as a
// data file is.
import type { RequestHandler } from "msw";
import { kitFixtures } from "../generated/kit-fixtures.ts";
import { createReferenceCore, type ReferenceCore, type ReferenceOptions } from "../reference/core.ts";
import { type ReferenceData, referenceData } from "../reference/data-document.ts";
import type { Kind } from "../reference/fixture-world.ts";
import { type HandlerUrls, handlersOver, handlerUrls, loadMsw } from "./msw-handlers.ts";

export { manualClock, type ReferenceClock, shiftableClock, systemClock } from "../reference/clock.ts";
export { FixtureError } from "../reference/fixture-world.ts";
export { DEFAULT_MSW_BASE_URL } from "./msw-handlers.ts";
export type { ReferenceData };

export interface BrowserSandboxHandlersOptions
  extends Omit<ReferenceOptions, "data" | "fixturesDir">,
    HandlerUrls {
  /**
   * The sandbox's world: a data document (tenants, customers, clients, lookups, statistics, blockedValues),
   * as a data file holds it (examples/sandbox-data.yaml), parsed. Required: a page has no fixture files.
   */
  data: ReferenceData;
}

export interface BrowserSandboxHandlers {
  /** Give them to setupWorker(...handlers) (msw/browser). */
  handlers: RequestHandler[];
  /** The reference behind them: control (clock, variants, faults, latency, rate limit, reset, state). */
  sandbox: ReferenceCore;
  baseUrl: string;
  rdmUrl: string;
}

/** What a correct entry looks like, in a message about bad data: the kit's own first record of the kind. */
function exampleEntry(kind: Kind): string | undefined {
  const first = (kitFixtures.yaml[kind] as unknown[] | undefined)?.[0];
  return first === undefined ? undefined : JSON.stringify(first);
}

/** Request handlers for every path of the interface under baseUrl (and rdmUrl), answered by one reference. */
export async function sandboxHandlers(
  options: BrowserSandboxHandlersOptions,
): Promise<BrowserSandboxHandlers> {
  const { baseUrl, rdmUrl, data, ...referenceOptions } = options ?? {};
  if (data === undefined) {
    throw new Error(
      "data: required in the browser (no fixture files there); give the data document as an object, e.g. the parse of examples/sandbox-data.yaml",
    );
  }
  const urls = handlerUrls({ baseUrl, rdmUrl });
  const world = referenceData(data, "data", exampleEntry);
  const { http } = await loadMsw();
  const sandbox = createReferenceCore(world, referenceOptions);
  return { handlers: handlersOver(http, sandbox.fetch, urls), sandbox, ...urls };
}
