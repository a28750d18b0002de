// `lckit mock` tells the truth about a refused request: the same status as `lckit serve` (400 wherever the
// contract fixes the rule), a problem+json body naming location, field, rule and value, the same error code
// as the sandbox, a body the contract's error schema accepts; the refusal (and with --verbose Prism's own
// log) reaches stderr of the CLI.
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadContract } from "../../src/contract/index.ts";
import { freePort } from "../../src/http/index.ts";
import { type MockServer, REFUSAL_STATUS, startMock } from "../../src/mock/index.ts";
import { createReference, type Reference } from "../../src/reference/index.ts";

const contract = loadContract();
const root = join(new URL(".", import.meta.url).pathname, "..", "..");

interface BadRequest {
  operationId: string;
  method: string;
  path: string;
  body?: unknown;
  /** What the refusal must name. */
  location: string;
  field: string;
  rule: string;
  value?: unknown;
}

const json = (body: unknown) => JSON.stringify(body);

// One or more bad requests per endpoint that takes input the contract constrains.
const table: BadRequest[] = [
  {
    operationId: "scanAutopilotStats",
    method: "POST",
    path: "/configuration/acme/autopilot/stats/_scan?limit=500",
    location: "query",
    field: "limit",
    rule: "maximum",
    value: "500",
  },
  {
    operationId: "scanAutopilotStats",
    method: "POST",
    path: "/configuration/acme/autopilot/stats/_scan?limit=abc",
    location: "query",
    field: "limit",
    rule: "type",
    value: "abc",
  },
  {
    operationId: "scanAutopilotStatsByType",
    method: "POST",
    path: "/configuration/acme/autopilot/stats/Country/_scan?limit=0",
    location: "query",
    field: "limit",
    rule: "minimum",
    value: "0",
  },
  {
    operationId: "listBlockedValues",
    method: "GET",
    path: "/configuration/acme/autopilot/Country/blockedValues?offset=-1",
    location: "query",
    field: "offset",
    rule: "minimum",
    value: "-1",
  },
  {
    operationId: "listBlockedValues",
    method: "GET",
    path: "/configuration/acme/autopilot/Country/blockedValues?limit=101",
    location: "query",
    field: "limit",
    rule: "maximum",
    value: "101",
  },
  {
    operationId: "putCustomer",
    method: "PUT",
    path: "/oauth/customers/cust-acme",
    body: { id: "cust-acme", tenants: "acme" },
    location: "body",
    field: "tenants",
    rule: "type",
    value: "acme",
  },
  {
    operationId: "postCustomer",
    method: "POST",
    path: "/oauth/customers/cust-acme",
    body: { multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: "five" } } },
    location: "body",
    field: "multitokenConfig.clientCredentialsMultiTokenConfig.maxActiveTokensAllowed",
    rule: "type",
    value: "five",
  },
  {
    operationId: "putClients",
    method: "PUT",
    path: "/oauth/customers/cust-acme/clients",
    body: { clients: "x" },
    location: "body",
    field: "",
    rule: "type",
    value: { clients: "x" },
  },
  {
    operationId: "createTask",
    method: "POST",
    path: "/tasks/acme",
    body: { type: "purge" },
    location: "body",
    field: "type",
    rule: "enum",
    value: "purge",
  },
  {
    operationId: "createTask",
    method: "POST",
    path: "/tasks/acme",
    body: {},
    location: "body",
    field: "",
    rule: "required",
    value: {},
  },
  {
    operationId: "scanLookups",
    method: "POST",
    path: "/lookups/acme/_scan?order=sideways",
    location: "query",
    field: "order",
    rule: "enum",
    value: "sideways",
  },
  {
    operationId: "scanLookups",
    method: "POST",
    path: "/lookups/acme/_scan?limit=abc",
    location: "query",
    field: "limit",
    rule: "type",
    value: "abc",
  },
];

