// The committed pacts verified as a provider team would: `lckit serve --pact-port 0` started as a child
// process, and Pact's standalone CLI verifier from the npm registry (`pact-verifier` of
// @pact-foundation/pact-cli, not lckit's) in another process, given only the provider's host and port,
// Pact's state-change URL, a message transport and the pact files.
// Every interaction passes against the sandbox; a seeded fault fails exactly the interactions observing it.
// Both processes are stopped by PID.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { findPactFiles } from "../../src/pact/pact-file.ts";
import { STATE } from "../../src/pact/provider-states.ts";
import { MESSAGES_PATH, STATE_CHANGE_PATH, stateChangeApp } from "../../src/pact/state-change-server.ts";
import { createReference } from "../../src/reference/index.ts";

const run = promisify(execFile);
const root = join(new URL(".", import.meta.url).pathname, "..", "..");
const pactFiles = findPactFiles([join(root, "pacts")], root).map((file) => resolve(root, file));

interface Sandbox {
  child: ChildProcess;
  baseUrl: string;
  stateUrl: string;
  messageUrl: string;
}

let running: ChildProcess[] = [];
afterEach(async () => {
  for (const child of running)
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      process.kill(child.pid, "SIGTERM");
      await exited;
    }
  running = [];
});

/** `lckit serve --port 0 --pact-port 0 --control-port 0 [--fault F]`, resolved once it printed its URLs. */
function startSandbox(faults: readonly string[]): Promise<Sandbox> {
  const child = spawn(
    process.execPath,
    [
      join(root, "bin", "lckit.mjs"),
      "serve",
      "--port",
      "0",
      "--pact-port",
      "0",
      // Every test file's sandbox takes free ports: the default control port 8189 would collide.
      "--control-port",
      "0",
      ...faults.flatMap((fault) => ["--fault", fault]),
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  running.push(child);
  let stderr = "";
  return new Promise((resolve, reject) => {
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
      const base = /base_url (\S+)/.exec(stderr)?.[1];
      const pact = /pact {5}(\S+)\/_pact\/provider-states/.exec(stderr)?.[1];
      if (base && pact)
        resolve({
          child,
          baseUrl: base,
          stateUrl: `${pact}${STATE_CHANGE_PATH}`,
          messageUrl: `${pact}${MESSAGES_PATH}`,
        });
    });
    child.once("exit", (code) =>
      reject(new Error(`lckit serve exited (${code}) before listening:\n${stderr}`)),
    );
  });
}

interface VerifierResult {
  code: number;
  /** The verifier's JSON report (-j): the result, and one error per failed interaction. */
  report: { result: boolean; errors: { interaction: string }[] };
  stdout: string;
}

const verifierBin = join(root, "node_modules", ".bin", "pact-verifier");

