// The real CLI against a served reference: a run killed with -9 mid-quota-check leaves its journal, and
// `lckit restore` puts the configuration back; Ctrl-C makes the run restore, report and exit 4; a target
// announcing absurd validities ends NOT CONFORMANT and the process exits; a hanging target trips the
// breaker. Each child process is bounded by a kill timer (a hang fails the test, it never blocks it).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { readJournal } from "../../src/runner/config-journal.ts";

const repo = join(import.meta.dirname, "..", "..");
const bin = join(repo, "bin", "lckit.mjs");
const dir = mkdtempSync(join(tmpdir(), "lckit-lifecycle-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = {
  ...process.env,
  NO_COLOR: "1",
  CI: "1",
  T_ADMIN_ID: "acme-admin",
  T_ADMIN_SECRET: "acme-admin-secret",
  T_VIEWER_ID: "acme-viewer",
  T_VIEWER_SECRET: "acme-viewer-secret",
  T_QUOTA_ID: "acme-quota",
  T_QUOTA_SECRET: "acme-quota-secret",
};

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
  /** True when the kill timer had to end the process: it did not exit by itself. */
  timedOut: boolean;
}

const children = new Set<ChildProcess>();
afterEach(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  children.clear();
});

function lckit(args: string[], limitMs: number) {
  const child = spawn(process.execPath, [bin, ...args], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let out = "";
  let err = "";
  child.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, limitMs);
  const done = new Promise<Finished>((resolve) => {
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, out, err, timedOut });
    });
  });
  return { child, done, err: () => err };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, limitMs = 60_000): Promise<T> {
  const end = Date.now() + limitMs;
  while (Date.now() < end) {
    const got = await probe();
    if (got !== undefined) return got;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}

async function serve(faults: string[] = []) {
  const server = lckit(
    ["serve", "--port", "0", "--control-port", "0", ...faults.flatMap((f) => ["--fault", f])],
    300_000,
  );
  const baseUrl = await until("lckit serve to listen", async () => /base_url (\S+)/.exec(server.err())?.[1]);
  return { baseUrl, stop: () => server.child.kill("SIGTERM") };
}

function targetFile(name: string, baseUrl: string, extra: string[] = []): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    [
      "name: served reference",
      `baseUrl: ${baseUrl}`,
      "tenant: acme",
      "customerId: cust-acme",
      "quotaCustomerId: cust-acme",
      "credentials:",
      "  admin: { clientIdEnv: T_ADMIN_ID, clientSecretEnv: T_ADMIN_SECRET }",
      "  viewer: { clientIdEnv: T_VIEWER_ID, clientSecretEnv: T_VIEWER_SECRET }",
      "  quota: { clientIdEnv: T_QUOTA_ID, clientSecretEnv: T_QUOTA_SECRET }",
      ...extra,
      "",
    ].join("\n"),
  );
  return file;
}

/** The configuration a quota check changes: the customer, and the validity of the quota and viewer clients.
 *  Read with one admin token taken before the run (a quota the run sets must not lock the test out). */
