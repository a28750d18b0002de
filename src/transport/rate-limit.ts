// Spaces request starts so a live target never sees more than `perSecond` requests a second from the kit.
// Requests queue for the next start in turn, urgent ones first: the token checks' requests race their
// tokens' short validity, while the reads beside them lose nothing by waiting a slot (issue 43).

export class RateLimiter {
  /** When the next request may start. */
  private next = 0;
  /** Requests waiting for a start, in arrival order. */
  private readonly waiting: { urgent: boolean }[] = [];

  /** perSecond <= 0 or undefined: no limit (loopback targets). */
  constructor(
    private readonly perSecond: number | undefined,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) =>
      new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  /** Resolves when the request may start. `urgent`: it goes before every request that is not. */
  async acquire(urgent = false): Promise<void> {
    if (!this.perSecond || this.perSecond <= 0) return;
    const interval = 1000 / this.perSecond;
    const ticket = { urgent };
    this.waiting.push(ticket);
    for (;;) {
      const now = this.now();
      const start = Math.max(now, this.next);
      const first = this.waiting.find((t) => t.urgent) ?? this.waiting[0];
      // A start is taken only when it has come, so an urgent request that arrives meanwhile goes first.
      if (first === ticket && start - now < 1) {
        this.waiting.splice(this.waiting.indexOf(ticket), 1);
        this.next = now + interval;
        return;
      }
      await this.sleep(Math.max(1, start - now));
    }
  }
}
