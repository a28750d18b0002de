// The clock of a live target: wall time, real sleeps, and no way to move it (checks needing that skip).
import type { Clock } from "../check/index.ts";

export function systemClock(): Clock {
  return {
    now: () => Date.now(),
    // The timer is cleared when `signal` aborts, so an abandoned wait does not keep the process alive; a
    // finished wait takes its listener off again (a check sleeps many times on one signal).
    sleep: (ms, signal) =>
      new Promise((resolve) => {
        const cancel = () => clearTimeout(timer);
        const timer = setTimeout(
          () => {
            signal?.removeEventListener("abort", cancel);
            resolve();
          },
          Math.max(0, ms),
        );
        signal?.addEventListener("abort", cancel, { once: true });
      }),
  };
}
