// report.schema.json compiled once for the tests that hold a report.json to it.
import { readFileSync } from "node:fs";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

let compiled: ValidateFunction | undefined;

/** The validator of report.json (every error collected, formats checked). */
export function reportValidator(): ValidateFunction {
  if (compiled === undefined) {
    const schema = JSON.parse(
      readFileSync(new URL("../../src/report/report.schema.json", import.meta.url), "utf8"),
    );
    const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true });
    addFormats.default(ajv);
    compiled = ajv.compile(schema);
  }
  return compiled;
}
