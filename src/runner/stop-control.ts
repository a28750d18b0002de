// Everything that ends a run early goes through one StopControl: the first cause wins. A signal, the
// deadline or a spent request budget also ends the running check; an unresponsive target lets it end with
// its own finding (its requests are refused from then on, so it does so at once).
import type { Interruption, InterruptionCause } from "../result/model.ts";
import { MAX_TIMER_MS } from "../timer-limit.ts";

export class StopControl {
  private readonly stopper = new AbortController();
  private cause: Interruption | undefined;
  private readonly deadline: NodeJS.Timeout;
  private readonly onSignal: () => void;

  constructor(
    private readonly signal: AbortSignal | undefined,
    deadlineMs: number,
  ) {
    this.onSignal = () => {
      const reason: unknown = signal?.reason;
      const cause = reason === "SIGINT" || reason === "SIGTERM" ? reason : "aborted";
      this.stop(cause, cause === "aborted" ? "the run was aborted" : `the run received ${cause}`);
    };
    if (signal?.aborted) this.onSignal();
    signal?.addEventListener("abort", this.onSignal, { once: true });
    this.deadline = setTimeout(
      () =>
        this.stop(
          "deadline",
          `the run was cut short: its deadline of ${duration(deadlineMs)} passed (--deadline, or deadline: in the target file)`,
        ),
      Math.min(deadlineMs, MAX_TIMER_MS),
    );
  }

  /** Why the run stopped early, once it did (a method: it changes while the run awaits). */
  interruption(): Interruption | undefined {
    return this.cause;
  }

  /** Aborted when the running check must end too (every cause but an unresponsive target). */
  get checksEnd(): AbortSignal {
    return this.stopper.signal;
  }

  stop(cause: InterruptionCause, message: string): void {
    if (this.cause) return;
    this.cause = { cause, message, at: new Date().toISOString() };
    if (cause !== "unresponsive") this.stopper.abort(this.cause);
  }

  /** The run is over: no deadline, no listener left behind. */
  dispose(): void {
    clearTimeout(this.deadline);
    this.signal?.removeEventListener("abort", this.onSignal);
  }
}

function duration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
