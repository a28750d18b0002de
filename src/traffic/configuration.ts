// What a refused configuration write leaves stored, as the traffic shows it (Errors: a configuration
// validation error stores nothing; a multitokenConfig refused for an rdbms tenant is such a refusal): a
// write of a customer or of its clients the service accepted (2xx), then only writes of that customer it
// refused for their content (400 or 422), then the same write again (same method, path and body): nothing
// stored has changed since it was accepted, so it is accepted again (a PUT and a POST of the same fields
// over the same stored customer are the same write). Refused again, for its content, a refused write
// changed what is stored. Only the customer's own writes are followed; a write whose outcome the traffic
// does not show (not answered), or exchanges not judged, leave the stored customer unknown until the next
// accepted write.
import type { ObservedExchange, ServiceRule, ServiceRuleJudge } from "./service-rule.ts";
import type { Tally } from "./tally.ts";

export const REFUSED_WRITE_RULE = {
  id: "service/refused-write-stores-nothing",
  level: "SHOULD",
  title:
    "SHOULD store nothing of a configuration write refused for its content: a write accepted before is accepted again when only refused writes came between",
  requirements: ["CONFIG-05", "CONFIG-CUSTOMER-04"],
  opportunity:
    "a customer or clients write made again after only writes of that customer refused for their content (400 or 422) since it was accepted",
  notExercised:
    "the traffic showed no configuration write made again after writes of the same customer refused for their content",
} satisfies ServiceRule;

const WRITES = new Set(["putCustomer", "postCustomer", "putClients"]);
/** Refused for what it carries: the statuses a validation error takes (the code is not shown; 401, 403,
 *  404 and 429 say who asks, what is missing or how often, not what the write carries). */
const CONTENT_REFUSAL = new Set([400, 422]);
const CUSTOMERS_KEPT = 1_000;
const WRITES_PER_CUSTOMER = 64;

interface Stored {
  /** Writes accepted so far (the stored customer's version). */
  version: number;
  /** The accepted writes, by method, path and body: the version they left and where. */
  accepted: Map<string, { version: number; seq: number }>;
  /** Content refusals since the last accepted write: the first one's seq, and the writes refused. */
  refusedSince?: number;
  refused: Set<string>;
}

const customerOf = (pathname: string) => /\/oauth\/customers\/([^/]+)(?:\/clients)?$/.exec(pathname)?.[1];

export class ConfigurationJudge implements ServiceRuleJudge {
  readonly rules = [REFUSED_WRITE_RULE];
  private readonly customers = new Map<string, Stored>();

  constructor(private readonly tally: (id: string) => Tally) {}

  gap(): void {
    this.customers.clear();
  }

  see(x: ObservedExchange): void {
    if (!WRITES.has(x.operation ?? "")) return;
    const customer = customerOf(x.pathname);
    if (customer === undefined) return;
    const key = `${x.method} ${x.pathname} ${x.body?.trim() ?? ""}`;
    const stored = this.customers.get(customer);
    if (x.status >= 200 && x.status < 300) {
      const next: Stored = stored ?? { version: 0, accepted: new Map(), refused: new Set() };
      if (this.again(stored, key)) this.tally(REFUSED_WRITE_RULE.id).opportunities += 1;
      next.version += 1;
      delete next.refusedSince;
      next.refused.clear();
      next.accepted.delete(key);
      next.accepted.set(key, { version: next.version, seq: x.seq });
      if (next.accepted.size > WRITES_PER_CUSTOMER)
        next.accepted.delete(next.accepted.keys().next().value as string);
      this.customers.delete(customer);
      this.customers.set(customer, next);
      if (this.customers.size > CUSTOMERS_KEPT)
        this.customers.delete(this.customers.keys().next().value as string);
      return;
    }
    if (stored === undefined) return;
    if (!CONTENT_REFUSAL.has(x.status)) {
      // An outcome that says nothing of the content (auth, rate, a 5xx): what it stored is not shown.
      if (x.status >= 500) this.customers.delete(customer);
      return;
    }
    const before = stored.accepted.get(key);
    if (before !== undefined && this.again(stored, key)) {
      const tally = this.tally(REFUSED_WRITE_RULE.id);
      tally.opportunities += 1;
      tally.violate(
        x.seq,
        `${x.method} ${x.pathname} was refused (${x.status}) for its content although the same write was accepted at #${before.seq} and only writes refused for their content (from #${stored.refusedSince}) came since: a refused write changed what is stored`,
      );
    }
    stored.refusedSince ??= x.seq;
    if (stored.refused.size < WRITES_PER_CUSTOMER) stored.refused.add(key);
  }

  /** A write not answered: what it stored is not shown. */
  unanswered(x: ObservedExchange): void {
    const customer = WRITES.has(x.operation ?? "") ? customerOf(x.pathname) : undefined;
    if (customer !== undefined) this.customers.delete(customer);
  }

  /** The write `key` made again over the stored customer it was accepted on, with other writes refused for
   *  their content since (the opportunity). */
  private again(stored: Stored | undefined, key: string): boolean {
    const before = stored?.accepted.get(key);
    if (stored === undefined || before === undefined || before.version !== stored.version) return false;
    for (const other of stored.refused) if (other !== key) return true;
    return false;
  }
}
