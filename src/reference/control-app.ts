// The HTTP control interface of a sandbox, on a loopback port of its own: apart from the interface's
// paths, so no path the interface has or may gain is taken, a client under test never reaches it through
// its configured base URL, and the recording of the client's traffic holds none of the test's control calls.
import { Hono } from "hono";
import type { SandboxControl } from "./control.ts";
import type { GatewayRateLimit } from "./gateway.ts";
import { type Answerer, start, stop } from "./listen.ts";

export interface ControlListening {
  url: string;
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** The routes, for GET / and for the docs: method, path, body, what it does. */
export const CONTROL_ROUTES = [
  ["GET", "/state", "", "the state to assert on: clock, switches, tokens per client, open scrolls, tasks"],
  ["POST", "/clock/advance", '{"seconds": 3600} or {"ms": 1000}', "move the clock forwards"],
  ["PUT", "/variants", '{"variants": ["end-scroll-id-null"]}', "replace the switched-on variants"],
  ["PUT", "/faults", '{"faults": ["scan-never-ends"]}', "replace the switched-on seeded faults"],
  ["PUT", "/latency", '{"ms": 250}', "add latency before every answer (0: none)"],
  ["PUT", "/rate-limit", '{"requests": 10, "perSeconds": 1}', "gateway rate limit: 429 with Retry-After"],
  ["DELETE", "/rate-limit", "", "remove the gateway rate limit"],
  ["POST", "/reset", "", "back to the loaded data and the start switches"],
  ["GET", "/requests", "", "the recorded requests (method, path, status, time; no headers or bodies)"],
] as const;

class ControlError extends Error {}

async function jsonBody(request: Request): Promise<Record<string, unknown>> {
  const text = await request.text();
  let body: unknown;
  try {
    body = text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    throw new ControlError(`the body is not JSON: ${text.slice(0, 80)}`);
  }
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw new ControlError("expected a JSON object body");
  return body as Record<string, unknown>;
}

function names(body: Record<string, unknown>, key: string, example: string): string[] {
  const value = body[key];
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string"))
    throw new ControlError(
      `expected {"${key}": [names]}, e.g. {"${key}": ["${example}"]}; [] switches all off`,
    );
  return value;
}

function count(body: Record<string, unknown>, key: string): number | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (typeof value !== "number")
    throw new ControlError(`${key}: expected a number, got ${JSON.stringify(value)}`);
  return value;
}

export function controlApp(control: SandboxControl): Hono {
  const app = new Hono({ strict: false });
  app.get("/", (c) =>
    c.json({
      routes: CONTROL_ROUTES.map(([method, path, body, does]) => ({
        method,
        path,
        ...(body ? { body } : {}),
        does,
      })),
    }),
  );
  app.get("/state", (c) => c.json(control.state()));
  app.post("/clock/advance", async (c) => {
    const body = await jsonBody(c.req.raw);
    const seconds = count(body, "seconds");
    const ms = count(body, "ms");
    if ((seconds === undefined) === (ms === undefined))
      throw new ControlError('expected one of {"seconds": N} or {"ms": N}');
    return c.json(control.advanceClock(ms ?? (seconds as number) * 1000));
  });
  app.put("/variants", async (c) =>
    c.json(control.setVariants(names(await jsonBody(c.req.raw), "variants", "end-scroll-id-null"))),
  );
  app.put("/faults", async (c) =>
    c.json(control.setFaults(names(await jsonBody(c.req.raw), "faults", "scan-never-ends"))),
  );
  app.put("/latency", async (c) => {
    const ms = count(await jsonBody(c.req.raw), "ms");
    if (ms === undefined) throw new ControlError('expected {"ms": N}');
    return c.json(control.setLatency(ms));
  });
  app.put("/rate-limit", async (c) => {
    const body = await jsonBody(c.req.raw);
    const limit: GatewayRateLimit = {
      requests: count(body, "requests") ?? Number.NaN,
      perSeconds: count(body, "perSeconds") ?? 1,
    };
    return c.json(control.setRateLimit(limit));
  });
  app.delete("/rate-limit", (c) => c.json(control.setRateLimit(null)));
  app.post("/reset", (c) => c.json(control.reset()));
  app.get("/requests", (c) =>
    c.json(
      control.recording().map((x) => ({
        seq: x.seq,
        at: x.at,
        method: x.method,
        path: new URL(x.url).pathname,
        status: x.status,
      })),
    ),
  );
  app.notFound((c) =>
    c.json(
      {
        error: "not_found",
        message: `no control route ${c.req.method} ${new URL(c.req.url).pathname}; GET / lists them`,
      },
      404,
    ),
  );
  // Bad input to the control is the test's mistake: 400 naming it; the sandbox is left as it was.
  app.onError((error, c) =>
    c.json({ error: "bad_request", message: error instanceof Error ? error.message : String(error) }, 400),
  );
  return app;
}

/** Serves the control interface on a loopback port (0 picks a free one); any other host is refused. */
export async function listenControl(
  control: SandboxControl,
  options: { port?: number; host?: string } = {},
): Promise<ControlListening> {
  const host = options.host ?? "127.0.0.1";
  if (!LOOPBACK.has(host)) {
    throw new Error(
      `the control interface listens on loopback only (127.0.0.1, ::1, localhost), not "${host}"`,
    );
  }
  const app = controlApp(control);
  const answer: Answerer = (request) => app.fetch(request);
  const { server, url } = await start(answer, options.port ?? 0, host);
  return { url, close: () => stop(server) };
}
