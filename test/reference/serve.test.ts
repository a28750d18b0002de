// The reference over real sockets (listen) and the `lckit serve` command.
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { parseServeArgs, serve } from "../../src/cli/commands/serve.ts";
import { UsageError } from "../../src/cli/io.ts";
import { createReference } from "../../src/reference/index.ts";
import { basic } from "./harness.ts";

async function tokenFrom(baseUrl: string): Promise<string> {
  const r = await fetch(`${baseUrl}/oauth/token`, {
    method: "POST",
    headers: { authorization: basic("acme-viewer"), "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
  return ((await r.json()) as { access_token: string }).access_token;
}

describe("listen", () => {
  it("serves both path sets on one loopback port by default", async () => {
    const server = await createReference().listen({ port: 0 });
    try {
      expect(server.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(server.rdmUrl).toBe(server.baseUrl);
      const token = await tokenFrom(server.baseUrl);
      const r = await fetch(`${server.rdmUrl}/healthcheck`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(await r.json()).toEqual({ status: "OK" });
    } finally {
      await server.close();
    }
  });

  it("serves the lookup-data paths on rdmPort and the platform paths on port", async () => {
    const server = await createReference().listen({ port: 0, rdmPort: 0 });
    try {
      expect(server.rdmUrl).not.toBe(server.baseUrl);
      const token = await tokenFrom(server.baseUrl);
      const auth = { headers: { authorization: `Bearer ${token}` } };
      expect((await fetch(`${server.rdmUrl}/healthcheck`, auth)).status).toBe(200);
      expect((await fetch(`${server.baseUrl}/healthcheck`, auth)).status).toBe(404);
      expect((await fetch(`${server.rdmUrl}/oauth/token`, { method: "POST" })).status).toBe(404);
      const scan = await fetch(`${server.baseUrl}/configuration/acme/autopilot/stats/_scan?limit=1`, {
        method: "POST",
        ...auth,
      });
      expect(scan.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe("lckit serve", () => {
  it.each([
    [[], { port: 8180, host: "127.0.0.1", tenant: "acme", seed: 1, faults: [] }],
    [
      [
        "--port",
        "0",
        "--rdm-port=9001",
        "--lookups",
        "1000",
        "--tenant",
        "globex",
        "--seed",
        "9",
        "--fault",
        "scan-never-ends",
        "--fault=quota-off-by-one",
      ],
      {
        port: 0,
        rdmPort: 9001,
        lookups: 1000,
        tenant: "globex",
        seed: 9,
        faults: ["scan-never-ends", "quota-off-by-one"],
      },
    ],
    [
      ["--variant", "scroll-id-raw-text-only", "--variant=delete-task-204"],
      { variants: ["scroll-id-raw-text-only", "delete-task-204"], faults: [] },
    ],
    [["--help"], "help"],
    [["--help-faults"], "help-faults"],
    [["--help-variants"], "help-variants"],
  ])("parses %j", (argv, want) => {
    expect(parseServeArgs(argv)).toEqual(typeof want === "string" ? want : expect.objectContaining(want));
  });

  it.each([
    [["--port", "abc"], "--port"],
    [["--port", "70000"], "--port"],
    [["--port"], "--port"],
    [["--lookups", "-5"], "--lookups"],
    [["--fault", "no-such-fault"], "--help-faults"],
    [["--variant", "no-such-variant"], "--help-variants"],
    [["--variant", "delete-task-200", "--variant", "delete-task-204"], "alternatives of one choice"],
    [["--verbose"], '"--verbose"'],
  ])("refuses %j with a UsageError naming %s", (argv, mention) => {
    expect(() => parseServeArgs(argv)).toThrow(UsageError);
    expect(() => parseServeArgs(argv)).toThrow(mention);
  });

  it("serves until told to stop and prints the URLs and credentials to stderr", async () => {
    const err: string[] = [];
    const io = {
      out: () => undefined,
      err: (t: string) => void err.push(t),
      isTty: false,
      env: {},
      cwd: process.cwd(),
    };
    let stop: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    const options = parseServeArgs(["--port", "0", "--lookups", "100"]);
    if (typeof options === "string") throw new Error("expected options");
    const done = serve(options, io, stopped);
    for (let i = 0; i < 100 && !err.join("").includes("base_url"); i++)
      await new Promise((r) => setTimeout(r, 10));
    const baseUrl = /base_url (\S+)/.exec(err.join(""))?.[1] ?? "";
    expect(err.join("")).toContain("acme-viewer / acme-viewer-secret");
    const token = await tokenFrom(baseUrl);
    expect((await fetch(`${baseUrl}/status`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );
    stop();
    expect(await done).toBe(0);
    await expect(fetch(`${baseUrl}/status`)).rejects.toThrow();
  });

  it("the binary stops cleanly on SIGTERM", async () => {
    const child = spawn(process.execPath, ["bin/lckit.mjs", "serve", "--port", "0", "--control-port", "0"], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += String(d);
    });
    try {
      // The binary starts through tsx; under a loaded machine that takes far more than a quiet start's 1 s.
      for (let i = 0; i < 3000 && !stderr.includes("base_url") && child.exitCode === null; i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(stderr).toContain("base_url http://127.0.0.1:");
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(stderr).toContain("stopped");
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  }, 120_000);
});
