// The breaker of a run: a target that stopped answering ends the run instead of costing every check its
// time limit.
import { RequestNotSent } from "../transport/transport.ts";

/**
 * Counts requests in a row that got no answer (timed out, refused, reset) and trips once there are
 * `threshold` of them. An answer of any status resets the count: a target that answers is responsive,
 * however wrong the answer. The count is taken on the raw transport, under the runner's time limits.
 */
export class Breaker {
  private consecutive = 0;
  private paused = 0;
  private tripped = false;
  /** True while the runner itself ends requests (a check's scope closing): those aborts are no failure. */
  ending = false;
  private lastAnswered: Request | undefined;

  constructor(
    private readonly threshold: number,
    private readonly trip: (threshold: number) => void,
  ) {}

  pause(): void {
    this.paused += 1;
  }

  resume(): void {
    this.paused -= 1;
  }

  watch(fetch: (request: Request) => Promise<Response>): (request: Request) => Promise<Response> {
    if (this.threshold <= 0) return fetch;
    return async (request) => {
      // Once tripped, only the runner's own undo requests still go out (they run paused).
      if (this.tripped && this.paused === 0)
        throw new RequestNotSent(
          `not sent: the target stopped answering (${this.threshold} requests in a row got no answer)`,
        );
      // The previous answer counts as an answer once its body was read without a time-out: by the next
      // request its signal would have been aborted otherwise.
      if (this.lastAnswered && !this.lastAnswered.signal.aborted) this.consecutive = 0;
      this.lastAnswered = undefined;
      let counted = false;
      const failure = () => {
        if (counted || this.ending) return;
        counted = true;
        this.failure();
      };
      request.signal.addEventListener("abort", failure, { once: true });
      try {
        const response = await fetch(request);
        this.lastAnswered = request;
        return response;
      } catch (error) {
        failure();
        throw error;
      }
    };
  }

  private failure(): void {
    this.consecutive += 1;
    if (this.paused === 0 && this.consecutive >= this.threshold && !this.tripped) {
      this.tripped = true;
      this.trip(this.threshold);
    }
  }
}
