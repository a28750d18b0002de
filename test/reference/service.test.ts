// healthcheck, status, version (SERVICE-*).
import { describe, expect, it } from "vitest";
import { setup } from "./harness.ts";

describe("service endpoints", () => {
  it.each([
    ["/healthcheck", { status: "OK" }],
    ["/status", { status: "OK" }],
    ["/version", { "rdm-service": expect.stringMatching(/^\d+(\.\d+)+$/) }],
    ["/healthcheck/ (a trailing slash names the same path)", { status: "OK" }],
  ])("%s answers 200 JSON", async (path, body) => {
    const h = setup();
    const a = await h.call("GET", path.split(" ")[0] as string, { token: await h.token("acme-viewer") });
    expect(a.status).toBe(200);
    expect(a.headers.get("content-type")).toMatch(/^application\/json/);
    expect(a.body).toEqual(body);
  });
});
