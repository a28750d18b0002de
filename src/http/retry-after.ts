// Reading a Retry-After header (RFC 9110 10.2.3): the transport waits a 429 out by it, and a check that
// judges 429s itself asks whether waiting one out changes what it judges.

/** Retry-After in ms: delta-seconds or an HTTP date; absent or unreadable: one second. */
export function retryAfterMs(value: string | null, now: number = Date.now()): number {
  if (value === null || value.trim() === "") return 1000;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? 1000 : Math.max(0, date - now);
}
