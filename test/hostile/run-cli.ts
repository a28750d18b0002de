// Runs the real CLI (node bin/lckit.mjs run) against a hostile server with a target file in a temp dir,
// and collects everything the run produced: exit code, stdout, stderr, every file of the report folder.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { HOSTILE_CLIENTS, hostileSecret } from "./hostile-server.ts";

const ROOT = resolve(import.meta.dirname, "../..");

const roles: Record<string, string> = {
  admin: "acme-admin",
  editor: "acme-editor",
  viewer: "acme-viewer",
  quota: "acme-quota",
  otherAdmin: "globex-admin",
};

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Relative path -> content, for every file under the report dir. */
  files: Map<string, string>;
  /** report.json, parsed (undefined when no report was written). */
  report?: { verdict: string; checks: { id: string; status: string; evidence?: unknown[] }[] } & Record<
    string,
    unknown
  >;
  /** Peak RSS of the child in KB, when it reported it (LCKIT_TEST_REPORT_RSS). */
  peakRssKb?: number;
  wallMs: number;
}

export interface CliOptions {
  args: string[];
  /** Extra keys of the target file. */
  target?: Record<string, unknown>;
  /** node flags, e.g. --max-old-space-size=256. */
  nodeFlags?: string[];
  /** Kill the child after this long (a safety net: the test then fails on the exit code). */
  killAfterMs?: number;
}

export async function runCli(baseUrl: string, options: CliOptions): Promise<CliRun> {
  const dir = mkdtempSync(join(tmpdir(), "lckit-hostile-run-"));
  try {
    const credentials: Record<string, { clientIdEnv: string; clientSecretEnv: string }> = {};
    const env: Record<string, string> = {};
    for (const [role, clientId] of Object.entries(roles)) {
      const key = role.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();
      credentials[role] = { clientIdEnv: `HOSTILE_${key}_ID`, clientSecretEnv: `HOSTILE_${key}_SECRET` };
      env[`HOSTILE_${key}_ID`] = clientId;
      env[`HOSTILE_${key}_SECRET`] = hostileSecret(clientId);
    }
    const targetFile = join(dir, "target.json");
    writeFileSync(
      targetFile,
      JSON.stringify({
        name: "hostile",
        baseUrl,
        tenant: "acme",
        otherTenant: "globex",
        customerId: "cust-acme",
        credentials,
        timeoutMs: 1500,
        checkTimeoutMs: 20000,
        ...options.target,
      }),
    );
    const reportDir = join(dir, "reports");
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [
        ...(options.nodeFlags ?? []),
        join(ROOT, "test/hostile/rss-probe.mjs"),
        join(ROOT, "bin/lckit.mjs"),
        "run",
        "--target",
        targetFile,
        "--report-dir",
        reportDir,
        "--seed",
        "7",
        ...options.args,
      ],
      { cwd: dir, env: { ...process.env, ...env, CI: "1" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString("utf8");
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
    });
    const killer = setTimeout(() => child.kill("SIGKILL"), options.killAfterMs ?? 90_000);
    const code = await new Promise<number | null>((done) => child.on("close", (c) => done(c)));
    clearTimeout(killer);
    const wallMs = performance.now() - started;
    const rss = /LCKIT_PEAK_RSS_KB=(\d+)/.exec(stderr);
    const files = new Map<string, string>();
    const walk = (d: string) => {
      for (const name of safeList(d)) {
        const path = join(d, name);
        if (statSync(path).isDirectory()) walk(path);
        else files.set(path.slice(reportDir.length + 1), readFileSync(path, "utf8"));
      }
    };
    walk(reportDir);
    const json = [...files].find(([name]) => name.endsWith("report.json"))?.[1];
    return {
      code,
      stdout,
      stderr,
      files,
      ...(json === undefined ? {} : { report: JSON.parse(json) as CliRun["report"] }),
      ...(rss?.[1] ? { peakRssKb: Number(rss[1]) } : {}),
      wallMs,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Every secret the run could leak: the client secrets (with their ids, for the Basic forms). */
export function hostileSecrets(tokens: string[]): { clientId?: string; secret: string }[] {
  return [
    ...HOSTILE_CLIENTS.map((clientId) => ({ clientId, secret: hostileSecret(clientId) })),
    ...tokens.map((secret) => ({ secret })),
  ];
}
