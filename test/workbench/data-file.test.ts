// A team's own sandbox data (createReference({ data }), lckit serve --data): loaded when valid, refused
// before anything starts when not, with file, JSON path, problem and a correct entry named.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml, stringify } from "yaml";
import { serve } from "../../src/cli/commands/serve.ts";
import { UsageError } from "../../src/cli/io.ts";
import { packagePath } from "../../src/package-root.ts";
import {
  createReference,
  exampleEntry,
  FixtureError,
  manualClock,
  type ReferenceData,
  referenceData,
} from "../../src/reference/index.ts";
import { captureIo } from "../cli/capture-io.ts";

const EXAMPLE = packagePath("examples", "sandbox-data.yaml");
const { readFileSync } = await import("node:fs");
const exampleDocument = () => parseYaml(readFileSync(EXAMPLE, "utf8")) as ReferenceData;

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;
}

async function token(fetcher: (r: Request) => Promise<Response>, id: string, secret: string) {
  return fetcher(
    new Request("http://sandbox/oauth/token", {
      method: "POST",
      headers: { authorization: basic(id, secret), "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials",
    }),
  );
}

describe("the example data file", () => {
  it("loads and serves its own tenants, clients, quota and lookups (and nothing of the fixtures)", async () => {
    const ref = createReference({ data: EXAMPLE, clock: manualClock() });
    expect([...ref.state.tenants.keys()]).toEqual(["shop"]);
    expect(ref.state.clients.has("acme-admin")).toBe(false);
    expect((await token(ref.fetch, "acme-admin", "acme-admin-secret")).status).toBe(401);
    // Multi-token support with maxActiveTokensAllowed 5: five tokens, the sixth refused.
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await token(ref.fetch, "order-service", "order-service-secret")).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    ref.clock.advance(900_000);
    const fresh = await token(ref.fetch, "order-service", "order-service-secret");
    expect(fresh.status).toBe(200);
    const { access_token } = (await fresh.json()) as { access_token: string };
    const scan = await ref.fetch(
      new Request("http://sandbox/lookups/shop/_scan?sort=code", {
        method: "POST",
        headers: { authorization: `Bearer ${access_token}` },
      }),
    );
    const page = (await scan.json()) as { values: { code: string }[] };
    expect(page.values.map((v) => v.code)).toEqual(["CARD", "DE", "FR", "NL"]);
  });

  it("is taken as an object too, and the caller's object is left unfrozen", () => {
    const document = exampleDocument();
    const ref = createReference({ data: document });
    expect(ref.state.clients.get("nightly-sync")?.client.accessTokenValidity).toBe(300);
    expect(Object.isFrozen(document.tenants)).toBe(false);
  });

  it("takes two statistics of one unmapped value created at different times (the document names no key), refuses two created at once", () => {
    const document = exampleDocument();
    const first = (document.statistics ?? [])[0] as NonNullable<ReferenceData["statistics"]>[number];
    document.statistics = [...(document.statistics ?? []), { ...first, createdAt: first.createdAt + 1000 }];
    const ref = createReference({ data: document });
    const held = ref.state.statistics.get(first.tenantId) ?? [];
    expect(
      held.filter((s) => s.unmappedValue === first.unmappedValue && s.source === first.source),
    ).toHaveLength(2);
    document.statistics.push({ ...first });
    expect(() => createReference({ data: document })).toThrow(
      /duplicate statistic \(lookupType, source, unmappedValue, createdAt\) = .*give the second record of one unmapped value another createdAt/,
    );
  });

  it("every example entry the errors offer is itself valid", () => {
    const world = {
      tenants: [JSON.parse(exampleEntry("tenants") ?? "null")],
      customers: [JSON.parse(exampleEntry("customers") ?? "null")],
      clients: [JSON.parse(exampleEntry("clients") ?? "null")],
    };
    world.customers[0].tenants = [world.tenants[0].id];
    expect(() => referenceData(world)).not.toThrow();
  });
});

type Mutation = (d: Record<string, unknown> & ReferenceData) => void;