let mock: MockServer;
let reference: Reference;
let token: string;

beforeAll(async () => {
  mock = await startMock({ platformPort: await freePort(), lookupDataPort: await freePort() });
  reference = createReference();
  const answer = await reference.fetch(
    new Request("http://sandbox.test/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials&client_id=acme-admin&client_secret=acme-admin-secret",
    }),
  );
  token = ((await answer.json()) as { access_token: string }).access_token;
}, 60_000);

afterAll(async () => {
  await mock?.stop();
});

function send(base: string, request: { method: string; path: string; body?: unknown }, auth = true) {
  const headers: Record<string, string> = {};
  if (auth) headers.authorization = `Bearer ${token}`;
  if (request.body !== undefined) headers["content-type"] = "application/json";
  return new Request(`${base}${request.path}`, {
    method: request.method,
    headers,
    ...(request.body !== undefined ? { body: json(request.body) } : {}),
  });
}

const mockBase = (operationId: string) =>
  contract.operation(operationId).host === "platform" ? mock.baseUrl : mock.rdmUrl;

describe("lckit mock and lckit serve refuse the same bad request alike", () => {
  it("the table covers every operation with a constrained query parameter or request body", () => {
    const constrained = contract.operations.filter(
      (operation) =>
        operation.parameters.some(
          (parameter) => parameter.in === "query" && parameter.name !== "grant_type",
        ) ||
        (operation.requestBody !== undefined && operation.operationId !== "issueToken"),
    );
    expect(new Set(table.map((row) => row.operationId))).toEqual(
      new Set(constrained.map((operation) => operation.operationId)),
    );
  });

  it.each(table.map((row) => [`${row.operationId} ${row.method} ${row.path} ${json(row.body ?? "")}`, row]))(
    "%s",
    async (_name, row) => {
      const fromMock = await fetch(send(mockBase(row.operationId), row));
      const fromServe = await reference.fetch(send("http://sandbox.test", row));
      const mockText = await fromMock.text();
      const serveBody = (await fromServe.json()) as { error: string };
      expect(fromServe.status).toBe(REFUSAL_STATUS);
      expect(fromMock.status, mockText).toBe(REFUSAL_STATUS);
      expect(fromMock.headers.get("content-type")).toBe("application/problem+json");
      const body = JSON.parse(mockText) as {
        status: number;
        error: string;
        error_description: string;
        violations: { location: string; field: string; rule: string; value?: unknown }[];
      };
      expect(body.status).toBe(REFUSAL_STATUS);
      expect(body.violations).toContainEqual(
        expect.objectContaining({
          location: row.location,
          field: row.field,
          rule: row.rule,
          ...(row.value !== undefined ? { value: row.value } : {}),
        }),
      );
      expect(body.error).toBe(serveBody.error);
      expect(body.error_description).toContain(row.rule);
      // The refusal is a response the consumer contract declares, with a body its error schema accepts.
      expect(
        contract.validateResponse(
          row.operationId,
          fromMock.status,
          fromMock.headers.get("content-type"),
          mockText,
        ),
      ).toEqual([]);
    },
  );

  it.each([
    ["createTask", "/tasks/acme"],
    ["scanLookups", "/lookups/acme/_scan"],
    ["postCustomer", "/oauth/customers/cust-acme"],
    ["scanAutopilotStats", "/configuration/acme/autopilot/stats/_scan"],
  ])(
    "%s with a body that is not JSON: 400 invalid_json from both, naming what came",
    async (operationId, path) => {
      const init = {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: "{not json",
      };
      const fromMock = await fetch(`${mockBase(operationId)}${path}`, init);
      const fromServe = await reference.fetch(new Request(`http://sandbox.test${path}`, init));
      const text = await fromMock.text();
      expect([fromMock.status, fromServe.status]).toEqual([REFUSAL_STATUS, REFUSAL_STATUS]);
      const body = JSON.parse(text) as { error: string; violations: unknown[] };
      expect(body.error).toBe(((await fromServe.json()) as { error: string }).error);
      expect(body.violations).toEqual([
        expect.objectContaining({ location: "body", rule: "json", value: "{not json" }),
      ]);
      expect(
        contract.validateResponse(operationId, fromMock.status, fromMock.headers.get("content-type"), text),
      ).toEqual([]);
    },
  );

  it("a data request without Authorization: 401 invalid_token from both, with a Bearer challenge", async () => {
    const request = { method: "GET", path: "/version" };
    const fromMock = await fetch(send(mock.rdmUrl, request, false));
    const fromServe = await reference.fetch(send("http://sandbox.test", request, false));
    expect([fromMock.status, fromServe.status]).toEqual([401, 401]);
    expect(fromMock.headers.get("www-authenticate")).toMatch(/^Bearer/);
    const body = (await fromMock.json()) as { error: string; error_description: string };
    expect(body.error).toBe(((await fromServe.json()) as { error: string }).error);
    expect(body.error_description).toMatch(/security/i);
  });

  it("a rule that is only a kit preference (lookup scan limit 500) is not the mock's to refuse", async () => {
    // The consumer contract leaves the lookup scan's bounds open; lckit serve follows the kit's preference
    // (x-kit-preference, 400 invalid_limit). docs/consumers.md explains the two layers.
    const request = { method: "POST", path: "/lookups/acme/_scan?limit=500" };
    const fromMock = await fetch(send(mock.rdmUrl, request));
    await fromMock.text();
    const fromServe = await reference.fetch(send("http://sandbox.test", request));
    expect(fromMock.status).toBe(200);
    expect(fromServe.status).toBe(400);
  });

  it("a valid request passes the refusal layer untouched", async () => {
    const answer = await fetch(send(mock.rdmUrl, { method: "GET", path: "/version" }));
    expect(answer.status).toBe(200);
    expect(answer.headers.get("sl-violations")).toBeNull();
    const text = await answer.text();
    expect(contract.validateResponse("getVersion", 200, answer.headers.get("content-type"), text)).toEqual(
      [],
    );
  });
});

