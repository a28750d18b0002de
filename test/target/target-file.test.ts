import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import {
  isLoopback,
  loadTargetFile,
  parseTargetFile,
  TargetFileError,
} from "../../src/target/target-file.ts";

const env = { ACME_VIEWER_ID: "viewer-client", ACME_VIEWER_SECRET: "viewer-secret-value", EMPTY: "" };

const valid = {
  name: "staging",
  baseUrl: "https://auth.example.com/",
  rdmUrl: "https://rdm.example.com",
  tenant: "acme",
  otherTenant: "globex",
  customerId: "cust-acme",
  credentials: { viewer: { clientIdEnv: "ACME_VIEWER_ID", clientSecretEnv: "ACME_VIEWER_SECRET" } },
  allow: ["write"],
  profile: { quotaRefusalStatus: 429 },
};

function problem(doc: unknown, file = "target.yaml", given = env): string {
  try {
    parseTargetFile(typeof doc === "string" ? doc : stringify(doc), file, given);
  } catch (error) {
    if (error instanceof TargetFileError) return error.message;
    throw error;
  }
  throw new Error("expected a TargetFileError");
}

describe("target file", () => {
  it("reads a valid file into a target with secrets from the environment", () => {
    const config = parseTargetFile(stringify(valid), "target.yaml", env);
    expect(config.target).toMatchObject({
      name: "staging",
      baseUrl: "https://auth.example.com",
      rdmUrl: "https://rdm.example.com",
      tenant: "acme",
      otherTenant: "globex",
      quotaCustomerId: "cust-acme",
      loopback: false,
      credentials: { viewer: { clientId: "viewer-client", clientSecret: "viewer-secret-value" } },
      profile: { quotaRefusalStatus: 429, scrollIdEncoding: "auto", clampsLimit: "auto" },
    });
    expect(config).toMatchObject({ allow: ["write"], rateLimit: 10 });
  });

  it("reads JSON too, and a loopback target is unlimited by default", () => {
    const json = JSON.stringify({ name: "local", baseUrl: "http://127.0.0.1:8080", tenant: "acme" });
    const config = parseTargetFile(json, "target.json", {});
    expect(config.target).toMatchObject({ rdmUrl: "http://127.0.0.1:8080", loopback: true, credentials: {} });
    expect(config.rateLimit).toBe(0);
  });

  it.each<[string, { doc: unknown; want: RegExp[] }]>([
    [
      "a literal secret",
      {
        doc: { ...valid, credentials: { viewer: { clientId: "x", clientSecret: "hunter2" } } },
        want: [
          /credentials\.viewer\.clientSecret: literal credentials are not allowed/,
          /clientSecretEnv: ACME_VIEWER_SECRET/,
        ],
      },
    ],
    [
      "a secret in an *Env key",
      {
        doc: {
          ...valid,
          credentials: { viewer: { clientIdEnv: "ACME_VIEWER_ID", clientSecretEnv: "s3cr3t-Value!" } },
        },
        want: [/credentials\.viewer\.clientSecretEnv: must name an environment variable/, /rotate it/],
      },
    ],
    [
      "a missing environment variable",
      {
        doc: {
          ...valid,
          credentials: { viewer: { clientIdEnv: "ACME_VIEWER_ID", clientSecretEnv: "NOT_SET_ANYWHERE" } },
        },
        want: [
          /credentials\.viewer\.clientSecretEnv: environment variable NOT_SET_ANYWHERE is not set; export it/,
        ],
      },
    ],
    [
      "an empty environment variable",
      {
        doc: {
          ...valid,
          credentials: { viewer: { clientIdEnv: "EMPTY", clientSecretEnv: "ACME_VIEWER_SECRET" } },
        },
        want: [/environment variable EMPTY is empty/],
      },
    ],
    [
      "a bad URL",
      {
        doc: { ...valid, baseUrl: "auth.example.com" },
        want: [/baseUrl: "auth\.example\.com" is not an absolute URL/],
      },
    ],
    [
      "a non-http URL",
      {
        doc: { ...valid, rdmUrl: "ftp://rdm.example.com" },
        want: [/rdmUrl: must use http or https, got ftp/],
      },
    ],
    [
      "credentials in a URL",
      {
        doc: { ...valid, baseUrl: "https://u:p@auth.example.com" },
        want: [/baseUrl: must not carry credentials/],
      },
    ],
    [
      "an unknown key",
      { doc: { ...valid, tenantId: "acme" }, want: [/tenantId: unknown key; did you mean "tenant"\?/] },
    ],
    [
      "an unknown role",
      {
        doc: { ...valid, credentials: { reader: { clientIdEnv: "A", clientSecretEnv: "B" } } },
        want: [/credentials\.reader: unknown key.*Allowed here: admin, editor, viewer/],
      },
    ],
    [
      "a missing required key",
      { doc: { name: "x", baseUrl: "https://a.example.com" }, want: [/tenant: is required/] },
    ],
    [
      "an unknown safety class",
      {
        doc: { ...valid, allow: ["everything"] },
        want: [/allow\.0: must be one of read, write, destructive, quota/],
      },
    ],
    [
      "a confirmTenant of another tenant",
      {
        doc: { ...valid, confirmTenant: "globex" },
        want: [/confirmTenant: is "globex" but tenant is "acme"/],
      },
    ],
    [
      "a bad profile choice",
      {
        doc: { ...valid, profile: { clampsLimit: "sometimes" } },
        want: [/profile\.clampsLimit: has an unsupported value/],
      },
    ],
    ["invalid YAML", { doc: "name: [unclosed\n", want: [/target\.yaml: is not valid YAML/] }],
    ["a list instead of a mapping", { doc: "- a\n- b\n", want: [/expected a mapping/] }],
    [
      "a timeoutMs above what Node can wait (it would become 1 ms)",
      {
        doc: { ...valid, timeoutMs: 3_000_000_000 },
        want: [/timeoutMs: must be at most 2147483647 ms \(about 24\.8 days/],
      },
    ],
    [
      "a checkTimeoutMs above what Node can wait",
      { doc: { ...valid, checkTimeoutMs: 2 ** 31 }, want: [/checkTimeoutMs: must be at most 2147483647 ms/] },
    ],
    [
      "a maxResponseBytes too small to hold an answer",
      { doc: { ...valid, maxResponseBytes: 10 }, want: [/maxResponseBytes: must be >= 1024/] },
    ],
    [
      "a deadline without a unit",
      { doc: { ...valid, deadline: "30" }, want: [/deadline: "30" is not a duration .* e\.g\. 30m/] },
    ],
    [
      "a self-referencing YAML alias",
      {
        doc: "name: &loop\n  again: *loop\nbaseUrl: https://a.example.com\ntenant: acme\n",
        want: [/name\.again: refers to a mapping or list that contains it .* write the value out/],
      },
    ],
    [
      "an alias without its anchor",
      {
        doc: "name: *nowhere\nbaseUrl: https://a.example.com\ntenant: acme\n",
        want: [/is not a usable target file: .*nowhere/],
      },
    ],
  ])("rejects %s, naming the file, the path and the fix", (_name, { doc, want }) => {
    const message = problem(doc);
    expect(message).toMatch(/^target\.yaml/);
    for (const w of want) expect(message).toMatch(w);
  });

  it("reads the run's bounds and the disposable mark; loopback alone marks nothing disposable", () => {
    const config = parseTargetFile(
      stringify({
        ...valid,
        deadline: "45m",
        unresponsiveAfter: 5,
        disposable: true,
        maxResponseBytes: 65_536,
      }),
      "target.yaml",
      env,
    );
    expect(config).toMatchObject({ deadlineMs: 45 * 60_000, unresponsiveAfter: 5, maxResponseBytes: 65_536 });
    expect(config.target.disposable).toBe(true);
    const local = parseTargetFile(
      JSON.stringify({ name: "local", baseUrl: "http://127.0.0.1:8080", tenant: "acme" }),
      "t.json",
      {},
    );
    expect(local.target).toMatchObject({ loopback: true, disposable: false });
  });

  describe("a second quota client (credentials.quotaAlt, quotaAltCustomerId)", () => {
    const quotaEnv = {
      ...env,
      QUOTA_ID: "quota-one",
      QUOTA_SECRET: "quota-one-secret",
      LAB_ID: "quota-two",
      LAB_SECRET: "quota-two-secret",
    };
    const withQuota = {
      ...valid,
      quotaCustomerId: "cust-acme",
      credentials: {
        ...valid.credentials,
        quota: { clientIdEnv: "QUOTA_ID", clientSecretEnv: "QUOTA_SECRET" },
      },
    };
    const both = {
      ...withQuota,
      quotaAltCustomerId: "cust-lab",
      credentials: {
        ...withQuota.credentials,
        quotaAlt: { clientIdEnv: "LAB_ID", clientSecretEnv: "LAB_SECRET" },
      },
    };

    it("reads both into Target.quotaAlt; without them the target has none", () => {
      expect(parseTargetFile(stringify(both), "t.yaml", quotaEnv).target.quotaAlt).toEqual({
        customerId: "cust-lab",
        credential: { clientId: "quota-two", clientSecret: "quota-two-secret" },
      });
      expect(parseTargetFile(stringify(withQuota), "t.yaml", quotaEnv).target).not.toHaveProperty("quotaAlt");
    });

    it.each<[string, unknown, RegExp]>([
      [
        "the client without its customer",
        { ...both, quotaAltCustomerId: undefined },
        /quotaAltCustomerId: is required when credentials\.quotaAlt is given/,
      ],
      [
        "the customer without its client",
        { ...withQuota, quotaAltCustomerId: "cust-lab" },
        /credentials\.quotaAlt: is required when quotaAltCustomerId is given/,
      ],
      [
        "the first quota client's customer",
        { ...both, quotaAltCustomerId: "cust-acme" },
        /quotaAltCustomerId: is "cust-acme", the customer of the quota client; the second quota client needs a customer of its own/,
      ],
      [
        "no first quota client",
        { ...both, credentials: { ...valid.credentials, quotaAlt: both.credentials.quotaAlt } },
        /credentials\.quotaAlt: is a second quota client, but credentials\.quota \(the first\) is missing/,
      ],
      [
        "the first quota client again",
        {
          ...both,
          credentials: {
            ...both.credentials,
            quotaAlt: { clientIdEnv: "QUOTA_ID", clientSecretEnv: "LAB_SECRET" },
          },
        },
        /credentials\.quotaAlt\.clientIdEnv: names the same client as credentials\.quota/,
      ],
      [
        "a literal secret",
        { ...both, credentials: { ...both.credentials, quotaAlt: { clientSecret: "x" } } },
        /literal credentials are not allowed/,
      ],
    ])("refuses %s, saying what to do", (_, doc, want) => {
      expect(problem(doc, "target.yaml", quotaEnv)).toMatch(want);
    });
  });

  it("reads requestBudget and certify; without them a run has no budget and is not certified", () => {
    const config = parseTargetFile(
      stringify({ ...valid, requestBudget: 5000, certify: true }),
      "target.yaml",
      env,
    );
    expect(config).toMatchObject({ requestBudget: 5000, certify: true });
    const plain = parseTargetFile(stringify(valid), "target.yaml", env);
    expect(plain.requestBudget).toBeUndefined();
    expect(plain.certify).toBeUndefined();
    expect(parseTargetFile(stringify({ ...valid, certify: false }), "t.yaml", env).certify).toBeUndefined();
  });

  it.each([
    ["a zero budget", { requestBudget: 0 }, /requestBudget/],
    ["a fractional budget", { requestBudget: 2.5 }, /requestBudget/],
    ["a budget as text", { requestBudget: "1000" }, /requestBudget/],
    ["certify as text", { certify: "yes" }, /certify/],
  ])("refuses %s, naming the key", (_, extra, want) => {
    expect(problem({ ...valid, ...extra })).toMatch(want);
  });

  it("reports every problem at once", () => {
    const many = problem({ ...valid, baseUrl: "nope", rdmUrl: "also nope" });
    expect(many).toMatch(/has 2 problems:\n {2}- baseUrl: .*\n {2}- rdmUrl: /);
  });

  describe("loadTargetFile", () => {
    const dir = mkdtempSync(join(tmpdir(), "lckit-target-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("names a missing file and points at the example", () => {
      const file = join(dir, "missing.yaml");
      expect(() => loadTargetFile(file, env)).toThrow(
        /missing\.yaml: no such file.*examples\/target\.example\.yaml/,
      );
    });

    it("loads a file from disk", () => {
      const file = join(dir, "t.yaml");
      writeFileSync(file, stringify(valid));
      expect(loadTargetFile(file, env).file).toBe(file);
    });
  });

  it.each([
    ["http://localhost:8080", true],
    ["http://127.0.0.1", true],
    ["http://[::1]:3000", true],
    ["https://lookup.example.com", false],
    ["http://10.0.0.1", false],
  ])("isLoopback(%s) is %s", (url, want) => {
    expect(isLoopback(url)).toBe(want);
  });
});

describe("examples/target.example.yaml", () => {
  it("is a valid target file once its environment variables are set", () => {
    const file = new URL("../../examples/target.example.yaml", import.meta.url).pathname;
    const names = [...readFileSync(file, "utf8").matchAll(/Env: ([A-Z_]+)/g)].map((m) => m[1] ?? "");
    const config = loadTargetFile(file, Object.fromEntries(names.map((n) => [n, `value-of-${n}`])));
    expect(Object.keys(config.target.credentials)).toHaveLength(6);
    expect(config.target.loopback).toBe(false);
  });
});
