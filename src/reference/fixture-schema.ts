// JSON Schemas of the fixture files: a broken fixture is reported with file, path and problem at load time.
// The records of the interface take their fields and types from the contract's schemas
// (openapi/components/schemas.yaml), so a field is named once; the fixture world is stricter than what a
// target may answer (every field filled, no unknown field in data records, the kit's preferences held),
// and says so where it adds a bound. Tenants are not a resource of the contract: their schema is here.
import { LOOKUP_TYPE_URI_PATTERN } from "../contract/lookup-type.ts";
import { isObject, RefResolver } from "../contract/ref-resolver.ts";
import { packagePath } from "../package-root.ts";

type Schema = Record<string, unknown>;

const nonEmpty = { type: "string", minLength: 1 } as const;

export const tenantsSchema = {
  type: "array",
  items: {
    type: "object",
    required: ["id", "authMigrationMode"],
    additionalProperties: false,
    properties: { id: nonEmpty, authMigrationMode: { enum: ["cassandra", "rdbms"] } },
  },
} as const;

let contractSchemas: Record<string, unknown> | undefined;

/** A record schema of the contract, $refs resolved; read once per process. */
function contractSchema(name: string): Schema {
  contractSchemas ??= new RefResolver().resolveDocument(packagePath("openapi", "components", "schemas.yaml"));
  const schema = contractSchemas[name];
  if (!isObject(schema)) throw new Error(`openapi/components/schemas.yaml has no schema "${name}"`);
  return schema;
}

/** Words that describe a schema without constraining it: the fixture validator (ajv, strict) gets none. */
const ANNOTATIONS = new Set(["description", "examples", "example", "writeOnly", "readOnly"]);

/**
 * The constraints of a contract schema alone: annotations and x- extensions dropped, except that the kit's
 * preferences (x-kit-preference: bounds the kit holds where the document is silent) become constraints,
 * since the reference holds them.
 */
function constraints(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(constraints);
  if (!isObject(schema)) return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key) || key.startsWith("x-")) continue;
    // Maps from a property name (which may be "description") to its schema.
    out[key] =
      (key === "properties" || key === "patternProperties") && isObject(value)
        ? Object.fromEntries(Object.entries(value).map(([name, child]) => [name, constraints(child)]))
        : constraints(value);
  }
  const preference = schema["x-kit-preference"];
  if (isObject(preference) && isObject(out.properties)) {
    const properties = out.properties as Record<string, Schema>;
    for (const [name, bounds] of Object.entries(preference))
      if (isObject(bounds)) properties[name] = { ...properties[name], ...bounds };
  }
  return out;
}

interface RecordOptions {
  /** The fields that must be present: every field but `optional` (default), or those the contract requires. */
  required?: readonly string[] | "as-contract";
  /** Fields that may be absent, where every other must be present. */
  optional?: readonly string[];
  /** Tighter schemas of the fixture world for some fields, replacing the contract's. */
  tighter?: Record<string, unknown>;
  /** Fields of the fixture file that are not part of the resource (e.g. a client's customerId). */
  extra?: Record<string, unknown>;
  /** Whether fields the contract does not name may appear (configuration is stored as posted). */
  open?: boolean;
}

/** One record of the contract as a fixture file holds it. */
function fixtureRecord(name: string, options: RecordOptions = {}): Schema {
  const contract = constraints(contractSchema(name)) as Schema;
  const named = isObject(contract.properties) ? contract.properties : {};
  const properties: Schema = { ...options.extra };
  for (const [field, schema] of Object.entries(named)) properties[field] = options.tighter?.[field] ?? schema;
  const unknown = Object.keys(options.tighter ?? {}).filter((field) => !(field in named));
  if (unknown.length > 0)
    throw new Error(`the contract's ${name} has no field ${unknown.join(", ")}; the fixture schema names it`);
  const required =
    options.required === "as-contract"
      ? ((contract.required as string[] | undefined) ?? [])
      : (options.required ?? Object.keys(properties).filter((field) => !options.optional?.includes(field)));
  return {
    type: "object",
    required: [...required],
    ...(options.open ? {} : { additionalProperties: false }),
    properties,
  };
}

const list = (items: Schema) => ({ type: "array", items });
const lookupTypeUri = { type: "string", pattern: LOOKUP_TYPE_URI_PATTERN } as const;

// Customers and clients are closed here although the contract's schemas are open (configuration is stored
// as posted): in a data file an unknown key is a typo (multiTokenConfig, accessTokenValidty) that would
// otherwise serve a world with its quota or validity silently off.
export function customersSchema(): Schema {
  const multiToken = fixtureRecord("ClientCredentialsMultiTokenConfig", { required: "as-contract" });
  return list(
    fixtureRecord("Customer", {
      required: ["id", "tenants"],
      tighter: {
        id: nonEmpty,
        tenants: { type: "array", items: nonEmpty, minItems: 1 },
        multitokenConfig: fixtureRecord("MultitokenConfig", {
          required: "as-contract",
          tighter: { clientCredentialsMultiTokenConfig: multiToken },
        }),
      },
    }),
  );
}

export function clientsSchema(): Schema {
  return list(
    fixtureRecord("Client", {
      required: ["customerId", "clientId", "clientSecret", "authorities"],
      extra: { customerId: nonEmpty },
      tighter: {
        clientId: nonEmpty,
        clientSecret: nonEmpty,
        accessTokenValidity: { type: "integer", minimum: 1 },
        refreshTokenValidity: { type: "integer", minimum: 0 },
      },
    }),
  );
}

export function lookupsSchema(): Schema {
  const open = { open: true } as const;
  return list(
    fixtureRecord("Lookup", {
      optional: ["startDate", "endDate"],
      tighter: {
        tenantId: nonEmpty,
        type: lookupTypeUri,
        code: { type: "string", minLength: 1, maxLength: 499 },
        sourceMappings: list(
          fixtureRecord("SourceMapping", {
            ...open,
            tighter: { values: list(fixtureRecord("SourceMappingValue", open)) },
          }),
        ),
        attributes: list(fixtureRecord("LookupAttribute", open)),
      },
    }),
  );
}

export function statisticsSchema(): Schema {
  return list(
    fixtureRecord("AutopilotMatchStatistic", {
      required: "as-contract",
      tighter: {
        tenantId: nonEmpty,
        // The fixtures name the type bare; the URI form is what a target may answer besides.
        lookupType: { type: "string", pattern: "^[^/]+$" },
        status: nonEmpty,
        sourceFrequency: fixtureRecord("SourceFrequency", { open: true }),
      },
    }),
  );
}

export function blockedValuesSchema(): Schema {
  return list(fixtureRecord("BlockedValue", { tighter: { tenantId: nonEmpty, lookupType: lookupTypeUri } }));
}
