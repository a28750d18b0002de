// The traffic judge off the forwarding path: lckit proxy hands each completed exchange to a TrafficJudge in
// a worker thread (judge-thread-main.ts), so that judging (about 2 ms an exchange) never delays the
// exchanges being forwarded. Exchanges go over in small batches; the queue between the threads is bounded
// in exchanges and in body characters, and an exchange that finds it full is not judged: counted, and said
// in the report's verdict reason and subject.proxy, never a silent pass. Each run of exchanges not judged
// goes over as a gap (how many, from when to when) in its place among the others, so that every rule that
// follows state across exchanges (a scroll, a token's grants, a client's pages) says undecided where one
// of them may have been what it follows (TrafficJudge.gap). The gap carries the secrets its exchanges
// showed (distinct, in the order met), so that the judge labels every token as the proxy's recording does,
// judged or not: one token keeps one label across the recording and the report.
import { createRequire } from "node:module";
import { dirname, extname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { DEFAULT_LABELS_KEPT, type SecretKind } from "../redaction/pseudonyms.ts";
import { exchangeSecrets } from "../redaction/redact.ts";
import type { ReadExchange } from "./recorded-entry.ts";
import type { Judgement, TrafficJudgeOptions, TrafficReportOptions } from "./traffic-judge.ts";

export interface JudgeQueueLimits {
  /** Exchanges handed over and not yet judged. */
  exchanges: number;
  /** Body characters of those exchanges (a body is up to 1 MB). */
  chars: number;
}

export const DEFAULT_QUEUE_LIMITS: JudgeQueueLimits = { exchanges: 8_192, chars: 64 * 1024 * 1024 };

/** Exchanges sent over in one message at most. */
const BATCH = 64;

/** Messages between the threads. */
export type ToJudge =
  | { kind: "add"; exchanges: ReadExchange[] }
  | { kind: "gap"; exchanges: number; at: number; until: number; secrets: [string, SecretKind][] }
  | { kind: "judgement"; id: number; report: TrafficReportOptions };
export type FromJudge =
  | { kind: "judged"; exchanges: number; chars: number }
  | { kind: "judgement"; id: number; judgement: Judgement }
  | { kind: "failed"; id?: number; message: string };

export const charsOf = (x: ReadExchange) => (x.body?.length ?? 0) + x.responseBody.length;

/** tsx's ES module API (its register() loads .ts), as its package exports it to import. */
function tsxLoader(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve("tsx/package.json");
  const exported = (require(manifest) as { exports: Record<string, { import: { default: string } }> })
    .exports["./esm/api"];
  return pathToFileURL(join(dirname(manifest), exported?.import.default ?? "dist/esm/api/index.mjs")).href;
}

/** The worker's module: the .ts source through tsx's loader in a clone, the compiled .js in a package. */
function workerSource(): string {
  const self = fileURLToPath(import.meta.url);
  const ext = extname(self);
  const entry = pathToFileURL(
    self.slice(0, -ext.length).replace(/judge-thread$/, "judge-thread-main") + ext,
  ).href;
  const loader = ext === ".ts" ? tsxLoader() : undefined;
  // An eval worker is CommonJS: its dynamic import() loads the ES module entry.
  return `(async () => {
  ${loader === undefined ? "" : `(await import(${JSON.stringify(loader)})).register();`}
  await import(${JSON.stringify(entry)});
})();`;
}

export class JudgeThread {
  private readonly worker: Worker;
  private readonly limits: JudgeQueueLimits;
  private batch: ReadExchange[] = [];
  private flushing = false;
  private queued = 0;
  private queuedChars = 0;
  private nextId = 0;
  private readonly waiting = new Map<
    number,
    { resolve: (j: Judgement) => void; reject: (e: Error) => void }
  >();
  private failure: Error | undefined;
  /** Exchanges the judge never saw because its queue was full. */
  notJudged = 0;
  /** The run of exchanges not judged going on, told the judge when it ends (or at a judgement). */
  private gap: { exchanges: number; at: number; until: number; secrets: Map<string, SecretKind> } | undefined;

  constructor(options: TrafficJudgeOptions = {}, limits: Partial<JudgeQueueLimits> = {}) {
    this.limits = { ...DEFAULT_QUEUE_LIMITS, ...limits };
    this.worker = new Worker(workerSource(), { eval: true, workerData: options });
    this.worker.on("message", (m: FromJudge) => this.heard(m));
    this.worker.on("error", (error) => this.fail(error));
    this.worker.on("exit", (code) => {
      if (code !== 0) this.fail(new Error(`the judge's thread stopped (exit code ${code})`));
    });
    // The proxy's process may end while the thread waits for work.
    this.worker.unref();
  }

  /** One more completed exchange: queued for the judge, or counted as not judged when the queue is full. */
  add(x: ReadExchange): void {
    const chars = charsOf(x);
    if (
      this.failure !== undefined ||
      this.queued + 1 > this.limits.exchanges ||
      this.queuedChars + chars > this.limits.chars
    ) {
      this.notJudged += 1;
      const at = x.at ?? Date.now();
      if (this.gap === undefined) {
        // What was queued before it goes first: the gap takes its place after.
        this.flush();
        this.gap = { exchanges: 0, at, until: at, secrets: new Map() };
      }
      const gap = this.gap;
      gap.exchanges += 1;
      gap.at = Math.min(gap.at, at);
      gap.until = Math.max(gap.until, at);
      // Distinct, in the order first met: what numbers the labels (as many as the labels kept).
      for (const [value, kind] of exchangeSecrets(x))
        if (!gap.secrets.has(value) && gap.secrets.size < DEFAULT_LABELS_KEPT) gap.secrets.set(value, kind);
      return;
    }
    this.endGap();
    this.queued += 1;
    this.queuedChars += chars;
    this.batch.push(x);
    if (this.batch.length >= BATCH) this.flush();
    else if (!this.flushing) {
      this.flushing = true;
      // Exchanges completing in one turn of the event loop go over together.
      setImmediate(() => this.flush());
    }
  }

  /** The run of exchanges not judged is over: the judge is told, before what follows it. */
  private endGap(): void {
    if (this.gap === undefined) return;
    const { secrets, ...gap } = this.gap;
    this.post({ kind: "gap", ...gap, secrets: [...secrets] });
    this.gap = undefined;
  }

  private flush(): void {
    this.flushing = false;
    if (this.batch.length === 0) return;
    const exchanges = this.batch;
    this.batch = [];
    this.post({ kind: "add", exchanges });
  }

  private post(message: ToJudge): void {
    this.worker.postMessage(message);
  }

  /** Exchanges handed over and not judged yet. */
  get backlog(): number {
    return this.queued;
  }

  /** The judgement of everything handed over so far (after it is judged); the judge goes on. */
  judgement(report: TrafficReportOptions): Promise<Judgement> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    this.flush();
    this.endGap();
    const id = this.nextId++;
    const withCounts: TrafficReportOptions =
      report.proxy === undefined
        ? report
        : { ...report, proxy: { ...report.proxy, notJudged: this.notJudged } };
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.ref();
      this.post({ kind: "judgement", id, report: withCounts });
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }

  private heard(m: FromJudge): void {
    if (m.kind === "judged") {
      this.queued -= m.exchanges;
      this.queuedChars -= m.chars;
      return;
    }
    const waiting = m.id === undefined ? undefined : this.waiting.get(m.id);
    if (m.kind === "failed" && waiting === undefined) {
      this.fail(new Error(m.message));
      return;
    }
    if (waiting === undefined) return;
    this.waiting.delete(m.id as number);
    if (this.waiting.size === 0) this.worker.unref();
    if (m.kind === "judgement") waiting.resolve(m.judgement);
    else waiting.reject(new Error(m.message));
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const w of this.waiting.values()) w.reject(error);
    this.waiting.clear();
  }
}
