// Figures for a hostile mode, by hand (not a test): npx tsx test/hostile/measure.mts MODE [--defaults]
// [--small-heap] [lckit run options...]. Prints exit code, verdict, wall time, the child's peak RSS and
// every form of every secret found in any output (must be none). --defaults keeps the kit's default time
// limits (otherwise the target file sets timeoutMs 1500 and checkTimeoutMs 20000).
import { type HostileMode, startHostileServer } from "./hostile-server.ts";
import { hostileSecrets, runCli } from "./run-cli.ts";
import { leaksIn } from "./secret-forms.ts";

const [mode, ...rest] = process.argv.slice(2);
const defaults = rest.includes("--defaults");
const smallHeap = rest.includes("--small-heap");
const args = rest.filter((a) => a !== "--defaults" && a !== "--small-heap");
const server = await startHostileServer(mode as HostileMode);
const run = await runCli(server.url, {
  args,
  ...(defaults ? { target: { timeoutMs: undefined, checkTimeoutMs: undefined } } : {}),
  ...(smallHeap ? { nodeFlags: ["--max-old-space-size=256"] } : {}),
  killAfterMs: 3_600_000,
});
await server.close();
const outputs: [string, string][] = [["stdout", run.stdout], ["stderr", run.stderr], ...run.files];
const leaks = outputs.flatMap(([name, text]) =>
  leaksIn(text, hostileSecrets(server.tokens)).map((f) => `${name}: ${f}`),
);
console.log(
  JSON.stringify({
    mode,
    code: run.code,
    verdict: run.report?.verdict,
    wallSeconds: Math.round(run.wallMs / 100) / 10,
    peakRssMb: run.peakRssKb === undefined ? undefined : Math.round(run.peakRssKb / 1024),
    files: run.files.size,
    leaks,
    redirectsFollowed: server.elsewhere.hits.length,
    notPassed: (run.report?.checks ?? [])
      .filter((c) => c.status === "failed" || c.status === "broken")
      .map((c) => `${c.status} ${c.id}: ${String((c as { message?: string }).message ?? "").slice(0, 200)}`),
  }),
);
