// lookup-conformance-kit/msw: Mock Service Worker request handlers backed by the stateful reference, so a
// vitest, jest or browser test talks to the sandbox (its data, the same control API) without a port. MSW is
// an optional peer dependency: a missing install is named with its install line.
import type { RequestHandler } from "msw";
import { createReference, type Reference, type ReferenceOptions } from "../reference/index.ts";
import { type HandlerUrls, handlersOver, handlerUrls, loadMsw } from "./msw-handlers.ts";

export {
  type Sandbox,
  type SandboxControl,
  type SandboxOptions,
  type SandboxState,
  startSandbox,
} from "../reference/index.ts";

export interface SandboxHandlersOptions extends ReferenceOptions, HandlerUrls {}

export interface SandboxHandlers {
  /** Give them to setupServer(...handlers) (msw/node) or setupWorker(...handlers) (msw/browser). */
  handlers: RequestHandler[];
  /** The reference behind them: control (clock, variants, faults, latency, rate limit, reset, state). */
  sandbox: Reference;
  baseUrl: string;
  rdmUrl: string;
}

export { DEFAULT_MSW_BASE_URL } from "./msw-handlers.ts";

/** Request handlers for every path of the interface under baseUrl (and rdmUrl), answered by one reference. */
export async function sandboxHandlers(options: SandboxHandlersOptions = {}): Promise<SandboxHandlers> {
  const { http } = await loadMsw();
  const { baseUrl: givenBase, rdmUrl: givenRdm, ...referenceOptions } = options;
  const urls = handlerUrls({ baseUrl: givenBase, rdmUrl: givenRdm });
  const sandbox = createReference(referenceOptions);
  return { handlers: handlersOver(http, sandbox.fetch, urls), sandbox, ...urls };
}
