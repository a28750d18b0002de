// The sandbox's control while it runs, as a library (reference.control) and over HTTP (listenControl):
// each switch changes what a client gets, and the state shows what a test asserts on.
import { describe, expect, it } from "vitest";
import { serve } from "../../src/cli/commands/serve.ts";
import { UsageError } from "../../src/cli/io.ts";
import { packagePath } from "../../src/package-root.ts";
import { createReference, listenControl, manualClock, type Reference } from "../../src/reference/index.ts";
import { captureIo } from "../cli/capture-io.ts";

const DATA = packagePath("examples", "sandbox-data.yaml");
const basic = (id: string) => `Basic ${Buffer.from(`${id}:${id}-secret`).toString("base64")}`;

function sandbox(): Reference {
  return createReference({ data: DATA, clock: manualClock(), record: true });
}

async function tokenAnswer(ref: Reference, id = "order-service"): Promise<Response> {
  return ref.fetch(
    new Request("http://sandbox/oauth/token", {
      method: "POST",
      headers: { authorization: basic(id), "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials",
    }),
  );
}

async function token(ref: Reference): Promise<string> {
  return ((await (await tokenAnswer(ref)).json()) as { access_token: string }).access_token;
}

function scan(ref: Reference, token: string, body?: string, query = "limit=2&sort=code"): Promise<Response> {
  return ref.fetch(
    new Request(`http://sandbox/lookups/shop/_scan?${query}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body } : {}),
    }),
  );
}

describe("reference.control", () => {
  it("advancing the clock expires tokens (active count falls, use answers expired) without sleeping", async () => {
    const ref = sandbox();
    const value = await token(ref);
    await token(ref);
    expect(ref.control.state().tokens.find((t) => t.clientId === "order-service")).toMatchObject({
      active: 2,
      issued: 2,
      maxActiveTokensAllowed: 5,
    });
    const state = ref.control.advanceClock(900_000);
    expect(state.tokens.find((t) => t.clientId === "order-service")).toMatchObject({ active: 0, issued: 2 });
    const answer = await scan(ref, value);
    expect(answer.status).toBe(401);
    expect(await answer.text()).toMatch(/expired/);
  });

  it("shows open scrolls, and advancing past the idle time closes them", async () => {
    const ref = sandbox();
    const first = (await (await scan(ref, await token(ref))).json()) as { scrollId: string };
    expect(first.scrollId).toEqual(expect.any(String));
    expect(ref.control.state().scrolls).toEqual([
      { scope: "lookups:shop", position: 2, length: 4, idleMs: 0 },
    ]);
    expect(ref.control.advanceClock(5 * 60 * 1000).scrolls).toEqual([]);
  });

  it("switches a variant and a fault on and off while running, and refuses unknown names changing nothing", async () => {
    const ref = sandbox();
    const bearer = await token(ref);
    ref.control.setVariants(["end-scroll-id-null"]);
    const all = (await (await scan(ref, bearer, undefined, "limit=10")).json()) as { scrollId: unknown };
    expect(all.scrollId).toBeNull();
    ref.control.setVariants([]);
    const plain = (await (await scan(ref, bearer, undefined, "limit=10")).json()) as object;
    expect(plain).not.toHaveProperty("scrollId");
    expect(() => ref.control.setFaults(["no-such-fault"])).toThrow(/unknown fault "no-such-fault"/);
    expect(() => ref.control.setVariants(["quota-refusal-400", "quota-refusal-403"])).toThrow(/alternatives/);
    expect(ref.control.state()).toMatchObject({ variants: [], faults: [] });
    ref.control.setFaults(["missing-auth-accepted"]);
    const anonymous = await ref.fetch(new Request("http://sandbox/lookups/shop/_scan", { method: "POST" }));
    expect(anonymous.status).toBe(200);
  });

  it("a gateway rate limit answers 429 with Retry-After, and admits again after the window", async () => {
    const ref = sandbox();
    ref.control.setRateLimit({ requests: 2, perSeconds: 10 });
    expect((await tokenAnswer(ref)).status).toBe(200);
    expect((await tokenAnswer(ref)).status).toBe(200);
    const refused = await tokenAnswer(ref);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("10");
    expect(((await refused.json()) as { error: string }).error).toBe("rate_limited");
    ref.control.advanceClock(10_000);
    expect((await tokenAnswer(ref)).status).toBe(200);
    ref.control.setRateLimit(null);
    expect(() => ref.control.setRateLimit({ requests: 0, perSeconds: 1 })).toThrow(
      /requests: expected an integer >= 1/,
    );
  });

  it("latency delays every answer by at least the set time", async () => {
    const ref = sandbox();
    ref.control.setLatency(60);
    const started = performance.now();
    await tokenAnswer(ref);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    expect(() => ref.control.setLatency(-1)).toThrow(/latency/);
  });

  it("reset puts back the loaded data and start switches, and empties tokens, tasks and the recording", async () => {
    const ref = sandbox();
    const bearer = await token(ref);
    const task = await ref.fetch(
      new Request("http://sandbox/tasks/shop", {
        method: "POST",
        headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
        body: JSON.stringify({ type: "delete" }),
      }),
    );
    // order-service is ROLE_RDM: a delete task is refused; nightly-sync (ROLE_RDM_EDIT) may.
    expect(task.status).toBe(403);
    const editor = ((await (await tokenAnswer(ref, "nightly-sync")).json()) as { access_token: string })
      .access_token;
    const accepted = await ref.fetch(
      new Request("http://sandbox/tasks/shop", {
        method: "POST",
        headers: { authorization: `Bearer ${editor}`, "content-type": "application/json" },
        body: JSON.stringify({ type: "delete", parameters: { uris: ["shop/ShippingCountry/DE"] } }),
      }),
    );
    expect(accepted.status).toBeLessThan(300);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(ref.control.state().tasks).toEqual([
      expect.objectContaining({ tenantId: "shop", finished: true }),
    ]);
    expect(ref.state.lookups.get("shop")?.size).toBe(3);
    ref.control.setLatency(5);
    const state = ref.control.reset();
    expect(state).toMatchObject({
      tasks: [],
      scrolls: [],
      latencyMs: 0,
      requests: { recorded: 0, dropped: 0 },
    });
    expect(state.tokens.every((t) => t.active === 0 && t.issued === 0)).toBe(true);
    expect(ref.state.lookups.get("shop")?.size).toBe(4);
  });

  it("records every exchange with its request and answer, in order", async () => {
    const ref = sandbox();
    const bearer = await token(ref);
    await scan(ref, bearer);
    const recorded = ref.control.recording();
    expect(recorded.map((x) => [x.method, new URL(x.url).pathname, x.status])).toEqual([
      ["POST", "/oauth/token", 200],
      ["POST", "/lookups/shop/_scan", 200],
    ]);
    expect(recorded[0]?.body).toBe("grant_type=client_credentials");
    expect(recorded[1]?.headers.authorization).toBe(`Bearer ${bearer}`);
    expect(recorded[1]?.body).toBeUndefined();
    expect(JSON.parse(recorded[1]?.responseBody ?? "{}").values).toHaveLength(2);
  });
});

describe("the HTTP control interface", () => {
  it("answers each route as the library does, and refuses bad input with 400 naming it", async () => {
    const ref = sandbox();
    const control = await listenControl(ref.control, { port: 0 });
    const call = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(`${control.url}${path}`, {
        method,
        ...(body === undefined
          ? {}
          : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
      });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    };
    try {
      await token(ref);
      expect((await call("GET", "/state")).body.tokens).toEqual(
        expect.arrayContaining([expect.objectContaining({ clientId: "order-service", active: 1 })]),
      );
      expect((await call("POST", "/clock/advance", { seconds: 900 })).body.tokens).toEqual(
        expect.arrayContaining([expect.objectContaining({ clientId: "order-service", active: 0 })]),
      );
      expect((await call("PUT", "/variants", { variants: ["quota-refusal-409"] })).body.variants).toEqual([
        "quota-refusal-409",
      ]);
      expect((await call("PUT", "/faults", { faults: ["scan-never-ends"] })).body.faults).toEqual([
        "scan-never-ends",
      ]);
      expect((await call("PUT", "/latency", { ms: 0 })).body.latencyMs).toBe(0);
      expect((await call("PUT", "/rate-limit", { requests: 5, perSeconds: 1 })).body.rateLimit).toEqual({
        requests: 5,
        perSeconds: 1,
      });
      expect((await call("DELETE", "/rate-limit")).body.rateLimit).toBeNull();
      expect((await call("GET", "/requests")).body).toEqual([
        expect.objectContaining({ method: "POST", path: "/oauth/token", status: 200 }),
      ]);
      expect((await call("POST", "/reset")).body).toMatchObject({ variants: [], faults: [] });
      const bad = await call("PUT", "/variants", { variants: ["no-such-variant"] });
      expect(bad).toMatchObject({
        status: 400,
        body: { message: expect.stringMatching(/unknown variant "no-such-variant"/) },
      });
      expect((await call("POST", "/clock/advance", {})).status).toBe(400);
      expect((await call("GET", "/nope")).status).toBe(404);
    } finally {
      await control.close();
    }
  });

  it("listens on loopback only", async () => {
    await expect(listenControl(sandbox().control, { host: "0.0.0.0" })).rejects.toThrow(/loopback only/);
  });

  it("lckit serve refuses a busy control port as a usage error naming --control-port, and leaves nothing running", async () => {
    const busy = await listenControl(sandbox().control, { port: 0 });
    const port = Number(new URL(busy.url).port);
    try {
      const error = await serve(
        { port: 0, host: "127.0.0.1", tenant: "acme", seed: 1, faults: [], variants: [], controlPort: port },
        captureIo(),
        new Promise(() => {}),
      ).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(/port in use .*--control-port N .*nothing was started/);
    } finally {
      await busy.close();
    }
  });
});

describe("docs/consumers.md", () => {
  it("shows a curl line for every control route", async () => {
    const { readFileSync } = await import("node:fs");
    const { CONTROL_ROUTES } = await import("../../src/reference/control-app.ts");
    const doc = readFileSync(packagePath("docs", "consumers.md"), "utf8");
    for (const [method, path] of CONTROL_ROUTES) {
      const flag = method === "GET" ? "" : `-X ${method} `;
      expect(doc, `${method} ${path}`).toContain(`curl -s ${flag}$C${path}`);
    }
  });
});
