// Streams kept between runs of lckit events consumer check (file and stdin deliveries): the first run
// keeps its stream, a later one hands the consumer the kept file at once and reads the kept truth while it
// runs, with the same verdict; a kept stream that no longer matches the kit stops the run with the fix,
// its consumer stopped; a cache folder that cannot be written costs nothing but the time it would have
// saved.
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { consumerCheck } from "../../src/commands/consumer/check.ts";
import { consumerStream, type TruthEntry } from "../../src/events/consumer/consumer-stream.ts";
import { PRODUCER_CHOICES } from "../../src/events/consumer/producer-choices.ts";
import { defaultStreamCacheDir, keepStream, keptStream } from "../../src/events/consumer/stream-cache.ts";
import { packagePath } from "../../src/package-root.ts";
import { captureIo } from "../cli/capture-io.ts";

const consumer = [process.execPath, packagePath("examples", "consumers", "view-consumer.mjs")];
const kept = (dir: string, ending: string) => readdirSync(dir).filter((name) => name.endsWith(ending));

/** Everything the judge reads of an entry. */
const facts = (e: TruthEntry) => ({
  position: e.position,
  version: e.version,
  type: e.type,
  kind: e.kind,
  listed: e.listed,
  removes: e.removes,
  gdpr: e.gdpr,
  timestamp: e.timestamp,
  resend: e.resend,
  unknownFields: e.unknownFields,
  attributes: e.attributes,
  attributesText: e.attributesText,
});

