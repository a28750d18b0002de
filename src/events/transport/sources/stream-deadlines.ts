// The two limits of a broker stream, shared by the AMQP 0-9-1 and 1.0 sources: a total duration from the
// moment the source opened, and an idle time since the last message that counts only while connected (a
// reconnection is bounded by its own attempts).

export interface StreamClock {
  openedAt: number;
  lastActivity: number;
  connected: boolean;
  durationMs?: number | undefined;
  idleTimeoutMs?: number | undefined;
}

/** Ms until the next deadline, or undefined when none applies. */
export function nextDeadlineMs(s: StreamClock, now = Date.now()): number | undefined {
  const deadlines: number[] = [];
  if (s.durationMs !== undefined) deadlines.push(s.openedAt + s.durationMs - now);
  if (s.idleTimeoutMs !== undefined && s.connected) deadlines.push(s.lastActivity + s.idleTimeoutMs - now);
  return deadlines.length === 0 ? undefined : Math.max(0, Math.min(...deadlines));
}

/** Why the stream ends now, or undefined while neither limit is reached. */
export function deadlineReached(s: StreamClock, now = Date.now()): string | undefined {
  if (s.durationMs !== undefined && now - s.openedAt >= s.durationMs)
    return `duration of ${s.durationMs} ms reached`;
  if (s.idleTimeoutMs !== undefined && s.connected && now - s.lastActivity >= s.idleTimeoutMs)
    return `no message for ${s.idleTimeoutMs} ms (idle timeout)`;
  return undefined;
}