describe("a broken data document is refused, naming path, problem and a correct entry", () => {
  const cases: [string, { mutate: Mutation; path: string; want: RegExp; example?: boolean }][] = [
    [
      "a validity that is not an integer",
      {
        mutate: (d) => Object.assign(d.clients[1] as object, { accessTokenValidity: "5m" }),
        path: "/clients/1/accessTokenValidity",
        want: /must be integer/,
        example: true,
      },
    ],
    [
      "a quota above the platform's 200",
      {
        mutate: (d) => {
          const config = d.customers[0]?.multitokenConfig?.clientCredentialsMultiTokenConfig;
          if (config) config.maxActiveTokensAllowed = 500;
        },
        path: "/customers/0/multitokenConfig/clientCredentialsMultiTokenConfig/maxActiveTokensAllowed",
        want: /must be <= 200/,
        example: true,
      },
    ],
    [
      "a lookup type that is not a URI",
      {
        mutate: (d) => Object.assign(d.lookups?.[0] as object, { type: "ShippingCountry" }),
        path: "/lookups/0/type",
        want: /must match pattern/,
        example: true,
      },
    ],
    [
      "a client of an unknown customer",
      {
        mutate: (d) => Object.assign(d.clients[0] as object, { customerId: "cust-nobody" }),
        path: "/clients/0/customerId",
        want: /unknown customer "cust-nobody"; known: cust-shop/,
      },
    ],
    [
      "a lookup of an undeclared tenant",
      {
        mutate: (d) => Object.assign(d.lookups?.[2] as object, { tenantId: "store" }),
        path: "/lookups/2/tenantId",
        want: /unknown tenant "store"; declare it under \/tenants/,
      },
    ],
    [
      "multitokenConfig on an rdbms tenant (the document's validation error)",
      {
        mutate: (d) => Object.assign(d.tenants[0] as object, { authMigrationMode: "rdbms" }),
        path: "/customers/0/multitokenConfig",
        want: /auth.migration.mode=rdbms/,
      },
    ],
    [
      "a duplicate client",
      {
        mutate: (d) => d.clients.push({ ...(d.clients[0] as ReferenceData["clients"][number]) }),
        path: "/clients/2/clientId",
        want: /duplicate client "order-service"/,
      },
    ],
    [
      "no clients",
      {
        mutate: (d) => {
          delete (d as Partial<ReferenceData>).clients;
        },
        path: "/clients",
        want: /missing; a data document needs tenants, customers and clients/,
        example: true,
      },
    ],
    [
      "a misspelt key inside a client (accessTokenValidty)",
      {
        mutate: (d) => Object.assign(d.clients[0] as object, { accessTokenValidty: 5 }),
        path: "/clients/0/accessTokenValidty",
        want: /unknown key; did you mean "accessTokenValidity"\? Allowed here: customerId, clientId/,
      },
    ],
    [
      "a misspelt multitokenConfig",
      {
        mutate: (d) => {
          const customer = d.customers[0] as unknown as Record<string, unknown>;
          customer.multiTokenConfig = customer.multitokenConfig;
          delete customer.multitokenConfig;
        },
        path: "/customers/0/multiTokenConfig",
        want: /unknown key; did you mean "multitokenConfig"\?/,
      },
    ],
    [
      "a misspelt quota inside multitokenConfig",
      {
        mutate: (d) => {
          const config = d.customers[0]?.multitokenConfig?.clientCredentialsMultiTokenConfig as Record<
            string,
            unknown
          >;
          config.maxActiveTokenAllowed = config.maxActiveTokensAllowed;
          delete config.maxActiveTokensAllowed;
        },
        path: "/customers/0/multitokenConfig/clientCredentialsMultiTokenConfig/maxActiveTokenAllowed",
        want: /unknown key; did you mean "maxActiveTokensAllowed"\? Allowed here: maxActiveTokensAllowed$/,
      },
    ],
    [
      "an unknown top-level key",
      {
        mutate: (d) => Object.assign(d, { blocked_values: [] }),
        path: "/blocked_values",
        want: /unknown key; a data document holds tenants, customers, clients, lookups, statistics, blockedValues/,
      },
    ],
  ];

  it.each(cases)("%s", (_name, { mutate, path, want, example }) => {
    const dir = mkdtempSync(join(tmpdir(), "lckit-data-"));
    const file = join(dir, "team.yaml");
    const document = exampleDocument() as Record<string, unknown> & ReferenceData;
    mutate(document);
    writeFileSync(file, stringify(document));
    let error: unknown;
    try {
      createReference({ data: file });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(FixtureError);
    const message = (error as Error).message;
    expect(message.startsWith(`${file}: ${path}: `), message).toBe(true);
    expect(message).toMatch(want);
    if (example) expect(message).toMatch(/a correct entry (of \w+ )?looks like \{"/);
  });

  it("an unreadable or unparsable file names the file and the fix", () => {
    expect(() => createReference({ data: "/nonexistent/team.yaml" })).toThrow(
      /\/nonexistent\/team.yaml: cannot be read \(ENOENT\); give the path of a YAML or JSON data file/,
    );
    const dir = mkdtempSync(join(tmpdir(), "lckit-data-"));
    writeFileSync(join(dir, "team.json"), "{ tenants: ");
    expect(() => createReference({ data: join(dir, "team.json") })).toThrow(/team.json: cannot be parsed/);
  });
});

describe("lckit serve --data", () => {
  it("refuses a broken file as a usage error (exit 2) and starts nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lckit-data-"));
    const file = join(dir, "team.yaml");
    writeFileSync(file, stringify({ ...exampleDocument(), clients: [{ clientId: "x" }] }));
    const io = captureIo();
    const error = await serve(
      { port: 0, host: "127.0.0.1", tenant: "acme", seed: 1, faults: [], variants: [], data: file },
      io,
      new Promise(() => {}),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(
      /^--data .*team.yaml: \/clients\/0: must have required property 'customerId'.*nothing was started$/,
    );
    expect(io.stderr()).toBe("");
  });

  it("serves the file's world and lists its clients without their secrets", async () => {
    const io = captureIo();
    let stop: (value?: unknown) => void = () => {};
    const stopped = new Promise((resolve) => {
      stop = resolve;
    });
    const done = serve(
      { port: 0, host: "127.0.0.1", tenant: "acme", seed: 1, faults: [], variants: [], data: EXAMPLE },
      io,
      stopped,
    );
    for (let i = 0; i < 200 && !io.stderr().includes("Stop with"); i++)
      await new Promise((r) => setTimeout(r, 10));
    const url = /base_url (\S+)/.exec(io.stderr())?.[1] ?? "";
    const answer = await token(
      async (r) => fetch(r.url.replace("http://sandbox", url), r),
      "nightly-sync",
      "nightly-sync-secret",
    );
    expect(answer.status).toBe(200);
    expect(io.stderr()).toMatch(/nightly-sync\s+ROLE_RDM_EDIT \(customer cust-shop\)/);
    expect(io.stderr()).not.toContain("nightly-sync-secret");
    stop();
    expect(await done).toBe(0);
  });
});
