// Time, for the reference and for the kit: injectable so tests drive token and scroll expiry without
// sleeping. The one wall clock of the kit lives here (systemClock): the reference's default and, through
// src/target/system-clock.ts, the clock of a live target; this folder is the lowest both reach.

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

/** Wall-clock time with real sleeps. It has no advance: a check that needs to move time skips on it. */
export interface WallClock {
  now(): number;
  /** Waits ms; ends early (without rejecting) when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Never set: a clock without advance is one the runner cannot drive. */
  advance?: undefined;
}

/** Wall-clock time; it cannot be moved. */
export function systemClock(): WallClock {
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

/** The wall clock as the reference's clock: advancing it is refused, naming the clock that can be moved. */
export function wallReferenceClock(wall: WallClock = systemClock()): ReferenceClock {
  return {
    now: () => wall.now(),
    advance() {
      throw new Error(
        "systemClock cannot be advanced; create the reference with { clock: manualClock() } to drive time",
      );
    },
  };
}

/**
 * Wall-clock time that can be moved forwards: advance adds to an offset, and time keeps running from there.
 * The sandbox's clock (lckit serve, startSandbox, lckit client check): a client runs in real time, and a
 * test still expires tokens and scrolls at once through the control API.
 */
export function shiftableClock(wall: WallClock = systemClock()): ReferenceClock {
  let offset = 0;
  return {
    now: () => wall.now() + offset,
    advance(ms: number) {
      if (!Number.isFinite(ms) || ms < 0) {
        throw new RangeError(`advance expects a finite number of milliseconds >= 0, got ${ms}`);
      }
      offset += ms;
    },
  };
}
