// The fixture world of docs/assumptions.md, and fixture validation that names file, path and problem.
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { kitFixtures } from "../../src/generated/kit-fixtures.ts";
import {
  fixtureFiles,
  fixturesDigest,
  loadFixtures,
  validateFixtures,
} from "../../src/reference/fixtures.ts";
import { createReference, DEFAULT_FIXTURES_DIR, FixtureError } from "../../src/reference/index.ts";
import { SECRETS, setup } from "./harness.ts";

describe("fixture world", () => {
  const h = setup();
  const { state } = h.ref;

  it.each([
    ["acme", "cassandra", "cust-acme"],
    ["globex", "cassandra", "cust-globex"],
    ["legacy", "rdbms", "cust-legacy"],
  ])("tenant %s uses %s and belongs to %s", (tenant, mode, customer) => {
    expect(state.tenants.get(tenant)?.authMigrationMode).toBe(mode);
    expect(state.customers.get(customer)?.tenants).toEqual([tenant]);
    expect(state.customers.get(customer)).not.toHaveProperty("multitokenConfig");
  });

  it.each([
    ["acme-admin", "cust-acme", "ROLE_ADMIN_TENANT_acme"],
    ["acme-editor", "cust-acme", "ROLE_RDM_EDIT"],
    ["acme-viewer", "cust-acme", "ROLE_RDM"],
    ["acme-quota", "cust-acme", "ROLE_RDM"],
    ["globex-admin", "cust-globex", "ROLE_ADMIN_TENANT_globex"],
    ["globex-viewer", "cust-globex", "ROLE_RDM"],
    ["legacy-admin", "cust-legacy", "ROLE_ADMIN_TENANT_legacy"],
  ])("client %s of %s has %s and gets a token with its fixture secret", async (clientId, customer, role) => {
    const stored = state.clients.get(clientId);
    expect(stored?.customerId).toBe(customer);
    expect(stored?.client).toMatchObject({
      clientSecret: SECRETS[clientId],
      authorities: [role],
      authorizedGrantTypes: ["client_credentials"],
      accessTokenValidity: 3600,
    });
    expect((await h.requestToken(clientId)).status).toBe(200);
  });

  it("holds at least 250 acme lookups over Country, Currency, Gender and 50 globex lookups", () => {
    const types = (tenant: string) =>
      new Set(
        state.lookups
          .get(tenant)
          ?.inIdentityOrder()
          .map((l) => l.type),
      );
    expect(state.lookups.get("acme")?.size).toBeGreaterThanOrEqual(250);
    expect(state.lookups.get("globex")?.size).toBeGreaterThanOrEqual(50);
    expect(types("acme")).toEqual(
      new Set(["rdm/lookupTypes/Country", "rdm/lookupTypes/Currency", "rdm/lookupTypes/Gender"]),
    );
  });

  it("holds statistics in both tenants with TRACKING records, absent optional fields and dcrIds", () => {
    for (const tenant of ["acme", "globex"]) {
      const stats = state.statistics.get(tenant) ?? [];
      expect(stats.length).toBeGreaterThan(0);
      expect(stats.some((s) => s.status === "TRACKING")).toBe(true);
      expect(stats.some((s) => s.candidateLookupCode === undefined && s.mappedAt === undefined)).toBe(true);
      expect(stats.some((s) => s.dcrId !== undefined)).toBe(true);
      expect(new Set(stats.map((s) => s.lookupType)).size).toBeGreaterThanOrEqual(3);
    }
  });

  it("holds more than 120 blocked values for acme Country so paging past 100 is testable", () => {
    expect(state.blockedValues.get("acme")?.get("Country")?.length).toBeGreaterThanOrEqual(120);
    expect(state.blockedValues.get("globex")?.size).toBeGreaterThan(0);
  });
});

