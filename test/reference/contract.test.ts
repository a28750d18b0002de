// A representative request per operation of the OpenAPI contract, success and refusals, each answer
// validated by src/contract (the harness also validates every answer of every other test file).
import { describe, expect, it } from "vitest";
import { loadContract } from "../../src/contract/index.ts";
import type { Task } from "../../src/reference/index.ts";
import { type Answer, basic, type Harness, setup } from "./harness.ts";

type Case = [
  operationId: string,
  name: string,
  run: (h: Harness) => Promise<{ method: string; path: string; a: Answer }>,
];

const send =
  (method: string, path: string, caller?: string, body?: unknown, headers?: Record<string, string>) =>
  async (h: Harness) => ({
    method,
    path,
    a: await h.call(method, path, { token: caller ? await h.token(caller) : undefined, body, headers }),
  });

const CASES: Case[] = [
  [
    "issueToken",
    "200",
    async (h) => ({ method: "POST", path: "/oauth/token", a: await h.requestToken("acme-viewer") }),
  ],
  [
    "issueToken",
    "401",
    async (h) => ({ method: "POST", path: "/oauth/token", a: await h.requestToken("acme-viewer", "wrong") }),
  ],
  [
    "issueToken",
    "400",
    send("POST", "/oauth/token", undefined, "grant_type=password", {
      authorization: basic("acme-viewer"),
      "content-type": "application/x-www-form-urlencoded",
    }),
  ],
  [
    "issueToken",
    "429",
    async (h) => {
      await h.call("POST", "/oauth/customers/cust-acme", {
        token: await h.token("acme-admin"),
        body: { multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: 1 } } },
      });
      await h.requestToken("acme-quota");
      return { method: "POST", path: "/oauth/token", a: await h.requestToken("acme-quota") };
    },
  ],
  [
    "issueToken",
    "413",
    send("POST", "/oauth/token", undefined, "x".repeat(1024 * 1024 + 1), {
      "content-type": "application/x-www-form-urlencoded",
    }),
  ],
  [
    "putCustomer",
    "200",
    send("PUT", "/oauth/customers/cust-acme", "acme-admin", {
      id: "cust-acme",
      tenants: ["acme"],
      description: "d",
    }),
  ],
  [
    "putCustomer",
    "400",
    send("PUT", "/oauth/customers/cust-legacy", "legacy-admin", {
      tenants: ["legacy"],
      multitokenConfig: {},
    }),
  ],
  ["putCustomer", "401", send("PUT", "/oauth/customers/cust-acme", undefined, {})],
  ["putCustomer", "403", send("PUT", "/oauth/customers/cust-acme", "acme-viewer", {})],
  [
    "postCustomer",
    "200",
    send("POST", "/oauth/customers/cust-acme", "acme-admin", {
      multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: 10 } },
    }),
  ],
  [
    "postCustomer",
    "400",
    send("POST", "/oauth/customers/cust-acme", "acme-admin", {
      multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: 201 } },
    }),
  ],
  [
    "putClients",
    "200",
    send("PUT", "/oauth/customers/cust-acme/clients", "acme-admin", [
      { clientId: "acme-viewer", accessTokenValidity: 60 },
    ]),
  ],
  [
    "putClients",
    "400",
    send("PUT", "/oauth/customers/cust-acme/clients", "acme-admin", [
      { clientId: "acme-viewer", accessTokenValidity: -1 },
    ]),
  ],
  ["putClients", "404", send("PUT", "/oauth/customers/nobody/clients", "acme-admin", [])],
  [
    "scanAutopilotStats",
    "200",
    send("POST", "/configuration/acme/autopilot/stats/_scan?limit=100", "acme-viewer"),
  ],
  [
    "scanAutopilotStats",
    "400",
    send("POST", "/configuration/acme/autopilot/stats/_scan?limit=500", "acme-viewer"),
  ],
  ["scanAutopilotStats", "403", send("POST", "/configuration/globex/autopilot/stats/_scan", "acme-viewer")],
  [
    "scanAutopilotStatsByType",
    "200",
    send("POST", "/configuration/acme/autopilot/stats/Country/_scan?limit=100", "acme-viewer"),
  ],
  [
    "scanAutopilotStatsByType",
    "400",
    send("POST", "/configuration/acme/autopilot/stats/Country/_scan", "acme-viewer", { scrollId: "gone" }),
  ],
  [
    "listBlockedValues",
    "200",
    send("GET", "/configuration/acme/autopilot/Country/blockedValues?offset=20&limit=100", "acme-viewer"),
  ],
  [
    "listBlockedValues",
    "400",
    send("GET", "/configuration/acme/autopilot/Country/blockedValues?limit=0", "acme-viewer"),
  ],
  ["listBlockedValues", "401", send("GET", "/configuration/acme/autopilot/Country/blockedValues")],
  ["getHealthcheck", "200", send("GET", "/healthcheck", "acme-viewer")],
  ["getHealthcheck", "401", send("GET", "/healthcheck")],
  [
    "getHealthcheck",
    "401 expired",
    async (h) => {
      const token = await h.token("acme-viewer");
      h.clock.advance(3_600_000);
      return { method: "GET", path: "/healthcheck", a: await h.call("GET", "/healthcheck", { token }) };
    },
  ],
  ["getStatus", "200", send("GET", "/status", "acme-editor")],
  ["getVersion", "200", send("GET", "/version", "acme-admin")],
  [
    "createTask",
    "202",
    send("POST", "/tasks/acme", "acme-editor", {
      type: "delete",
      parameters: { type: "rdm/lookupTypes/Gender" },
    }),
  ],
  [
    "createTask",
    "400",
    send("POST", "/tasks/acme", "acme-editor", {
      type: "delete",
      parameters: { uris: ["globex/Country/DE"] },
    }),
  ],
  ["createTask", "403", send("POST", "/tasks/acme", "acme-viewer", { type: "delete" })],
  [
    "createTask",
    "413",
    send("POST", "/tasks/acme", "acme-editor", `{"type":"delete","x":"${"y".repeat(1024 * 1024)}"}`, {
      "content-type": "application/json",
    }),
  ],
  [
    "getTask",
    "200",
    async (h) => {
      const token = await h.token("acme-editor");
      const task = (
        await h.call("POST", "/tasks/acme", {
          token,
          body: { type: "delete", parameters: { uris: ["acme/Country/DE"] } },
        })
      ).body as Task;
      await new Promise((resolve) => setTimeout(resolve, 5));
      const path = `/tasks/acme/${task.id}`;
      return { method: "GET", path, a: await h.call("GET", path, { token }) };
    },
  ],
  ["getTask", "404", send("GET", "/tasks/acme/unknown", "acme-editor")],
  ["scanLookups", "200", send("POST", "/lookups/acme/_scan?limit=100&sort=code&order=desc", "acme-viewer")],
  [
    "scanLookups",
    "200 last page",
    send("POST", `/lookups/acme/_scan?filter=${encodeURIComponent("equals(type,'Gender')")}`, "acme-viewer"),
  ],
  [
    "scanLookups",
    "400 filter",
    send("POST", `/lookups/acme/_scan?filter=${encodeURIComponent("fullText(code,'x')")}`, "acme-viewer"),
  ],
  [
    "scanLookups",
    "400 scroll",
    send("POST", "/lookups/acme/_scan", "acme-viewer", "unknown-id", { "content-type": "text/plain" }),
  ],
  ["scanLookups", "403", send("POST", "/lookups/globex/_scan", "acme-viewer")],
];

describe("answers against the OpenAPI contract", () => {
  const contract = loadContract();

  it("covers every operation of the contract", () => {
    expect(new Set(CASES.map(([id]) => id))).toEqual(new Set(contract.operations.map((o) => o.operationId)));
  });

  it.each(CASES)("%s %s", async (operationId, name, run) => {
    const { method, path, a } = await run(setup());
    expect(String(a.status)).toBe(name.split(" ")[0]);
    const match =
      contract.findOperation("platform", method, path) ?? contract.findOperation("lookup-data", method, path);
    expect(match?.operation.operationId).toBe(operationId);
    expect(contract.validateResponse(operationId, a.status, a.headers.get("content-type"), a.text)).toEqual(
      [],
    );
  });
});
