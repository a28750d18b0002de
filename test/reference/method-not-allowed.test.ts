// A known path asked with a method it does not answer gets 405 with an Allow header naming the methods the
// contract gives that path: the reference reads its route table from openapi/, so each path is tried here.
import { describe, expect, it } from "vitest";
import { loadContract } from "../../src/contract/index.ts";
import { setup } from "./harness.ts";

/** Path templates of the contract with the methods it declares for each, in document order. */
function contractPaths(): Map<string, string[]> {
  const paths = new Map<string, string[]>();
  for (const operation of loadContract().operations)
    paths.set(operation.path, [...(paths.get(operation.path) ?? []), operation.method]);
  return paths;
}

const concrete = (template: string) =>
  template.replace(/\{([^}]+)\}/g, (_, name: string) => (name === "lookupType" ? "Country" : "acme"));

describe("a wrong method on a known path", () => {
  const paths = [...contractPaths()];

  it("covers every path of both documents", () => {
    expect(paths.length).toBe(12);
  });

  it.each(paths)("%s answers 405 naming %j", async (template, methods) => {
    const h = setup();
    const wrong = ["DELETE", "PATCH", "GET", "PUT"].find((method) => !methods.includes(method)) ?? "DELETE";
    const a = await h.call(wrong, concrete(template), { token: await h.token("acme-admin") });
    expect(a.status).toBe(405);
    expect(a.headers.get("allow")).toBe(methods.join(", "));
    expect(a.body).toMatchObject({
      error: "method_not_allowed",
      error_description: expect.stringContaining(`use ${methods.join(" or ")}`),
    });
  });

  it("names both methods of the customer path", async () => {
    const h = setup();
    const a = await h.call("DELETE", "/oauth/customers/cust-acme", { token: await h.token("acme-admin") });
    expect(a.status).toBe(405);
    expect(a.headers.get("allow")).toBe("PUT, POST");
  });
});
