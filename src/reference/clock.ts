// Time as the reference sees it: injectable so tests drive token and scroll expiry without sleeping.

export interface ReferenceClock {
  now(): number;
  advance(ms: number): void;
}

/** A clock that moves only when told to. */
export function manualClock(start = Date.UTC(2026, 0, 1)): ReferenceClock {
  let current = start;
  return {
    now: () => current,
    advance(ms: number) {
      if (!Number.isFinite(ms) || ms < 0) {
        throw new RangeError(`manualClock.advance expects a finite number of milliseconds >= 0, got ${ms}`);
      }
      current += ms;
    },
  };
}

/** Wall-clock time; it cannot be moved. */
export function systemClock(): ReferenceClock {
  return {
    now: () => Date.now(),
    advance() {
      throw new Error(
        "systemClock cannot be advanced; create the reference with { clock: manualClock() } to drive time",
      );
    },
  };
}
