// lckit judge on a long day of traffic, printed, never asserted: a HAR of at least 300 MB (LCKIT_BENCH_MB)
// made from real traffic (an lckit run's evidence.har against the reference, and two example clients'
// recorded traffic, one with its wrong scroll id), repeated with shifted times, tokens and scroll ids. Two
// processes read the same file, one after the other in this run: the baseline (the same streamed reader,
// every entry parsed into an exchange, nothing judged) and `lckit judge`. Each prints exchanges/s and its
// peak RSS. Run: npm run bench:judge
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { packagePath } from "../src/package-root.ts";
import { harEntriesOf, twoExampleClients, writeHarCopies } from "../test/traffic/har-copies.ts";

const MB = 1024 * 1024;
const targetMb = Number(process.env.LCKIT_BENCH_MB ?? 320);
const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits });
const dir = mkdtempSync(join(tmpdir(), "lckit-bench-judge-"));
const lckit = packagePath("bin", "lckit.mjs");

/** One process's figures: the child prints them as its last line of JSON. */
interface Figures {
  exchanges: number;
  ms: number;
  maxRssMb: number;
}

// The child: "parse FILE" reads it as lckit judge does, without judging; "judge FILE" runs lckit judge.
const child = `
const [mode, file, reports] = process.argv.slice(-3);
const started = performance.now();
let exchanges = 0;
if (mode === "parse") {
  const { recordedExchanges } = await import(${JSON.stringify(packagePath("src", "traffic", "judge.ts"))});
  for await (const x of recordedExchanges({ source: file }, { count: 0 })) exchanges += x.seq >= 0 ? 1 : 0;
} else {
  const { main } = await import(${JSON.stringify(packagePath("src", "cli", "main.ts"))});
  const out = [];
  await main(["judge", file, "--report-dir", reports, "--format", "json"], {
    ...(await import(${JSON.stringify(packagePath("src", "cli", "io.ts"))})).processIo,
    out: (t) => out.push(t),
    err: () => {},
  });
  exchanges = JSON.parse(out.join("")).subject.exchanges;
}
const ms = performance.now() - started;
console.log(JSON.stringify({ exchanges, ms, maxRssMb: process.resourceUsage().maxRSS / 1024 }));
`;

function measure(mode: "parse" | "judge", file: string): Figures {
  const out = execFileSync(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", child, mode, file, join(dir, "reports")],
    { encoding: "utf8", maxBuffer: 64 * MB },
  );
  return JSON.parse(out.trim().split("\n").pop() as string) as Figures;
}

async function realTraffic(): Promise<Record<string, unknown>[]> {
  execFileSync(
    process.execPath,
    [lckit, "run", "--suite", "lookup-scan", "--suite", "auth", "--har", "--report-dir", join(dir, "run")],
    { stdio: "ignore" },
  );
  const [folder] = readdirSync(join(dir, "run")).filter((d) => !d.startsWith("."));
  // A run writes its evidence gzipped (evidence.har.gz).
  const har = JSON.parse(
    gunzipSync(readFileSync(join(dir, "run", folder as string, "evidence.har.gz"))).toString("utf8"),
  ) as {
    log: { entries: Record<string, unknown>[] };
  };
  const clients = await twoExampleClients();
  // The run's entries first, then the clients', as one hour of traffic.
  const runEntries = har.log.entries.map(({ _exchangeId: _, ...e }) => e);
  const start = Date.parse(runEntries[runEntries.length - 1]?.startedDateTime as string) + 1000;
  const shift = start - (clients[0]?.at ?? start);
  return [...runEntries, ...harEntriesOf(clients.map((x) => ({ ...x, at: x.at + shift })))];
}

const entries = await realTraffic();
const sample = join(dir, "one.har");
await writeHarCopies(sample, entries, 1);
const copies = Math.ceil((targetMb * MB) / statSync(sample).size);
const file = join(dir, "day.har");
const written = await writeHarCopies(file, entries, copies);
console.log(
  `lckit judge on ${fmt(statSync(file).size / MB)} MB of HAR: ${fmt(written)} exchanges (${copies} copies of ${entries.length} real ones)`,
);
const baseline = measure("parse", file);
const judged = measure("judge", file);
const row = (name: string, f: Figures) =>
  `${name.padEnd(34)} ${fmt(f.exchanges / (f.ms / 1000)).padStart(10)} exchanges/s ${fmt(f.maxRssMb).padStart(6)} MB peak RSS`;
console.log(row("streamed parse, no judging", baseline));
console.log(row("lckit judge", judged));
console.log(
  `lckit judge: ${fmt(judged.ms / baseline.ms, 2)}x the baseline's time, ${fmt(judged.maxRssMb / baseline.maxRssMb, 2)}x its memory`,
);
rmSync(dir, { recursive: true, force: true });
