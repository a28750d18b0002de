// The data files of requirements/ (the catalogue, the exploration model): read as YAML and held to their
// JSON schema, every problem a readable line.
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parse } from "yaml";

/** The problems of `data` against the JSON schema at `schemaPath`, as "pointer: message" lines; `named`
 *  adds what a pointer points at (" (ID-01)"), so the problem can be found in the file. */
export function schemaProblems(
  schemaPath: string,
  data: unknown,
  named: (pointer: string) => string = () => "",
): string[] {
  const validate = new Ajv2020({ allErrors: true }).compile(JSON.parse(readFileSync(schemaPath, "utf8")));
  if (validate(data)) return [];
  return (validate.errors ?? []).map(
    (error) => `${error.instancePath || "/"}${named(error.instancePath)}: ${error.message}`,
  );
}

/** The file at `path` (`name` in messages) parsed; throws naming every problem `problemsOf` finds. */
export function readCheckedYaml<T>(path: string, name: string, problemsOf: (data: unknown) => string[]): T {
  const data: unknown = parse(readFileSync(path, "utf8"));
  const problems = problemsOf(data);
  if (problems.length > 0) throw new Error(`${name} is invalid:\n  ${problems.join("\n  ")}`);
  return data as T;
}
