// The clock of a live target: wall time, real sleeps, and no way to move it (checks needing that skip).
import type { Clock } from "./check.ts";

export function systemClock(): Clock {
  return {
    now: () => Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))),
  };
}
