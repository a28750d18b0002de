// The reading side the AMQP 0-9-1 and 1.0 sources share: the messages received and not yet read, the
// notices, the reason the stream stopped, its two deadlines and the loop that hands messages out. Each
// source keeps what differs: how it connects, receives, acknowledges, reconnects and releases.
import type { RawMessage, TransportNotice } from "../transport.ts";
import { deadlineReached, nextDeadlineMs } from "./stream-deadlines.ts";

export interface BrokerStreamLimits {
  durationMs?: number | undefined;
  idleTimeoutMs?: number | undefined;
  maxMessages?: number | undefined;
}

/** How a source connects again after a loss: at most `attempts` times, waiting `initialDelayMs` before the
 *  first and twice as long before each next, up to `maxDelayMs`. */
export interface Backoff {
  attempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

/** The backoff a source's options ask for; by default 30 attempts, 250 ms .. 5 s. */
export function backoffOf(given: Partial<Backoff> | undefined): Backoff {
  return {
    attempts: given?.attempts ?? 30,
    initialDelayMs: given?.initialDelayMs ?? 250,
    maxDelayMs: given?.maxDelayMs ?? 5000,
  };
}

/** What a source does in the reconnection loop: connect, release a connection the stopped stream no longer
 *  wants, say what came back (its notices) and why it gave up; `fatal` errors end the trying at once. */
export interface ReconnectSteps {
  connect(): Promise<void>;
  release(): Promise<void>;
  reconnected(attempt: number, at: number): void;
  gaveUp(lastError: unknown): string;
  fatal?(error: unknown): boolean;
}

export class BrokerStream {
  /** Received, not yet read. */
  readonly buffer: RawMessage[] = [];
  connected = false;
  lastActivity = Date.now();
  /** Set once, when the stream ends: after it no message is taken in and the loop returns. */
  stopReason: string | undefined;
  private readonly openedAt = Date.now();
  private readonly collected: TransportNotice[] = [];
  private wake: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private delivered = 0;
  private iterating = false;

  /** `name` says which source in the error of a second iteration. */
  constructor(
    private readonly name: string,
    private readonly limits: BrokerStreamLimits,
  ) {}

  notices(): TransportNotice[] {
    return [...this.collected];
  }

  notice(kind: TransportNotice["kind"], message: string, at = Date.now()): void {
    this.collected.push({ kind, message, at });
  }

  /** Wakes the loop waiting for a message or a deadline. */
  poke(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  stop(reason: string): void {
    if (this.stopReason !== undefined) return;
    this.stopReason = reason;
    this.notice("stopped", reason);
    this.poke();
  }

  /** Connects again with backoff while the stream runs; once connected the loop is woken, and if no attempt
   *  connects the stream stops with the reason `steps.gaveUp` gives. */
  async reconnect(backoff: Backoff, steps: ReconnectSteps): Promise<void> {
    let delay = backoff.initialDelayMs;
    let lastError: unknown;
    for (let attempt = 1; attempt <= backoff.attempts; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (this.stopReason !== undefined) return;
      delay = Math.min(delay * 2, backoff.maxDelayMs);
      try {
        await steps.connect();
      } catch (error) {
        lastError = error;
        if (steps.fatal?.(error)) break;
        continue;
      }
      if (this.stopReason !== undefined) {
        await steps.release();
        return;
      }
      steps.reconnected(attempt, Date.now());
      this.poke();
      return;
    }
    this.stop(steps.gaveUp(lastError));
  }

  /**
   * The messages, once: each received one in order until the stream stops (what arrived before a stop is
   * handed out first); `delivered` runs after each message is taken, `release` when the reading ends.
   */
  messages(release: () => Promise<void>, delivered: () => void = () => {}): AsyncIterable<RawMessage> {
    if (this.iterating)
      throw new Error(`${this.name} source can be iterated once; open another source to read again`);
    this.iterating = true;
    return this.iterate(release, delivered);
  }

  private async *iterate(release: () => Promise<void>, delivered: () => void): AsyncGenerator<RawMessage> {
    try {
      for (;;) {
        const max = this.limits.maxMessages;
        if (max !== undefined && this.delivered >= max) {
          this.stop(`${max} message(s) read`);
          return;
        }
        const next = this.buffer.shift();
        if (next) {
          this.delivered += 1;
          delivered();
          yield next;
          continue;
        }
        const reached = deadlineReached(this.clock());
        if (reached !== undefined) this.stop(reached);
        if (this.stopReason !== undefined) return;
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          const wait = nextDeadlineMs(this.clock());
          if (wait !== undefined) this.timer = setTimeout(resolve, wait);
        });
        clearTimeout(this.timer);
        this.wake = undefined;
      }
    } finally {
      await release();
    }
  }

  private clock() {
    const { durationMs, idleTimeoutMs } = this.limits;
    const { openedAt, lastActivity, connected } = this;
    return { openedAt, lastActivity, connected, durationMs, idleTimeoutMs };
  }
}
