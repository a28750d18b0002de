// The largest delay setTimeout honours; a longer one fires at once. Every time limit of the kit (flags,
// target file, run deadline, check time limit, a check's sleep) stays within it.
export const MAX_TIMER_MS = 2 ** 31 - 1;
