// The MSW request handlers over a reference's fetch, shared by lookup-conformance-kit/msw (Node) and
// lookup-conformance-kit/msw/browser: no Node-only module may be imported here.
import type { RequestHandler } from "msw";

export const DEFAULT_MSW_BASE_URL = "http://sandbox.lckit.test";

export interface HandlerUrls {
  /** The base URL your client is configured with ({base_url}). Default http://sandbox.lckit.test. */
  baseUrl?: string;
  /** The lookup-data URL ({rdm_url}). Default: baseUrl. */
  rdmUrl?: string;
}

export async function loadMsw(): Promise<typeof import("msw")> {
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

/** The URLs checked and trimmed; an error names a URL that is not absolute. */
export function handlerUrls(urls: HandlerUrls): { baseUrl: string; rdmUrl: string } {
  const baseUrl = trimmed(urls.baseUrl ?? DEFAULT_MSW_BASE_URL);
  const rdmUrl = trimmed(urls.rdmUrl ?? baseUrl);
  for (const [name, url] of [
    ["baseUrl", baseUrl],
    ["rdmUrl", rdmUrl],
  ] as const) {
    if (!URL.canParse(url))
      throw new Error(`${name}: "${url}" is not an absolute URL; e.g. ${DEFAULT_MSW_BASE_URL}`);
  }
  return { baseUrl, rdmUrl };
}

/** Handlers for every path under baseUrl (and rdmUrl), each answered by `fetch`. */
export function handlersOver(
  http: typeof import("msw")["http"],
  fetch: (request: Request) => Promise<Response>,
  { baseUrl, rdmUrl }: { baseUrl: string; rdmUrl: string },
): RequestHandler[] {
  // The reference serves paths from /: a base URL with a path prefix is taken off before it answers.
  const answer =
    (prefix: string) =>
    async ({ request }: { request: Request }) => {
      const url = new URL(request.url);
      const path = url.pathname.slice(new URL(prefix).pathname.replace(/\/$/, "").length) || "/";
      const inner = new Request(new URL(`${path}${url.search}`, url.origin), request);
      return fetch(inner);
    };
  const handlers: RequestHandler[] = [http.all(`${baseUrl}/*`, answer(baseUrl))];
  if (rdmUrl !== baseUrl) handlers.unshift(http.all(`${rdmUrl}/*`, answer(rdmUrl)));
  return handlers;
}
