// Spaces request starts so a live target never sees more than `perSecond` requests a second from the kit.

export class RateLimiter {
  private next = 0;

  /** perSecond <= 0 or undefined: no limit (loopback targets). */
  constructor(
    private readonly perSecond: number | undefined,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) =>
      new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  async acquire(): Promise<void> {
    if (!this.perSecond || this.perSecond <= 0) return;
    const interval = 1000 / this.perSecond;
    const now = this.now();
    const start = Math.max(now, this.next);
    this.next = start + interval;
    if (start > now) await this.sleep(start - now);
  }
}