describe("kept consumer streams", () => {
  it("a kept stream's truth is the truth the kit makes, under every producer choice", () => {
    const cache = mkdtempSync(join(tmpdir(), "lckit-stream-cache-"));
    for (const choice of PRODUCER_CHOICES) {
      const made = consumerStream(choice, 6, 600);
      const file = join(cache, `${choice.name}.events`);
      writeFileSync(file, made.messages.map((m) => `${JSON.stringify(m)}\n`).join(""));
      const key = { choice: choice.name, seed: 6, count: 600 };
      keepStream(cache, key, file, made);
      const read = keptStream(cache, key, choice, 6);
      expect(read, choice.name).toBeDefined();
      if (!read) continue;
      expect(read.messageCount).toBe(made.messageCount);
      expect(read.firstUnlisted).toBe(made.firstUnlisted);
      expect(read.firstUnlistedType).toBe(made.firstUnlistedType);
      expect([...read.objects.keys()]).toEqual([...made.objects.keys()]);
      for (const [uri, object] of made.objects) {
        const other = read.objects.get(uri);
        expect(other?.entries.map(facts), `${choice.name} ${uri}`).toEqual(object.entries.map(facts));
        expect(other && facts(other.winner)).toEqual(facts(object.winner));
      }
      // Another tenant's objects (shared-destination) are kept as well.
      expect([...read.otherTenantObjects.keys()]).toEqual([...made.otherTenantObjects.keys()]);
      for (const [uri, object] of made.otherTenantObjects)
        expect(read.otherTenantObjects.get(uri)?.entries.map(facts), `${choice.name} ${uri}`).toEqual(
          object.entries.map(facts),
        );
      if (choice.name === "shared-destination") expect(made.otherTenantObjects.size).toBeGreaterThan(10);
      expect(read.messages).toEqual(made.messages);
    }
  });

  it("the first run keeps its stream; the next one runs the consumer on it with the same verdict", async () => {
    const cache = mkdtempSync(join(tmpdir(), "lckit-stream-cache-"));
    const first = await consumerCheck({ argv: consumer, count: 400, seed: 3, streamCache: cache });
    expect(first.exitCode, first.result.verdictReason).toBe(0);
    const [file] = kept(cache, ".ndjson");
    expect(file).toMatch(/-snapshot-3-400\.ndjson$/);
    const lines = readFileSync(join(cache, file as string), "utf8")
      .trimEnd()
      .split("\n");
    expect(lines.length).toBe(first.stream.messages.length);
    expect(JSON.parse(lines[0] as string)).toEqual(first.stream.messages[0]);

    // A broken consumer on the kept stream: caught as on a fresh one, with the same findings.
    const fresh = await consumerCheck({
      argv: consumer,
      count: 400,
      seed: 3,
      env: { ...process.env, FAULT: "ignores-removals" },
    });
    const again = await consumerCheck({
      argv: consumer,
      count: 400,
      seed: 3,
      streamCache: cache,
      env: { ...process.env, FAULT: "ignores-removals" },
    });
    const failed = (run: typeof fresh) =>
      run.result.checks.filter((c) => c.status === "failed").map((c) => [c.id, c.message]);
    expect(failed(again)).toEqual(failed(fresh));
    expect(failed(again).map(([id]) => id)).toEqual(["consumer/removal-not-live"]);
    expect(again.result.subject).toMatchObject({ delivered: first.stream.messages.length });
    expect(kept(cache, ".ndjson")).toEqual([file]);
  });

  it("stdin: the kept stream is piped to the consumer, with the same findings as a fresh one", async () => {
    const cache = mkdtempSync(join(tmpdir(), "lckit-stream-cache-"));
    const run = (extra: { streamCache?: string; env?: NodeJS.ProcessEnv }) =>
      consumerCheck({ argv: consumer, delivery: "stdin", count: 400, seed: 12, ...extra });
    const first = await run({ streamCache: cache });
    expect(first.exitCode, first.result.verdictReason).toBe(0);
    expect(kept(cache, ".file.json")).toHaveLength(1);
    const again = await run({ streamCache: cache });
    expect(again.exitCode, again.result.verdictReason).toBe(0);
    expect(again.result.subject).toMatchObject({ delivered: first.stream.messages.length });
    const broken = { ...process.env, FAULT: "last-arrival" };
    const failed = (r: Awaited<ReturnType<typeof run>>) =>
      r.result.checks.filter((c) => c.status === "failed").map((c) => [c.id, c.message]);
    const keptBroken = await run({ streamCache: cache, env: broken });
    expect(failed(keptBroken)).toEqual(failed(await run({ env: broken })));
    expect(failed(keptBroken).map(([id]) => id)).toEqual(["consumer/latest-by-object-version"]);
  });

  it("a kept stream that differs from what the kit makes stops the run with the fix; its consumer is stopped", async () => {
    const cache = mkdtempSync(join(tmpdir(), "lckit-stream-cache-"));
    await consumerCheck({ argv: consumer, count: 200, seed: 4, streamCache: cache });
    const [meta] = kept(cache, ".file.json");
    const path = join(cache, meta as string);
    const recorded = JSON.parse(readFileSync(path, "utf8")) as { messages: number; bytes: number };
    writeFileSync(path, JSON.stringify({ ...recorded, messages: recorded.messages + 1 }));
    const marker = join(mkdtempSync(join(tmpdir(), "lckit-stream-cache-")), "still-running");
    // A consumer that would write the marker after 3 s unless it is stopped first.
    const slow = ["sh", "-c", `sleep 3; touch ${marker}`];
    await expect(consumerCheck({ argv: slow, count: 200, seed: 4, streamCache: cache })).rejects.toThrow(
      /kept stream .* has \d+ messages where this kit makes \d+: remove that folder/,
    );
    await new Promise((resolve) => setTimeout(resolve, 3500));
    expect(existsSync(marker)).toBe(false);
  });

  it("a kept file its consumer wrote to is forgotten, never handed to the next run", async () => {
    const cache = mkdtempSync(join(tmpdir(), "lckit-stream-cache-"));
    await consumerCheck({ argv: consumer, count: 200, seed: 7, streamCache: cache });
    expect(kept(cache, ".file.json")).toHaveLength(1);
    const writer = [
      "sh",
      "-c",
      `printf '\\n' >> "$LCKIT_EVENTS_FILE" 2>/dev/null; exec "$0" "$1"`,
      ...consumer,
    ];
    const run = await consumerCheck({ argv: writer, count: 200, seed: 7, streamCache: cache });
    expect(run.exitCode, run.result.verdictReason).toBe(0);
    // Read-only for others; root writes all the same, and the kit notices.
    const written = kept(cache, ".file.json").length === 0;
    const unwritable = typeof process.getuid === "function" && process.getuid() !== 0;
    expect(written || unwritable).toBe(true);
    const again = await consumerCheck({ argv: consumer, count: 200, seed: 7, streamCache: cache });
    expect(again.exitCode, again.result.verdictReason).toBe(0);
    expect(kept(cache, ".file.json")).toHaveLength(1);
  });

  it("a view written again after a pause is judged as it ends, not as it was first written", async () => {
    // The kit judges a view as soon as it is written; a consumer that writes it again must be judged on
    // what it wrote last, whichever of the two is broken.
    const [node, script] = consumer;
    const twice = (first: string, second: string) => [
      "sh",
      "-c",
      `FAULT=${first} "$0" "$1" && sleep 0.2 && FAULT=${second} "$0" "$1"`,
      node as string,
      script as string,
    ];
    const failed = (run: Awaited<ReturnType<typeof consumerCheck>>) =>
      run.result.checks.filter((c) => c.status === "failed").map((c) => c.id);
    const brokenLast = await consumerCheck({ argv: twice("", "ignores-removals"), count: 300, seed: 2 });
    expect(failed(brokenLast)).toEqual(["consumer/removal-not-live"]);
    const correctLast = await consumerCheck({ argv: twice("ignores-removals", ""), count: 300, seed: 2 });
    expect(correctLast.exitCode, correctLast.result.verdictReason).toBe(0);
  });

  it("a cache folder that cannot be written leaves the run as it was", async () => {
    const blocker = join(mkdtempSync(join(tmpdir(), "lckit-stream-cache-")), "a-file");
    writeFileSync(blocker, "not a folder");
    const run = await consumerCheck({ argv: consumer, count: 200, seed: 5, streamCache: join(blocker, "x") });
    expect(run.exitCode, run.result.verdictReason).toBe(0);
    expect(statSync(blocker).isFile()).toBe(true);
  });

  it("the CLI keeps streams in LCKIT_CACHE_DIR by default and none with --stream-cache off", async () => {
    const home = mkdtempSync(join(tmpdir(), "lckit-stream-cache-"));
    const reports = mkdtempSync(join(tmpdir(), "lckit-stream-cache-reports-"));
    const env = { LCKIT_CACHE_DIR: home };
    const run = (extra: string[]) => {
      const io = { ...captureIo(), env };
      return main(
        [
          "events",
          "consumer",
          "check",
          "--messages",
          "150",
          "--report-dir",
          reports,
          ...extra,
          "--",
          ...consumer,
        ],
        io,
      ).then((code) => ({ code, io }));
    };
    const off = await run(["--stream-cache", "off", "--seed", "8"]);
    expect(off.code, off.io.stderr()).toBe(0);
    expect(existsSync(defaultStreamCacheDir(env))).toBe(false);
    const on = await run(["--seed", "9"]);
    expect(on.code, on.io.stderr()).toBe(0);
    expect(kept(defaultStreamCacheDir(env), ".ndjson")).toEqual([
      expect.stringMatching(/-snapshot-9-150\.ndjson$/),
    ]);
  });
});
