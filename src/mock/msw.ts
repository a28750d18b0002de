// lookup-conformance-kit/msw: Mock Service Worker request handlers backed by the stateful reference, so a
// vitest, jest or browser test talks to the sandbox (its data, the same control API) without a port. MSW is
// an optional peer dependency: a missing install is named with its install line.
import type { RequestHandler } from "msw";
import { createReference, type Reference, type ReferenceOptions } from "../reference/index.ts";

export {
  type Sandbox,
  type SandboxControl,
  type SandboxOptions,
  type SandboxState,
  startSandbox,
} from "../reference/index.ts";

export interface SandboxHandlersOptions extends ReferenceOptions {
  /** The base URL your client is configured with ({base_url}). Default http://sandbox.lckit.test. */
  baseUrl?: string;
  /** The lookup-data URL ({rdm_url}). Default: baseUrl. */
  rdmUrl?: string;
}

export interface SandboxHandlers {
  /** Give them to setupServer(...handlers) (msw/node) or setupWorker(...handlers) (msw/browser). */
  handlers: RequestHandler[];
  /** The reference behind them: control (clock, variants, faults, latency, rate limit, reset, state). */
  sandbox: Reference;
  baseUrl: string;
  rdmUrl: string;
}

export const DEFAULT_MSW_BASE_URL = "http://sandbox.lckit.test";

async function loadMsw(): Promise<typeof import("msw")> {
  try {
    return await import("msw");
  } catch (error) {
    throw new Error(
      `lookup-conformance-kit/msw needs the optional peer dependency msw (${(error as Error).message}); install it: npm install -D msw`,
    );
  }
}

function trimmed(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === "/") end--;
  return url.slice(0, end);
}

/** Request handlers for every path of the interface under baseUrl (and rdmUrl), answered by one reference. */
export async function sandboxHandlers(options: SandboxHandlersOptions = {}): Promise<SandboxHandlers> {
  const { http } = await loadMsw();
  const { baseUrl: givenBase, rdmUrl: givenRdm, ...referenceOptions } = options;
  const baseUrl = trimmed(givenBase ?? DEFAULT_MSW_BASE_URL);
  const rdmUrl = trimmed(givenRdm ?? baseUrl);
  for (const [name, url] of [
    ["baseUrl", baseUrl],
    ["rdmUrl", rdmUrl],
  ] as const) {
    if (!URL.canParse(url))
      throw new Error(`${name}: "${url}" is not an absolute URL; e.g. ${DEFAULT_MSW_BASE_URL}`);
  }
  const sandbox = createReference(referenceOptions);
  // The reference serves paths from /: a base URL with a path prefix is taken off before it answers.
  const answer =
    (prefix: string) =>
    async ({ request }: { request: Request }) => {
      const url = new URL(request.url);
      const path = url.pathname.slice(new URL(prefix).pathname.replace(/\/$/, "").length) || "/";
      const inner = new Request(new URL(`${path}${url.search}`, url.origin), request);
      return sandbox.fetch(inner);
    };
  const handlers: RequestHandler[] = [http.all(`${baseUrl}/*`, answer(baseUrl))];
  if (rdmUrl !== baseUrl) handlers.unshift(http.all(`${rdmUrl}/*`, answer(rdmUrl)));
  return { handlers, sandbox, baseUrl, rdmUrl };
}