describe("lckit mock on the command line", () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child?.pid !== undefined && child.exitCode === null) process.kill(child.pid, "SIGTERM");
  });

  it("prints each refusal on stderr and, with --verbose, Prism's own log lines", async () => {
    const [platformPort, lookupDataPort] = [await freePort(), await freePort()];
    child = spawn(
      process.execPath,
      [
        join(root, "bin", "lckit.mjs"),
        "mock",
        "--platform-port",
        String(platformPort),
        "--lookup-data-port",
        String(lookupDataPort),
        "--verbose",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const waitFor = (test: () => boolean, what: string) =>
      new Promise<void>((resolve, reject) => {
        const poll = setInterval(() => {
          if (test()) {
            clearInterval(poll);
            resolve();
          } else if (child?.exitCode !== null) {
            clearInterval(poll);
            reject(new Error(`lckit mock exited before ${what}; stderr:\n${stderr}`));
          }
        }, 50);
      });
    await waitFor(() => stdout.includes("lookup-data http://"), "printing its URLs");
    const refused = await fetch(
      `http://127.0.0.1:${platformPort}/configuration/acme/autopilot/stats/_scan?limit=500`,
      { method: "POST", headers: { authorization: "Bearer anything" } },
    );
    expect(refused.status).toBe(400);
    await waitFor(
      () => /refused \[platform\] 400 POST .*limit: maximum \(got "500"\)/.test(stderr),
      "the refusal line",
    );
    expect(stderr).toMatch(/prism \[platform\] /);
    const pid = child.pid as number;
    const exited = new Promise<number | null>((resolve) => child?.once("exit", (code) => resolve(code)));
    process.kill(pid, "SIGTERM");
    expect(await exited).toBe(0);
  }, 90_000);
});
