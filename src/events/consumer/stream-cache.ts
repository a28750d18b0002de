// Consumer streams kept between runs. A stream's NDJSON file and its truth are decided by the kit's code,
// the producer choice, the seed and the count; making them costs about as much as a small consumer's own
// run. With a kept stream the consumer starts at once on a read-only link to the kept file, and while it
// runs the kit reads the kept truth, which carries the attributes the judge compares first; any other
// message is read from the kept file when the judge asks. The key holds a fingerprint of the kit's event
// code, so a changed generator never reuses an old stream.
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { kitInfo } from "../../result/kit-info.ts";
import {
  type ConsumerStream,
  type DeliveredMessage,
  Entry,
  ObjectLoader,
  type TruthEntry,
  type TruthObject,
  truthObjects,
} from "./consumer-stream.ts";
import { firstWinner } from "./object-state.ts";
import type { ProducerChoice } from "./producer-choices.ts";

/** Streams kept at most; the least recently used go first. */
const KEEP = 24;
/** The kept files' format; another value is not read. */
const FORMAT = 3;

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

/** What is known of a kept file before its truth is read: enough to start the consumer on it. */
interface KeptFile {
  format: number;
  messages: number;
  bytes: number;
  mtimeMs: number;
}

/** Numbers per kept entry: position, version, type (index in `types`), kind (index in KINDS), flags,
 *  timestamp (-1: none). Flat, so that reading a truth makes one array per object, not one per entry. */
const FIELDS = 6;
const KINDS: readonly TruthEntry["kind"][] = ["snapshot", "deltas", "fallback", "name-only", "unlisted"];

/** A kept truth: per object its entries' numbers and the attributes as sent of its entries that carry
 *  them (flag TEXTS, in order), in the order the objects first appeared. */
interface KeptTruth {
  format: number;
  messages: number;
  bytes: number;
  firstUnlisted: number | null;
  firstUnlistedType: string | null;
  types: string[];
  objects: [string, number[], (string | null)[]][];
  /** Objects of another tenant the destination carried (shared-destination), kept the same way. */
  otherObjects: [string, number[], (string | null)[]][];
}

const LISTED = 1;
const REMOVES = 2;
const GDPR = 4;
const RESEND = 8;
const UNKNOWN_FIELDS = 16;
const HAS_OBJECT = 32;
const TEXTS = 64;

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as T;
  } catch {
    return undefined;
  }
}

