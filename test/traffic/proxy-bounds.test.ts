// lckit proxy's copy of a body for the judge is bounded however the body is encoded: an answer that
// decompresses to far more than the judge's bound (a small gzip of 50 MB) reaches the client whole, and
// the judge gets it marked cut (undecided), never the 50 MB decoded in memory.
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { BODY_CHARS } from "../../src/traffic/recorded-entry.ts";
import { collectingJudge, proxyInFront } from "./proxy-in-process.ts";

describe("lckit proxy's copy of a compressed body", () => {
  it("is cut at the judge's bound when it decompresses past it; the client gets every byte", async () => {
    const decoded = 50 * 1024 * 1024;
    const zipped = gzipSync(Buffer.alloc(decoded, " "));
    expect(zipped.length).toBeLessThan(BODY_CHARS);
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" }).end(zipped);
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const upstream = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { judge, judged } = collectingJudge();
    const proxy = await proxyInFront(upstream, judge);
    try {
      const answer = await fetch(`${proxy.rdmUrl}/lookups/shop/_scan`, {
        method: "POST",
        headers: { "accept-encoding": "gzip" },
      });
      expect((await answer.arrayBuffer()).byteLength).toBe(decoded);
      expect(judged).toHaveLength(1);
      expect(judged[0]?.responseCut).toBe(true);
      expect(judged[0]?.responseBody.length).toBeLessThanOrEqual(BODY_CHARS);
    } finally {
      await proxy.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