describe("fixture validation", () => {
  function brokenDir(file: string, content: string): string {
    const dir = mkdtempSync(join(tmpdir(), "lckit-fixtures-"));
    for (const name of ["tenants.yaml", "customers.yaml", "clients.yaml"])
      copyFileSync(join(DEFAULT_FIXTURES_DIR, name), join(dir, name));
    writeFileSync(join(dir, file), content);
    return dir;
  }

  it.each([
    [
      "a wrong type",
      "clients.yaml",
      "- customerId: cust-acme\n  clientId: x\n  clientSecret: s\n  authorities: ROLE_RDM\n",
      ["clients.yaml", "/0/authorities", "must be array"],
    ],
    [
      "an unknown customer",
      "clients.yaml",
      "- customerId: nobody\n  clientId: x\n  clientSecret: s\n  authorities: []\n",
      ["clients.yaml", "/0/customerId", "unknown customer"],
    ],
    [
      "an unknown tenant",
      "lookups.json",
      JSON.stringify([
        {
          tenantId: "nowhere",
          updatedBy: "u",
          updateDate: 1,
          version: 1,
          type: "rdm/lookupTypes/X",
          code: "A",
          enabled: true,
          sourceMappings: [],
          localizations: [],
          parents: [],
          attributes: [],
        },
      ]),
      ["lookups.json", "/0/tenantId", "unknown tenant"],
    ],
    [
      "a bad lookup type",
      "lookups.json",
      JSON.stringify([
        {
          tenantId: "acme",
          updatedBy: "u",
          updateDate: 1,
          version: 1,
          type: "Country",
          code: "A",
          enabled: true,
          sourceMappings: [],
          localizations: [],
          parents: [],
          attributes: [],
        },
      ]),
      ["lookups.json", "/0/type", "pattern"],
    ],
    [
      "a field the contract does not name",
      "lookups.json",
      JSON.stringify([
        {
          tenantId: "acme",
          updatedBy: "u",
          updateDate: 1,
          version: 1,
          type: "rdm/lookupTypes/X",
          code: "A",
          enabled: true,
          sourceMappings: [],
          localizations: [],
          parents: [],
          attributes: [],
          colour: "red",
        },
      ]),
      ["lookups.json", "/0/colour", "unknown key", "Allowed here: tenantId"],
    ],
    [
      "a statistic without a field the contract requires",
      "statistics.yaml",
      "- tenantId: acme\n  lookupType: Country\n",
      ["statistics.yaml", "/0", "must have required property"],
    ],
    [
      "a source mapping value of the wrong type",
      "lookups.json",
      JSON.stringify([
        {
          tenantId: "acme",
          updatedBy: "u",
          updateDate: 1,
          version: 1,
          type: "rdm/lookupTypes/X",
          code: "A",
          enabled: true,
          sourceMappings: [
            {
              source: "S",
              values: [
                {
                  code: "A",
                  value: "a",
                  enabled: "yes",
                  canonicalValue: true,
                  downStreamDefaultValue: false,
                },
              ],
            },
          ],
          localizations: [],
          parents: [],
          attributes: [],
        },
      ]),
      ["lookups.json", "/0/sourceMappings/0/values/0/enabled", "must be boolean"],
    ],
    [
      "a duplicate tenant",
      "tenants.yaml",
      "- id: acme\n  authMigrationMode: cassandra\n- id: acme\n  authMigrationMode: rdbms\n",
      ["tenants.yaml", "/1/id", "duplicate"],
    ],
    [
      "an unknown auth mode",
      "tenants.yaml",
      "- id: acme\n  authMigrationMode: ldap\n",
      ["tenants.yaml", "/0/authMigrationMode", "allowed values"],
    ],
    ["unparsable YAML", "customers.yaml", "- id: [unclosed\n", ["customers.yaml", "cannot be parsed"]],
    [
      "an out-of-range quota",
      "customers.yaml",
      "- id: c\n  tenants: [acme]\n  multitokenConfig:\n    clientCredentialsMultiTokenConfig:\n      maxActiveTokensAllowed: 500\n",
      ["customers.yaml", "maxActiveTokensAllowed", "<= 200"],
    ],
  ])("reports %s with file, path and problem", (_name, file, content, mentions) => {
    const dir = brokenDir(file, content);
    let error: unknown;
    try {
      createReference({ fixturesDir: dir });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FixtureError);
    for (const m of mentions) expect((error as Error).message).toContain(m);
  });

  it("names a missing required file", () => {
    const dir = mkdtempSync(join(tmpdir(), "lckit-fixtures-"));
    expect(() => createReference({ fixturesDir: dir })).toThrow(/tenants\.yaml: missing/);
  });
});

describe("the kit's fixtures at start", () => {
  it("are taken by their generated digest as the very world a full validation builds", () => {
    const files = fixtureFiles(DEFAULT_FIXTURES_DIR);
    expect(fixturesDigest(files)).toBe(kitFixtures.digest);
    expect(loadFixtures(DEFAULT_FIXTURES_DIR)).toEqual(validateFixtures(files));
  });

  it("a copy changed by one record is validated in full, not taken by the digest", () => {
    const dir = mkdtempSync(join(tmpdir(), "lckit-fixtures-"));
    for (const name of ["tenants.yaml", "customers.yaml"])
      copyFileSync(join(DEFAULT_FIXTURES_DIR, name), join(dir, name));
    const clients = readFileSync(join(DEFAULT_FIXTURES_DIR, "clients.yaml"), "utf8");
    // A schema error (a role list given as a string) that only the schema check finds.
    writeFileSync(
      join(dir, "clients.yaml"),
      `${clients}- customerId: cust-acme\n  clientId: added\n  clientSecret: s\n  authorities: ROLE_RDM\n`,
    );
    expect(fixturesDigest(fixtureFiles(dir))).not.toBe(kitFixtures.digest);
    expect(() => createReference({ fixturesDir: dir })).toThrow(
      /clients\.yaml: \/\d+\/authorities: must be array/,
    );
  });
});