/** The kept file, unchanged since it was kept (a consumer given a link to it could have written it). */
function unchanged(dir: string, key: StreamKey): KeptFile | undefined {
  const meta = readJson<KeptFile>(`${base(dir, key)}.file.json`);
  if (meta?.format !== FORMAT) return undefined;
  try {
    const stat = statSync(`${base(dir, key)}.ndjson`);
    return stat.size === meta.bytes && stat.mtimeMs === meta.mtimeMs ? meta : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Links a kept stream's file (read-only) at `target` and returns its message count, or undefined when none
 * is kept (or the folder cannot be read: a cache that fails only costs the time it would have saved).
 * Where no link can be made, it is copied.
 */
export function takeKeptStream(dir: string, key: StreamKey, target: string): number | undefined {
  const meta = unchanged(dir, key);
  if (!meta) return undefined;
  const file = `${base(dir, key)}.ndjson`;
  try {
    linkSync(file, target);
  } catch {
    try {
      copyFileSync(file, target);
    } catch {
      return undefined;
    }
  }
  return meta.messages;
}

/** After a run on a kept file: a file its consumer wrote is forgotten, one it left alone is marked used. */
export function releaseKeptStream(dir: string, key: StreamKey): void {
  try {
    const meta = unchanged(dir, key);
    if (!meta) {
      forget(`${base(dir, key)}.ndjson`);
      return;
    }
    // Marked used through its meta file: touching the kept file would change what `unchanged` compares.
    writeFileSync(`${base(dir, key)}.file.json`, JSON.stringify(meta));
  } catch {
    // Nothing to keep tidy.
  }
}

/** A kept stream's file, read whole when a message is first needed. */
class KeptLines extends ObjectLoader {
  #text: Buffer | undefined;
  #starts: number[] = [];

  constructor(
    private readonly file: string,
    private readonly messages: number,
  ) {
    super();
  }

  /** Reads the file now rather than when a message is first needed. */
  load(): void {
    this.lines();
  }

  private lines(): { text: Buffer; starts: number[] } {
    if (!this.#text) {
      const text = readFileSync(this.file);
      const starts: number[] = [];
      for (let at = 0; at < text.length; ) {
        starts.push(at);
        const end = text.indexOf(10, at);
        if (end < 0) break;
        at = end + 1;
      }
      if (starts.length !== this.messages)
        throw new Error(`the kept stream ${this.file} changed while it was read: run the check again`);
      this.#text = text;
      this.#starts = starts;
    }
    return { text: this.#text, starts: this.#starts };
  }

  messageAt(position: number): DeliveredMessage {
    const { text, starts } = this.lines();
    const end = text.indexOf(10, starts[position]);
    return JSON.parse(text.toString("utf8", starts[position], end < 0 ? text.length : end));
  }

  objectAt(position: number): Record<string, unknown> | undefined {
    return this.messageAt(position).payload.object as Record<string, unknown> | undefined;
  }
}

/** The kept stream with its truth, read from the cache; undefined when it is gone or does not fit. */
export function keptStream(
  dir: string,
  key: StreamKey,
  choice: ProducerChoice,
  seed: number,
): ConsumerStream | undefined {
  const truth = readJson<KeptTruth>(`${base(dir, key)}.json`);
  if (truth?.format !== FORMAT || unchanged(dir, key)?.bytes !== truth.bytes) return undefined;
  // The file is read when a message the truth does not carry is first needed: a run whose consumer
  // holds every latest state needs none. Its read-only mode keeps the consumer from writing it, except as
  // root, which ignores modes: then it is read now, before the consumer runs, so what the consumer writes
  // (and the kit's forgetting the written file) cannot change the truth the view is judged by.
  const lines = new KeptLines(`${base(dir, key)}.ndjson`, truth.messages);
  if (process.getuid?.() === 0) lines.load();
  const objectsOf = (kept: KeptTruth["objects"]) => {
    const byUri = new Map<string, TruthEntry[]>();
    for (const [uri, numbers, texts] of kept) {
      const entries: TruthEntry[] = [];
      let text = 0;
      for (let at = 0; at < numbers.length; at += FIELDS) {
        const flags = numbers[at + 4] as number;
        const timestamp = numbers[at + 5] as number;
        const entry = new Entry(
          numbers[at] as number,
          numbers[at + 1] as number,
          truth.types[numbers[at + 2] as number] as string,
          KINDS[numbers[at + 3] as number] as TruthEntry["kind"],
          (flags & LISTED) !== 0,
          (flags & REMOVES) !== 0,
          (flags & GDPR) !== 0,
          timestamp < 0 ? undefined : timestamp,
          (flags & RESEND) !== 0,
          (flags & UNKNOWN_FIELDS) !== 0,
          (flags & HAS_OBJECT) !== 0 ? lines : undefined,
        );
        if ((flags & TEXTS) !== 0) entry.knownAttributes(texts[text++] ?? null);
        entries.push(entry);
      }
      byUri.set(uri, entries);
    }
    return truthObjects(byUri);
  };
  let messages: DeliveredMessage[] | undefined;
  return {
    choice,
    seed,
    get messages() {
      messages ??= Array.from({ length: truth.messages }, (_, position) => lines.messageAt(position));
      return messages;
    },
    messageCount: truth.messages,
    objects: objectsOf(truth.objects),
    otherTenantObjects: objectsOf(truth.otherObjects),
    ...(truth.firstUnlisted === null ? {} : { firstUnlisted: truth.firstUnlisted }),
    ...(truth.firstUnlistedType === null ? {} : { firstUnlistedType: truth.firstUnlistedType }),
  };
}

/** The entries whose attributes a judge of a view that holds every latest state compares: the latest
 *  state's and, after a large-object fallback, the snapshots before it. */
function comparedFirst(object: TruthObject): Set<TruthEntry> {
  const latest = firstWinner(object);
  const compared = new Set([latest]);
  if (latest.kind === "fallback")
    for (const e of object.entries) if (e.kind === "snapshot" && e.version < latest.version) compared.add(e);
  return compared;
}

/** An object's entries as kept: their numbers, and the attributes as sent of those `compared`. */
function keptObject(object: TruthObject, types: Map<string, number>): [string, number[], (string | null)[]] {
  const compared = comparedFirst(object);
  const numbers: number[] = [];
  const texts: (string | null)[] = [];
  for (const e of object.entries) {
    const hasObject = e instanceof Entry ? e.hasObject : e.attributesText !== undefined;
    const withText = hasObject && compared.has(e);
    if (!types.has(e.type)) types.set(e.type, types.size);
    numbers.push(
      e.position,
      e.version,
      types.get(e.type) as number,
      KINDS.indexOf(e.kind),
      (e.listed ? LISTED : 0) |
        (e.removes ? REMOVES : 0) |
        (e.gdpr ? GDPR : 0) |
        (e.resend ? RESEND : 0) |
        (e.unknownFields ? UNKNOWN_FIELDS : 0) |
        (hasObject ? HAS_OBJECT : 0) |
        (withText ? TEXTS : 0),
      e.timestamp ?? -1,
    );
    if (withText) texts.push(e.attributesText ?? null);
  }
  return [object.uri, numbers, texts];
}

/** Keeps a stream's file and its truth (each written whole, then renamed into place; the file's meta last,
 *  as the mark that the rest is there), and forgets the least recently used. */
export function keepStream(dir: string, key: StreamKey, file: string, stream: ConsumerStream): void {
  try {
    mkdirSync(dir, { recursive: true });
    const target = base(dir, key);
    const partial = `${target}.${process.pid}.partial`;
    copyFileSync(file, partial);
    chmodSync(partial, 0o444);
    renameSync(partial, `${target}.ndjson`);
    const stat = statSync(`${target}.ndjson`);
    const truth: KeptTruth = {
      format: FORMAT,
      messages: stream.messageCount,
      bytes: stat.size,
      firstUnlisted: stream.firstUnlisted ?? null,
      firstUnlistedType: stream.firstUnlistedType ?? null,
      types: [],
      objects: [],
      otherObjects: [],
    };
    const types = new Map<string, number>();
    for (const object of stream.objects.values()) truth.objects.push(keptObject(object, types));
    for (const object of stream.otherTenantObjects.values())
      truth.otherObjects.push(keptObject(object, types));
    truth.types = [...types.keys()];
    writeFileSync(partial, JSON.stringify(truth));
    renameSync(partial, `${target}.json`);
    const meta: KeptFile = {
      format: FORMAT,
      messages: stream.messageCount,
      bytes: stat.size,
      mtimeMs: stat.mtimeMs,
    };
    writeFileSync(partial, JSON.stringify(meta));
    renameSync(partial, `${target}.file.json`);
    forgetOldest(dir);
  } catch {
    // A cache that cannot be written leaves the run as it was.
  }
}

function forget(file: string): void {
  const stem = file.replace(/\.ndjson$/, "");
  for (const ending of [".file.json", ".json", ".ndjson"]) rmSync(`${stem}${ending}`, { force: true });
}

/** Keeps the most recently used streams (by their meta file's time) and forgets the rest. */
function forgetOldest(dir: string): void {
  const kept = readdirSync(dir)
    .filter((name) => name.endsWith(".file.json"))
    .map((name) => ({ name, used: statSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => b.used - a.used);
  for (const { name } of kept.slice(KEEP)) forget(join(dir, name.replace(/\.file\.json$/, ".ndjson")));
}