async function adminToken(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/oauth/token`, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from("acme-admin:acme-admin-secret").toString("base64")}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: "grant_type=client_credentials",
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

async function configuration(baseUrl: string, token: string) {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const customer = await fetch(`${baseUrl}/oauth/customers/cust-acme`, {
    method: "POST",
    headers,
    body: "{}",
  });
  const clients = await fetch(`${baseUrl}/oauth/customers/cust-acme/clients`, {
    method: "PUT",
    headers,
    body: JSON.stringify([{ clientId: "acme-quota" }, { clientId: "acme-viewer" }]),
  });
  const list = (await clients.json()) as { clientId: string; accessTokenValidity?: number }[];
  const validity = (id: string) => list.find((c) => c.clientId === id)?.accessTokenValidity;
  return {
    customer: (await customer.json()) as Record<string, unknown>,
    quotaValidity: validity("acme-quota"),
    viewerValidity: validity("acme-viewer"),
  };
}

function reportOf(reportDir: string) {
  const [runId] = readdirSync(join(dir, reportDir));
  const folder = join(dir, reportDir, runId ?? "");
  return {
    folder,
    json: JSON.parse(readFileSync(join(folder, "report.json"), "utf8")) as {
      verdict: string;
      interruption?: { cause: string };
      checks: { id: string; status: string; skipCause?: string }[];
      configuration?: { leftChanged: string[] };
    },
  };
}

describe("a run against a served reference, ended from outside", () => {
  it("kill -9 mid-quota-check leaves a journal; lckit restore puts the configuration back", {
    timeout: 150_000,
  }, async () => {
    const server = await serve();
    try {
      const token = await adminToken(server.baseUrl);
      const original = await configuration(server.baseUrl, token);
      const target = targetFile("kill.yaml", server.baseUrl, ["disposable: true"]);
      const run = lckit(
        [
          "run",
          // The test's admin token, taken before the run, must outlive it: no reset of the sandbox.
          "--keep-sandbox",
          "--target",
          target,
          "--check",
          "token-quota/quota-per-client",
          "--runs",
          "1",
          "--report-dir",
          "kill",
        ],
        120_000,
      );
      // Mid-check: the quota is set on the customer and the clients got short validities. Not while the
      // quota is 1: the admin client belongs to the quota customer, and the admin token the killed run holds
      // would take its only slot, so no restore could get a token until that one expires (the restore then
      // says so; docs/target-file.md).
      const changed = await until("the quota check to change the configuration", async () => {
        const now = await configuration(server.baseUrl, token);
        const customer = now.customer as {
          multitokenConfig?: { clientCredentialsMultiTokenConfig?: { maxActiveTokensAllowed?: number } };
        };
        const quota = customer.multitokenConfig?.clientCredentialsMultiTokenConfig?.maxActiveTokensAllowed;
        return JSON.stringify(now.customer) !== JSON.stringify(original.customer) &&
          now.quotaValidity !== original.quotaValidity &&
          (quota === undefined || quota >= 2)
          ? now
          : undefined;
      });
      run.child.kill("SIGKILL");
      const killed = await run.done;
      expect(killed.signal).toBe("SIGKILL");
      expect(changed.customer).not.toEqual(original.customer);

      const journal = /configuration changes are journalled in (\S+)/.exec(killed.err)?.[1] ?? "";
      expect(readJournal(join(dir, journal)).pending.length).toBeGreaterThan(0);
      const journalText = readFileSync(join(dir, journal), "utf8");
      for (const secret of ["acme-admin-secret", "acme-quota-secret", "acme-viewer-secret", token])
        expect(journalText).not.toContain(secret);

      const restored = await lckit(["restore", journal, "--target", target], 60_000).done;
      expect(restored.err).toBe("");
      expect(restored.code).toBe(0);
      expect(restored.out).toMatch(/restored: PUT customer cust-acme as it was/);
      expect(await configuration(server.baseUrl, token)).toEqual(original);
      expect(readJournal(join(dir, journal)).pending).toEqual([]);

      // Again: nothing left to do.
      const again = await lckit(["restore", journal, "--target", target], 60_000).done;
      expect(again.code).toBe(0);
      expect(again.out).toMatch(/nothing to restore/);
    } finally {
      server.stop();
    }
  });

  it("Ctrl-C: the run puts the configuration back, writes the report of what finished and exits 4", {
    timeout: 150_000,
  }, async () => {
    const server = await serve();
    try {
      const token = await adminToken(server.baseUrl);
      const original = await configuration(server.baseUrl, token);
      const target = targetFile("sigint.yaml", server.baseUrl, ["disposable: true"]);
      const run = lckit(
        [
          "run",
          // The test's admin token, taken before the run, must outlive it: no reset of the sandbox.
          "--keep-sandbox",
          "--target",
          target,
          "--check",
          "token-quota/quota-per-client",
          "--check",
          "service/*",
          "--runs",
          "1",
          "--report-dir",
          "sigint",
        ],
        120_000,
      );
      await until("the quota check to change the configuration", async () => {
        const now = await configuration(server.baseUrl, token);
        return now.quotaValidity !== original.quotaValidity ? now : undefined;
      });
      run.child.kill("SIGINT");
      const finished = await run.done;
      expect(finished.timedOut).toBe(false);
      expect(finished.code).toBe(4);
      expect(finished.err).toMatch(/SIGINT: stopping/);
      expect(finished.out).toMatch(/verdict: INTERRUPTED \(the run received SIGINT/);
      expect(await configuration(server.baseUrl, token)).toEqual(original);
      const { json, folder } = reportOf("sigint");
      expect(json.verdict).toBe("INTERRUPTED");
      expect(json.interruption?.cause).toBe("SIGINT");
      expect(json.checks.find((c) => c.id === "token-quota/quota-per-client")?.skipCause).toBe("interrupted");
      expect(json.configuration?.leftChanged).toEqual([]);
      for (const file of ["junit.xml", "summary.md", "report.html"])
        expect(readFileSync(join(folder, file), "utf8")).toContain("INTERRUPTED");
      expect(readJournal(join(folder, "journal.ndjson")).pending).toEqual([]);
    } finally {
      server.stop();
    }
  });

  it("a target that ignores accessTokenValidity (expires_in 3600) ends NOT CONFORMANT and the process exits", {
    timeout: 200_000,
  }, async () => {
    const server = await serve(["token-validity-ignored"]);
    try {
      const target = targetFile("absurd.yaml", server.baseUrl, ["disposable: true"]);
      const finished = await lckit(
        [
          "run",
          "--target",
          target,
          "--check",
          "token-quota/quota-per-client",
          "--check",
          "token-quota/expired-token-frees-slot",
          "--runs",
          "1",
          "--report-dir",
          "absurd",
        ],
        150_000,
      ).done;
      expect(finished.timedOut, "the process must exit by itself within 150 s").toBe(false);
      expect(finished.code).toBe(1);
      const { json } = reportOf("absurd");
      expect(json.verdict).toBe("NOT CONFORMANT");
      expect(json.checks.map((c) => c.status)).not.toContain("broken");
    } finally {
      server.stop();
    }
  });
});

describe("a target that accepts connections and never answers", () => {
  let server: Server;
  const sockets = new Set<Socket>();
  afterAll(() => {
    for (const s of sockets) s.destroy();
    server?.close();
  });

  it("trips the breaker: the run ends with a report, the rest not run, and the process exits", {
    timeout: 120_000,
  }, async () => {
    server = createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    const target = targetFile("hang.yaml", `http://127.0.0.1:${port}`, ["timeoutMs: 300"]);
    const finished = await lckit(["run", "--target", target, "--runs", "1", "--report-dir", "hang"], 100_000)
      .done;
    expect(finished.timedOut, "the process must exit by itself").toBe(false);
    expect(finished.code).toBe(1);
    expect(finished.err).toMatch(
      /stopping: target unresponsive: 2 requests in a row timed out or failed to connect/,
    );
    const { json } = reportOf("hang");
    expect(json.interruption?.cause).toBe("unresponsive");
    expect(json.checks.filter((c) => c.skipCause === "unresponsive").length).toBeGreaterThan(10);
    expect(json.checks.filter((c) => c.status === "failed").length).toBe(2);
  });
});

describe("lckit manners", () => {
  it("prints its version", async () => {
    const got = await lckit(["--version"], 60_000).done;
    expect(got.code).toBe(0);
    expect(got.out).toMatch(/^lckit \(lookup-conformance-kit\) \d+\.\d+\.\d+/);
  });

  it("ends quietly when its stdout reader goes away (lckit ... | true)", async () => {
    // stderr goes through the same pipe too: neither may crash the command.
    const script = `set -o pipefail; "${process.execPath}" "${bin}" run --list 2>&1 | true; echo "exit $?" >&2`;
    const shell = spawn("bash", ["-c", script], {
      cwd: dir,
      env,
    });
    children.add(shell);
    let err = "";
    shell.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    await new Promise<number | null>((resolve) => shell.on("close", resolve));
    expect(err).toBe("exit 0\n");
  });
});
