// What stands in front of the interface's paths in a sandbox, as an API gateway would: added latency, a
// gateway rate limit (429 with Retry-After), and the recording of every exchange. Switched at run time
// through the control API; none of it is the interface itself.
import type { ReferenceClock } from "./clock.ts";
import { headersOf, type Recording } from "./recording.ts";
import { sleep } from "./web.ts";

export interface GatewayRateLimit {
  /** Requests admitted per window, over every path and client together. */
  requests: number;
  /** Length of the window in seconds (reference clock). */
  perSeconds: number;
}

export interface GatewaySettings {
  /** Added before each answer, wall-clock milliseconds. */
  latencyMs: number;
  rateLimit?: GatewayRateLimit;
}

export type Fetcher = (request: Request) => Response | Promise<Response>;

export interface Gateway {
  settings: GatewaySettings;
  /** Arrival times (reference clock) of the admitted requests of the current rate-limit window. */
  admitted: number[];
  recording?: Recording;
}

/** A 429 from the gateway: JSON in the contract's error fields, Retry-After in whole seconds. */
function limited(retryAfter: number, limit: GatewayRateLimit): Response {
  return new Response(
    JSON.stringify({
      error: "rate_limited",
      error_description: `gateway rate limit: more than ${limit.requests} requests in ${limit.perSeconds} s; retry after ${retryAfter} s`,
    }),
    { status: 429, headers: { "content-type": "application/json", "retry-after": String(retryAfter) } },
  );
}

/** Seconds until the window admits a request again, or undefined when it admits this one now. */
function refusal(gateway: Gateway, now: number): number | undefined {
  const limit = gateway.settings.rateLimit;
  if (!limit) return undefined;
  const windowMs = limit.perSeconds * 1000;
  while (gateway.admitted.length > 0 && (gateway.admitted[0] as number) <= now - windowMs)
    gateway.admitted.shift();
  if (gateway.admitted.length < limit.requests) {
    gateway.admitted.push(now);
    return undefined;
  }
  return Math.max(1, Math.ceil(((gateway.admitted[0] as number) + windowMs - now) / 1000));
}

export function throughGateway(gateway: Gateway, clock: ReferenceClock, inner: Fetcher): Fetcher {
  return async (request) => {
    const started = performance.now();
    const at = clock.now();
    const recording = gateway.recording;
    const seq = recording?.nextSeq() ?? 0;
    const body = recording && request.body !== null ? await request.clone().text() : undefined;
    const retryAfter = refusal(gateway, at);
    const { latencyMs } = gateway.settings;
    if (latencyMs > 0) await sleep(latencyMs);
    const limit = gateway.settings.rateLimit;
    const response = retryAfter !== undefined && limit ? limited(retryAfter, limit) : await inner(request);
    if (!recording) return response;
    const responseBody = await response.clone().text();
    recording.add({
      seq,
      at,
      method: request.method,
      url: request.url,
      headers: headersOf(request.headers),
      ...(body === undefined || body === "" ? {} : { body }),
      status: response.status,
      responseHeaders: headersOf(response.headers),
      responseBody,
      durationMs: performance.now() - started,
    });
    return response;
  };
}
