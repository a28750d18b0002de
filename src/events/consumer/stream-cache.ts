// Consumer streams kept between runs. A stream's NDJSON file is decided by the kit's code, the producer
// choice, the seed and the count; generating and writing it costs about as much as a small consumer's own
// run. With a kept file the consumer starts at once, and the kit builds the stream's truth while it runs.
// The key holds a fingerprint of the kit's event code (src/events, or its build), so a changed generator
// never reuses an old file.
import { createHash } from "node:crypto";
import {
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { kitInfo } from "../../result/kit-info.ts";

/** Streams kept at most; the least recently used go first. */
const KEEP = 24;

/** The folder of kept streams: $LCKIT_CACHE_DIR, else $XDG_CACHE_HOME/lckit, else ~/.cache/lckit. */
export function defaultStreamCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.LCKIT_CACHE_DIR || join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "lckit");
  return join(base, "consumer-streams");
}

let fingerprint: string | undefined;

/** sha256 of every source file of the kit's event code and the kit's version, once per process. */
function codeFingerprint(): string {
  if (fingerprint) return fingerprint;
  const events = join(dirname(fileURLToPath(import.meta.url)), "..");
  const hash = createHash("sha256").update(kitInfo().version);
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.[cm]?[jt]s$/.test(name)) hash.update(name).update(readFileSync(path));
    }
  };
  walk(events);
  fingerprint = hash.digest("hex").slice(0, 16);
  return fingerprint;
}

export interface StreamKey {
  choice: string;
  seed: number;
  count: number;
}

function base(dir: string, key: StreamKey): string {
  return join(dir, `${codeFingerprint()}-${key.choice}-${key.seed}-${key.count}`);
}

/**
 * Copies a kept stream to `target` and returns its message count, or undefined when none is kept (or the
 * folder cannot be read: a cache that fails only costs the time it would have saved).
 */
export function takeKeptStream(dir: string, key: StreamKey, target: string): number | undefined {
  const file = `${base(dir, key)}.ndjson`;
  try {
    const meta = JSON.parse(readFileSync(`${base(dir, key)}.json`, "utf8")) as {
      messages?: unknown;
      bytes?: unknown;
    };
    if (typeof meta.messages !== "number" || statSync(file).size !== meta.bytes) return undefined;
    copyFileSync(file, target);
    const now = new Date();
    utimesSync(file, now, now);
    return meta.messages;
  } catch {
    return undefined;
  }
}

/** Keeps a stream's file (written whole, then renamed into place), and forgets the least recently used. */
export function keepStream(dir: string, key: StreamKey, file: string, messages: number): void {
  try {
    mkdirSync(dir, { recursive: true });
    const target = base(dir, key);
    const partial = `${target}.${process.pid}.partial`;
    copyFileSync(file, partial);
    renameSync(partial, `${target}.ndjson`);
    writeFileSync(`${target}.json`, JSON.stringify({ messages, bytes: statSync(file).size }));
    forgetOldest(dir);
  } catch {
    // A cache that cannot be written leaves the run as it was.
  }
}

function forgetOldest(dir: string): void {
  const kept = readdirSync(dir)
    .filter((name) => name.endsWith(".ndjson"))
    .map((name) => ({ name, used: statSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => b.used - a.used);
  for (const { name } of kept.slice(KEEP)) {
    rmSync(join(dir, name), { force: true });
    rmSync(join(dir, name.replace(/\.ndjson$/, ".json")), { force: true });
  }
}
