// Pact's standard provider-state protocol for `lckit serve --pact-port N`, so that any Pact verifier (the
// Pact CLI, pact-jvm, pact-js, a broker-driven pipeline) verifies the kit's pacts against the sandbox
// without the kit's own request filter:
// - POST /_pact/provider-states with {"state", "params", "action": "setup" | "teardown"} arranges (or
//   undoes) the state on the running reference and answers the values the pact's fromProviderState
//   expressions use ({"tenantId": "acme", "accessToken": "..."}); a state that cannot be made to hold
//   answers 500 naming why, so the verifier fails the interaction instead of replaying it on the wrong data;
// - POST /_pact/messages with {"description"} answers a message pact's content from the kit's event
//   generator, its metadata base64-encoded in the Pact-Message-Metadata header (Pact's message protocol).
// It listens on its own loopback port, apart from the interface's paths: nothing of it can be mistaken for
// the interface, and serving it is a choice of whoever starts the sandbox.
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import type { Target } from "../check/index.ts";
import type { Reference } from "../reference/index.ts";
import { embeddedTargetDescription } from "../target/embedded.ts";
import { eventMessages, generateEvent } from "./event-messages.ts";
import { createSession } from "./provider-session.ts";
import { providerStates } from "./provider-states.ts";
import { stateHandlers } from "./state-handlers.ts";

/** Path of the state-change URL (providerStatesSetupUrl / --provider-states-setup-url). */
export const STATE_CHANGE_PATH = "/_pact/provider-states";
/** Path of the message transport (a verifier's message provider URL). */
export const MESSAGES_PATH = "/_pact/messages";

export interface StateChangeOptions {
  /** The running reference the states are arranged on. */
  reference: Reference;
  /** Where the reference listens ({base_url} and {rdm_url}). */
  baseUrl: string;
  rdmUrl: string;
  /** Tenant of the fixture world the messages and states speak of; default acme. */
  tenant?: string;
}

type Handler = ((...args: unknown[]) => Promise<unknown>) & {
  setup?: (...args: unknown[]) => Promise<unknown>;
  teardown?: (...args: unknown[]) => Promise<unknown>;
};

/** The Hono app of both endpoints for one running reference. */
export function stateChangeApp(options: StateChangeOptions): Hono {
  const target: Target = {
    ...embeddedTargetDescription(),
    baseUrl: options.baseUrl,
    rdmUrl: options.rdmUrl,
    ...(options.tenant ? { tenant: options.tenant } : {}),
  };
  const session = createSession(target, { reference: options.reference });
  const handlers = stateHandlers(session) as Record<string, Handler>;
  const known = providerStates.map((spec) => spec.name);
  const app = new Hono();

  app.post(STATE_CHANGE_PATH, async (c) => {
    const body = (await c.req.json().catch(() => undefined)) as
      | { state?: unknown; action?: unknown; params?: unknown }
      | undefined;
    const state = typeof body?.state === "string" ? body.state : undefined;
    const action = body?.action ?? "setup";
    // Verifiers call the URL with an empty state for an interaction that names none: nothing to arrange.
    if (state === "" || (body !== undefined && body.state === undefined && body.action !== undefined))
      return c.json({});
    if (!state)
      return c.json(
        {
          error: "validation_error",
          error_description: `expected a JSON body {"state": "<provider state>", "params": {...}, "action": "setup" | "teardown"}, got ${JSON.stringify(body) ?? "no JSON"}`,
        },
        400,
      );
    if (action !== "setup" && action !== "teardown")
      return c.json(
        {
          error: "validation_error",
          error_description: `action must be setup or teardown, got ${JSON.stringify(action)}`,
        },
        400,
      );
    const handler = handlers[state];
    if (!handler)
      return c.json(
        {
          error: "unknown_state",
          error_description: `the kit has no provider state "${state}"; known states: ${known.join("; ")}`,
        },
        400,
      );
    const before = session.problems.length;
    const values = action === "setup" ? await handler.setup?.() : await handler.teardown?.();
    const problems = session.problems.slice(before);
    if (problems.length > 0)
      return c.json(
        {
          error: "state_not_held",
          error_description: problems.map((problem) => `${problem.source}: ${problem.message}`).join("; "),
        },
        500,
      );
    return c.json((values as Record<string, string> | undefined) ?? {});
  });

  app.post(MESSAGES_PATH, async (c) => {
    const body = (await c.req.json().catch(() => undefined)) as { description?: unknown } | undefined;
    const spec = eventMessages.find((entry) => entry.description === body?.description);
    if (!spec)
      return c.json(
        {
          error: "unknown_message",
          error_description: `no event message "${String(body?.description)}"; known: ${eventMessages.map((entry) => entry.description).join("; ")}`,
        },
        400,
      );
    const event = generateEvent(spec, target.tenant);
    const metadata = Object.fromEntries(
      Object.entries(event.headers).map(([key, value]) => [key, String(value)]),
    );
    const encoded = Buffer.from(JSON.stringify(metadata)).toString("base64");
    c.header("Pact-Message-Metadata", encoded);
    return c.json(event.payload as object);
  });
  return app;
}

/** A listening state-change server. */
export interface StateChangeServer {
  /** e.g. http://127.0.0.1:8181; the state-change URL is url + STATE_CHANGE_PATH. */
  url: string;
  close(): Promise<void>;
}

/** Serves stateChangeApp on host:port (0 picks a free port). */
export function listenStateChange(
  options: StateChangeOptions & { host: string; port: number },
): Promise<StateChangeServer> {
  const app = stateChangeApp(options);
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch: app.fetch, port: options.port, hostname: options.host },
      (info: AddressInfo) => {
        const shown = info.family === "IPv6" ? `[${info.address}]` : info.address;
        resolve({
          url: `http://${shown}:${info.port}`,
          close: () =>
            new Promise<void>((done) => {
              server.close(() => done());
              if ("closeAllConnections" in server) server.closeAllConnections();
            }),
        });
      },
    );
    server.once("error", reject);
  });
}
