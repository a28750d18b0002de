// The hop-by-hop headers a forwarder drops (src/http/hop-by-hop.ts), shared by the mock's refusal proxy
// and the Pact provider router.
import { describe, expect, it } from "vitest";
import { forwardedRequestHeaders, HOP_BY_HOP_HEADERS } from "../../src/http/index.ts";

describe("forwardedRequestHeaders", () => {
  it("drops the connection's headers and the ones named, and keeps every value of the others", () => {
    const headers = forwardedRequestHeaders(
      {
        connection: "keep-alive, x-private",
        "keep-alive": "timeout=5",
        "proxy-connection": "keep-alive",
        te: "trailers",
        trailer: "x-sum",
        "transfer-encoding": "chunked",
        upgrade: "h2c",
        host: "127.0.0.1:4010",
        authorization: "Bearer abc",
        "x-trace": ["one", "two"],
        "x-absent": undefined,
      },
      new Set(["host"]),
    );
    expect([...headers.keys()].sort()).toEqual(["authorization", "x-trace"]);
    expect(headers.get("authorization")).toBe("Bearer abc");
    expect(headers.get("x-trace")).toBe("one, two");
  });

  it("keeps Host unless told to drop it: it is the message's, not the connection's", () => {
    expect(forwardedRequestHeaders({ host: "example.test" }).get("host")).toBe("example.test");
  });

  it("lists the hop-by-hop headers in lower case, as node hands incoming names", () => {
    for (const name of HOP_BY_HOP_HEADERS) expect(name).toBe(name.toLowerCase());
    expect(HOP_BY_HOP_HEADERS.has("transfer-encoding")).toBe(true);
    expect(HOP_BY_HOP_HEADERS.has("content-type")).toBe(false);
  });
});
