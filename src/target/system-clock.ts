// The clock of a live target: wall time, real sleeps, and no way to move it (checks needing that skip). One
// wall clock serves the kit and its reference: it is written once, in src/reference/clock.ts.
export { systemClock, type WallClock } from "../reference/clock.ts";
