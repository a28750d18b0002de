// Delete tasks (TASK-*): 202 task object, asynchronous effect, exact selection, tenant isolation.
import { describe, expect, it } from "vitest";
import type { Lookup, Task } from "../../src/reference/index.ts";
import { type Harness, setup } from "./harness.ts";

const ids = (h: Harness, tenant: string) =>
  (h.ref.state.lookups.get(tenant)?.inIdentityOrder() ?? []).map(
    (l: Lookup) => `${l.type.replace("rdm/lookupTypes/", "")}/${l.code}`,
  );

async function runTask(h: Harness, body: unknown, tenant = "acme", caller = "acme-editor"): Promise<Task> {
  const token = await h.token(caller);
  const a = await h.call("POST", `/tasks/${tenant}`, { token, body });
  expect(a.status).toBe(202);
  const task = a.body as Task;
  await h.until(async () => {
    const s = await h.call("GET", `/tasks/${tenant}/${task.id}`, { token });
    return (s.body as Task).status === "COMPLETED";
  });
  return task;
}

describe("delete task", () => {
  it("answers 202 with the task object and completes asynchronously", async () => {
    const h = setup();
    const token = await h.token("acme-editor");
    const a = await h.call("POST", "/tasks/acme", {
      token,
      body: { type: "delete", parameters: { type: "rdm/lookupTypes/Gender" } },
    });
    expect(a.status).toBe(202);
    expect(a.body).toEqual({
      id: expect.any(String),
      type: "delete",
      tenantId: "acme",
      createdBy: "acme-editor",
      createdTime: h.clock.now(),
      status: "NOT_STARTED",
      parameters: { type: "rdm/lookupTypes/Gender" },
    });
    const id = (a.body as Task).id;
    await h.until(
      async () => ((await h.call("GET", `/tasks/acme/${id}`, { token })).body as Task).status === "COMPLETED",
    );
    expect(ids(h, "acme").some((i) => i.startsWith("Gender/"))).toBe(false);
  });

  it("does not run before taskDelayMs has passed", async () => {
    const h = setup({ taskDelayMs: 60_000 });
    const token = await h.token("acme-editor");
    const before = ids(h, "acme");
    const a = await h.call("POST", "/tasks/acme", { token, body: { type: "delete" } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const s = await h.call("GET", `/tasks/acme/${(a.body as Task).id}`, { token });
    expect(s.body).toMatchObject({ status: "NOT_STARTED" });
    expect(ids(h, "acme")).toEqual(before);
  });

  it.each([
    ["no parameters: every lookup of the tenant", { type: "delete" }, () => false],
    ["parameters null: every lookup", { type: "delete", parameters: null }, () => false],
    [
      "parameters.type: that type only",
      { type: "delete", parameters: { type: "rdm/lookupTypes/Currency" } },
      (id: string) => !id.startsWith("Currency/"),
    ],
    [
      "parameters.uris: exactly the listed lookups (unknown ones ignored)",
      {
        type: "delete",
        parameters: { uris: ["acme/Country/DE", "acme/Currency/EUR", "acme/Country/NO-SUCH"] },
      },
      (id: string) => !["Country/DE", "Currency/EUR"].includes(id),
    ],
    [
      "parameters.type and uris: only lookups matching both",
      {
        type: "delete",
        parameters: { type: "rdm/lookupTypes/Country", uris: ["acme/Country/FR", "acme/Currency/USD"] },
      },
      (id: string) => id !== "Country/FR",
    ],
    ["empty uris: nothing", { type: "delete", parameters: { uris: [] } }, () => true],
  ])("%s", async (_name, body, keeps) => {
    const h = setup();
    const before = ids(h, "acme");
    const globex = ids(h, "globex");
    await runTask(h, body);
    expect(ids(h, "acme")).toEqual(before.filter(keeps));
    expect(ids(h, "globex")).toEqual(globex);
  });

  it.each([
    ["a type other than delete", { type: "purge" }, "type"],
    ["no type", { parameters: {} }, "type"],
    ["no body", undefined, "body"],
    ["an array body", [], "body"],
    ["parameters not an object", { type: "delete", parameters: "all" }, "parameters"],
    ["parameters.type not a string", { type: "delete", parameters: { type: 7 } }, "parameters.type"],
    [
      "parameters.uris not an array",
      { type: "delete", parameters: { uris: "acme/Country/DE" } },
      "parameters.uris",
    ],
    [
      "a URI of another tenant",
      { type: "delete", parameters: { uris: ["acme/Country/DE", "globex/Country/DE"] } },
      "parameters.uris[1]",
    ],
    ["a malformed URI", { type: "delete", parameters: { uris: ["acme/Country"] } }, "parameters.uris[0]"],
    ["a URI that is not a string", { type: "delete", parameters: { uris: [null] } }, "parameters.uris[0]"],
    [
      "more than 1000 URIs",
      { type: "delete", parameters: { uris: Array.from({ length: 1001 }, (_, i) => `acme/Country/X${i}`) } },
      "parameters.uris",
    ],
  ])("refuses %s with 400 naming the field and deletes nothing", async (_name, body, field) => {
    const h = setup();
    const before = ids(h, "acme");
    const a = await h.call("POST", "/tasks/acme", { token: await h.token("acme-admin"), body });
    expect(a.status).toBe(400);
    expect(a.body).toMatchObject({ error: "validation_error" });
    const description = (a.body as { error_description: string }).error_description;
    expect(description.startsWith(`${field}:`)).toBe(true);
    expect(description).not.toMatch(/undefined/);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(ids(h, "acme")).toEqual(before);
    expect(h.ref.state.tasks.size).toBe(0);
  });

  it("answers 404 for an unknown task and for a task of another tenant", async () => {
    const h = setup();
    const task = await runTask(h, { type: "delete", parameters: { uris: [] } });
    const unknown = await h.call("GET", "/tasks/acme/no-such-task", { token: await h.token("acme-editor") });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: "not_found" });
    const other = await h.call("GET", `/tasks/globex/${task.id}`, { token: await h.token("globex-admin") });
    expect(other.status).toBe(404);
  });
});
