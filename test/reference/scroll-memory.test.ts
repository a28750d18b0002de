// Abandoned scrolls: what they hold while open, and that they go once they expire, without waiting for the
// bounds on open scrolls to be reached.
import { describe, expect, it } from "vitest";
import { SCROLL_IDLE_MS } from "../../src/reference/scroll.ts";
import { setup } from "./harness.ts";

describe("abandoned scrolls", () => {
  const h = setup({ generate: { tenant: "acme", lookups: 5000, seed: 5 } });

  it("sorted scans that filter nothing share one order and hold no index of their own", async () => {
    const token = await h.token("acme-viewer");
    for (const order of ["asc", "desc", "asc"]) {
      const first = await h.call("POST", `/lookups/acme/_scan?limit=10&sort=updateDate&order=${order}`, {
        token,
      });
      expect(first.status).toBe(200);
      // A second page builds the field's order; the scans after it take that order as it is.
      const next = await h.call("POST", "/lookups/acme/_scan?limit=10", {
        token,
        body: { scrollId: (first.body as { scrollId: string }).scrollId },
      });
      expect(next.status).toBe(200);
    }
    expect(h.ref.state.scrolls.retainedEntries).toBe(0);
  });

  it("are closed by the next scan once they have been idle for the expiry", async () => {
    const token = await h.token("acme-viewer");
    const filter = encodeURIComponent("exists(code)");
    for (let i = 0; i < 40; i++) {
      const a = await h.call("POST", `/lookups/acme/_scan?limit=1&sort=code&filter=${filter}`, { token });
      expect(a.status).toBe(200);
    }
    const scrolls = h.ref.state.scrolls;
    expect(scrolls.size).toBeGreaterThanOrEqual(40);
    expect(scrolls.retainedEntries).toBeGreaterThan(0);
    h.clock.advance(SCROLL_IDLE_MS);
    const fresh = await h.token("acme-viewer");
    const a = await h.call("POST", "/lookups/acme/_scan?limit=1", { token: fresh });
    expect(a.status).toBe(200);
    expect(scrolls.size).toBe(1);
    expect(scrolls.retainedEntries).toBe(0);
  });
});
