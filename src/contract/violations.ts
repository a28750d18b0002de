// Schema checking of bodies against the contract: ajv (JSON Schema 2020-12, OpenAPI 3.1's dialect) with
// every validator compiled once per schema object, and results as data (Violation), never prose alone.
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/** One way a body departs from the contract; keyword is ajv's, or status/contentType/body/json. */
export interface Violation {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  message: string;
}

/** Compiles each distinct schema object once and keeps the validator. */
export class SchemaValidators {
  // strict off: OpenAPI and kit keywords (example, x-*, writeOnly) sit inside the schemas. validateSchema
  // off: only the kit's own contract is compiled here, proven valid 2020-12 by test/contract/schemas.test.ts,
  // and checking it again would compile ajv's meta-schema in every process (~250 ms of a short judging).
  private readonly ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    validateFormats: true,
    validateSchema: false,
  });
  private readonly compiled = new WeakMap<object, ValidateFunction>();

  constructor() {
    addFormats.default(this.ajv);
  }

  /** The validator of `schema`, compiled on first use and cached by object identity. */
  validator(schema: object): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.compiled.set(schema, validate);
    }
    return validate;
  }

  /** Violations of `value` against `schema`; schemaPath is prefixed with where the schema sits. */
  check(schema: object, value: unknown, schemaLocation: string): Violation[] {
    const validate = this.validator(schema);
    if (validate(value)) return [];
    return (validate.errors ?? []).map((error) => toViolation(error, schemaLocation));
  }
}

function toViolation(error: ErrorObject, schemaLocation: string): Violation {
  const where = error.instancePath === "" ? "body" : `body${error.instancePath}`;
  return {
    instancePath: error.instancePath,
    schemaPath: `${schemaLocation}${error.schemaPath.replace(/^#/, "")}`,
    keyword: error.keyword,
    message: `${where} ${error.message ?? "is invalid"}${detail(error)}`,
  };
}

function detail(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "enum" && Array.isArray(params.allowedValues))
    return `: ${params.allowedValues.map((value) => JSON.stringify(value)).join(", ")}`;
  if (error.keyword === "const") return `: ${JSON.stringify(params.allowedValue)}`;
  if (error.keyword === "additionalProperties") return `: "${String(params.additionalProperty)}"`;
  return "";
}

/** A violation that is not a schema keyword failure (undeclared status, wrong content type, bad JSON). */
export function violation(keyword: string, message: string, schemaPath = ""): Violation {
  return { instancePath: "", schemaPath, keyword, message };
}
