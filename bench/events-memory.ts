// `npm run bench:events-memory`: memory of `lckit events check` over generated NDJSON files of growing size
// (default 100,000, 400,000 and 1,000,000 messages; BENCH_SIZES=a,b,c overrides, BENCH_SEED the seed).
// For each file it prints, from two runs of the checker in a process of its own:
// - max RSS and wall time of the command as a user runs it (`/usr/bin/time -f "%M %e"`, when present);
// - the live heap after a full collection every 100,000 messages (fewer for small files; a process
//   started with --expose-gc):
//   what the checker keeps. Flat past --max-tracked means bounded; max RSS also holds garbage the
//   collector has not yet needed to reclaim.
// The files are made by `lckit events publish` in a temporary folder and removed at the end.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = join(root, "bin", "lckit.mjs");
const self = fileURLToPath(import.meta.url);

/** Child mode: check FILE under CONFIG; prints the live heap taken every `step` messages, as JSON. */
async function probe(file: string, configFile: string, step: number): Promise<void> {
  const { checkStream } = await import("../src/events/judge/event-stream.ts");
  const { openSource } = await import("../src/events/transport/sources/index.ts");
  const { loadStreamingConfig } = await import("../src/events/streaming-config.ts");
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("probe needs node --expose-gc");
  const config = await loadStreamingConfig(configFile);
  const source = await openSource(file, {});
  const inner = source.messages.bind(source);
  let read = 0;
  const heaps: number[] = [];
  source.messages = async function* () {
    for await (const raw of inner()) {
      read += 1;
      if (read % step === 0) {
        gc();
        heaps.push(process.memoryUsage().heapUsed);
      }
      yield raw;
    }
  };
  const result = await checkStream(source, { config });
  console.log(JSON.stringify({ total: result.total, heaps, notices: result.notices.length }));
}

function mb(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(0)} MB`;
}

async function main(): Promise<void> {
  const sizes = (process.env.BENCH_SIZES ?? "100000,400000,1000000").split(",").map(Number);
  const seed = process.env.BENCH_SEED ?? "42";
  const dir = mkdtempSync(join(tmpdir(), "lckit-events-memory-"));
  const timer = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;
  console.log(
    `events memory bench: seed ${seed}, ${sizes.join(" / ")} messages (2% re-sends, reordering within 5 places)`,
  );
  const rows: { count: number; rss?: number; seconds?: number; first: number; last: number; max: number }[] =
    [];
  try {
    for (const count of sizes) {
      const file = join(dir, `stream-${count}.ndjson`);
      const manifest = join(dir, `manifest-${count}.json`);
      const config = join(dir, `config-${count}.json`);
      const made = spawnSync(
        process.execPath,
        [
          bin,
          "events",
          "publish",
          "--to",
          file,
          "--count",
          String(count),
          "--seed",
          seed,
          "--duplicates",
          "0.02",
          "--reorder",
          "5",
          "--manifest",
          manifest,
        ],
        { stdio: ["ignore", "ignore", "inherit"] },
      );
      if (made.status !== 0) throw new Error(`lckit events publish exited ${made.status}`);
      writeFileSync(config, JSON.stringify(JSON.parse(readFileSync(manifest, "utf8")).streamingConfig));
      const step = Math.max(1000, Math.min(100_000, Math.floor(count / 4)));
      const row: (typeof rows)[number] = { count, first: 0, last: 0, max: 0 };
      if (timer) {
        const timed = spawnSync(
          timer,
          ["-f", "%M %e", process.execPath, bin, "events", "check", file, "--config", config],
          {
            encoding: "utf8",
            maxBuffer: 256 * 2 ** 20,
          },
        );
        const [rss, seconds] = (timed.stderr.trim().split("\n").at(-1) ?? "").split(" ").map(Number);
        row.rss = (rss ?? 0) * 1024;
        row.seconds = seconds ?? 0;
      }
      const probed = spawnSync(
        process.execPath,
        ["--expose-gc", "--import", "tsx", self, "--probe", file, config, String(step)],
        {
          encoding: "utf8",
          cwd: root,
        },
      );
      if (probed.status !== 0) throw new Error(`probe exited ${probed.status}: ${probed.stderr}`);
      const { heaps } = JSON.parse(probed.stdout.trim().split("\n").at(-1) ?? "{}") as { heaps: number[] };
      row.first = heaps[0] ?? 0;
      row.last = heaps.at(-1) ?? 0;
      row.max = Math.max(...heaps);
      rows.push(row);
      console.log(
        `${String(count).padStart(9)} messages: ${row.rss === undefined ? "" : `max RSS ${mb(row.rss)} in ${row.seconds?.toFixed(1)} s; `}live heap (after a full collection, every ${step} messages) ${mb(row.first)} first, ${mb(row.max)} at most, ${mb(row.last)} last`,
      );
      rmSync(file, { force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const base = rows[0];
  const top = rows.at(-1);
  if (base && top && base !== top)
    console.log(
      `${top.count} vs ${base.count} messages: live heap at most ${(top.max / base.max).toFixed(2)}x${top.rss && base.rss ? `, max RSS ${(top.rss / base.rss).toFixed(2)}x` : ""}`,
    );
}

if (process.argv[2] === "--probe")
  await probe(process.argv[3] ?? "", process.argv[4] ?? "", Number(process.argv[5] ?? 100_000));
else await main();