/** Pact's CLI verifier as a separate process, with the options any provider team would pass. */
async function stockVerify(sandbox: Sandbox): Promise<VerifierResult> {
  const base = new URL(sandbox.baseUrl);
  const messages = new URL(sandbox.messageUrl);
  const dir = mkdtempSync(join(tmpdir(), "lckit-pact-cli-"));
  const reportFile = join(dir, "report.json");
  const args = [
    "--hostname",
    base.hostname,
    "--port",
    base.port,
    "--state-change-url",
    sandbox.stateUrl,
    "--state-change-teardown",
    "--transports",
    `message:${messages.port}${messages.pathname}`,
    "--provider-name",
    "lookup-data-interface",
    "--no-colour",
    "-j",
    reportFile,
    ...pactFiles.flatMap((file) => ["-f", file]),
  ];
  let stdout = "";
  let code = 0;
  try {
    ({ stdout } = await run(verifierBin, args, {
      cwd: root,
      timeout: 120_000,
      maxBuffer: 8 << 20,
      env: { ...process.env, PACT_DO_NOT_TRACK: "true" },
    }));
  } catch (error) {
    const failed = error as { stdout?: string; code?: number };
    stdout = failed.stdout ?? "";
    code = typeof failed.code === "number" ? failed.code : -1;
  }
  try {
    return { code, report: JSON.parse(readFileSync(reportFile, "utf8")) as VerifierResult["report"], stdout };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("Pact's own verifier against lckit serve", () => {
  it("verifies every interaction of every committed pact (state-change URL, injected tokens, messages)", async () => {
    expect(pactFiles.length).toBe(4);
    const result = await stockVerify(await startSandbox([]));
    expect(result.report.errors).toEqual([]);
    expect(result.report.result).toBe(true);
    expect(result.code).toBe(0);
    // Every interaction ran: 15 HTTP interactions and 7 messages, each reported with its timing.
    expect(result.stdout.match(/verification\)$/gm)).toHaveLength(22);
  }, 120_000);

  it.each<[string, string[]]>([
    ["version-not-dotted", ["a version request"]],
    ["healthcheck-not-ok", ["a healthcheck request"]],
    ["token-error-not-json", ["a token request from a client at its token quota"]],
    ["missing-auth-accepted", ["a version request without an access token"]],
    [
      "autopilot-type-scan-returns-other-types",
      ["a request for the autopilot statistics of lookup type Country, last first"],
    ],
  ])(
    "fails with fault %s, in the interactions that observe it",
    async (fault, interactions) => {
      const result = await stockVerify(await startSandbox([fault]));
      expect(result.report.result).toBe(false);
      expect(result.code).not.toBe(0);
      const failed = result.report.errors.map((failure) => failure.interaction);
      expect(failed).toHaveLength(interactions.length);
      for (const [index, description] of interactions.entries())
        expect(failed[index]).toContain(`- ${description}`);
    },
    120_000,
  );
});

describe("the state-change endpoint (Pact's protocol)", () => {
  let closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers) await close();
    closers = [];
  });
  const app = async () => {
    const reference = createReference();
    const listening = await reference.listen({ host: "127.0.0.1", port: 0 });
    closers.push(listening.close);
    return stateChangeApp({ reference, baseUrl: listening.baseUrl, rdmUrl: listening.rdmUrl });
  };
  const post = (target: Awaited<ReturnType<typeof app>>, path: string, body: unknown) =>
    target.request(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("answers the values a state provides, {} for an interaction without state", async () => {
    const target = await app();
    const values = await post(target, STATE_CHANGE_PATH, {
      state: STATE.countryLookups,
      params: {},
      action: "setup",
    });
    expect(values.status).toBe(200);
    expect(await values.json()).toEqual({ tenantId: "acme" });
    const none = await post(target, STATE_CHANGE_PATH, { state: "", action: "setup" });
    expect(await none.json()).toEqual({});
    const teardown = await post(target, STATE_CHANGE_PATH, {
      state: STATE.countryLookups,
      action: "teardown",
    });
    expect(teardown.status).toBe(200);
  });

  it("refuses an unknown state naming the known ones, and a body without a state or with a bad action", async () => {
    const target = await app();
    const unknown = await post(target, STATE_CHANGE_PATH, { state: "the moon is full", action: "setup" });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error_description: string }).error_description).toContain(
      STATE.viewerToken,
    );
    expect((await post(target, STATE_CHANGE_PATH, { params: {} })).status).toBe(400);
    expect(
      (await post(target, STATE_CHANGE_PATH, { state: STATE.countryLookups, action: "reset" })).status,
    ).toBe(400);
    const message = await post(target, MESSAGES_PATH, { description: "a postcard" });
    expect(message.status).toBe(400);
  });

  it("answers 500 naming the reason when a state cannot be made to hold", async () => {
    // The token states fetch a token over HTTP from the sandbox: with no sandbox at that URL they cannot hold.
    const target = stateChangeApp({
      reference: createReference(),
      baseUrl: "http://127.0.0.1:9",
      rdmUrl: "http://127.0.0.1:9",
    });
    const answer = await post(target, STATE_CHANGE_PATH, { state: STATE.viewerToken, action: "setup" });
    expect(answer.status).toBe(500);
    expect(((await answer.json()) as { error_description: string }).error_description).toContain(
      STATE.viewerToken,
    );
  });
});
