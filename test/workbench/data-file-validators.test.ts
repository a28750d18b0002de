// The validators compiled ahead (src/generated/fixture-validators.js, ajv's standalone code) judge a data
// file exactly as ajv compiling the generated schemas at run time does: same verdict, same first error
// (JSON path, keyword, message, params), so the data-file errors built from it stay as they were.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { VALIDATOR_OPTIONS } from "../../scripts/generators/reference-start.ts";
import { fixtureSchemas } from "../../src/generated/fixture-schemas.ts";
import { fixtureValidators } from "../../src/generated/fixture-validators.js";
import { packagePath } from "../../src/package-root.ts";
import { loadDataFile } from "../../src/reference/data-file.ts";
import { FIXTURE_KINDS, FixtureError, type Kind } from "../../src/reference/fixture-world.ts";
import { loadFixtures } from "../../src/reference/fixtures.ts";

const ajv = new Ajv({ ...VALIDATOR_OPTIONS });
const runtime = Object.fromEntries(
  FIXTURE_KINDS.map((kind) => [kind, ajv.compile(fixtureSchemas[kind])]),
) as Record<Kind, ValidateFunction>;

const fixtures = loadFixtures();
const valid: Record<Kind, readonly unknown[]> = {
  tenants: fixtures.tenants,
  customers: fixtures.customers,
  clients: fixtures.clients,
  lookups: fixtures.lookups,
  statistics: fixtures.statistics,
  "blocked-values": fixtures.blockedValues,
};

/** What a validator said: its verdict and its first error, as the data-file message uses it. */
function verdict(validate: ValidateFunction, data: unknown) {
  const ok = validate(data);
  const e = validate.errors?.[0];
  return {
    ok,
    first: e && { instancePath: e.instancePath, keyword: e.keyword, message: e.message, params: e.params },
  };
}

function judgedAlike(kind: Kind, data: unknown): void {
  const standalone = verdict(fixtureValidators[kind], data);
  const expected = verdict(runtime[kind], data);
  // Compared by hand first: a message naming the data is built only for a disagreement.
  if (JSON.stringify(standalone) !== JSON.stringify(expected))
    expect(standalone, `${kind}: ${JSON.stringify(data)}`).toEqual(expected);
}

/** A bad entry: a valid one of the kind with one field removed, retyped, emptied or added. */
const mutation = (kind: Kind) =>
  fc
    .record({
      index: fc.nat(),
      field: fc.nat(),
      change: fc.constantFrom("delete", "replace", "unknown", "nested"),
      value: fc.oneof(
        fc.constantFrom("", null, 0, -1, 1.5, true, [], {}, "\uD83D\uDE00", "x".repeat(300)),
        fc.string(),
        fc.integer(),
        fc.anything(),
      ),
    })
    .map(({ index, field, change, value }) => {
      // A few records: the kit's fixtures hold many, and one bad entry among them is judged the same.
      const records = structuredClone(valid[kind].slice(0, 3)) as Record<string, unknown>[];
      const record = records[index % records.length] as Record<string, unknown>;
      const fields = Object.keys(record);
      const name = fields[field % fields.length] as string;
      if (change === "delete") delete record[name];
      else if (change === "replace") record[name] = value;
      else if (change === "unknown") record[`unknown${field}`] = value;
      else {
        // One level down: an item of an array field, or a field of an object field.
        const inner = record[name];
        if (Array.isArray(inner) && inner.length > 0) inner[field % inner.length] = value;
        else if (inner && typeof inner === "object")
          (inner as Record<string, unknown>)[Object.keys(inner)[0] ?? "x"] = value;
        else record[name] = value;
      }
      return records;
    });

describe("the validators compiled ahead", () => {
  it("accept every record of the kit's fixtures, as the runtime ones do", () => {
    for (const kind of FIXTURE_KINDS) {
      expect(fixtureValidators[kind](structuredClone(valid[kind]))).toBe(true);
      judgedAlike(kind, structuredClone(valid[kind]));
    }
  });

  it("refuse a table of bad entries with the runtime validators' first error", () => {
    const table: [Kind, unknown][] = [
      ["tenants", {}],
      ["tenants", [{ id: "", authMigrationMode: "cassandra" }]],
      ["tenants", [{ id: "t", authMigrationMode: "mysql" }]],
      ["tenants", [{ id: "t" }]],
      ["customers", [{ id: "c", tenants: [] }]],
      ["clients", [{ customerId: "c", clientId: "k", clientSecret: "s", authorities: "ROLE" }]],
      [
        "clients",
        [{ customerId: "c", clientId: "k", clientSecret: "s", authorities: [], accessTokenValidity: 0 }],
      ],
      ["lookups", [{ ...(valid.lookups[0] as object), code: 7 }]],
      ["lookups", [{ ...(valid.lookups[0] as object), type: "not a uri" }]],
      ["statistics", [{ ...(valid.statistics[0] as object), extra: 1 }]],
      ["blocked-values", [null]],
    ];
    for (const [kind, data] of table) {
      expect(fixtureValidators[kind](data), `${kind}: ${JSON.stringify(data)}`).toBe(false);
      judgedAlike(kind, data);
    }
  });

  it("judge any mutated entry and any value alike (property)", () => {
    for (const kind of FIXTURE_KINDS) {
      if (valid[kind].length === 0) continue;
      fc.assert(
        fc.property(mutation(kind), (data) => judgedAlike(kind, data)),
        { numRuns: 300, seed: 22 },
      );
      fc.assert(
        fc.property(fc.anything(), (data) => judgedAlike(kind, data)),
        { numRuns: 100, seed: 22 },
      );
    }
  });
});

describe("a data file loaded again in the same process", () => {
  it("is validated once while its text is unchanged, and again (refused when now wrong) once edited", () => {
    const file = join(mkdtempSync(join(tmpdir(), "lckit-data-")), "data.yaml");
    const text = readFileSync(packagePath("examples", "sandbox-data.yaml"), "utf8");
    writeFileSync(file, text);
    const first = loadDataFile(file);
    expect(loadDataFile(file)).toBe(first);
    writeFileSync(file, text.replace("authMigrationMode: cassandra", "authMigrationMode: mysql"));
    expect(() => loadDataFile(file)).toThrow(FixtureError);
    expect(() => loadDataFile(file)).toThrow(
      /\/tenants\/0\/authMigrationMode: must be equal to one of the allowed values/,
    );
    writeFileSync(file, text);
    expect(loadDataFile(file).tenants).toEqual(first.tenants);
  });
});
