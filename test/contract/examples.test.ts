// Every example of both documents (bodies, parameters, schema-level examples) validates against its schema.
import { describe, expect, it } from "vitest";
import { isObject, loadContract, SchemaValidators } from "../../src/contract/index.ts";

interface ExampleCase {
  schema: Record<string, unknown>;
  value: unknown;
}

const contract = loadContract();
const validators = new SchemaValidators();

function mediaExamples(where: string, content: unknown, cases: [string, ExampleCase][]): void {
  if (!isObject(content)) return;
  for (const [media, mediaObject] of Object.entries(content)) {
    if (!isObject(mediaObject) || !isObject(mediaObject.schema)) continue;
    const schema = mediaObject.schema;
    if ("example" in mediaObject)
      cases.push([`${where} ${media} example`, { schema, value: mediaObject.example }]);
    if (isObject(mediaObject.examples))
      for (const [name, example] of Object.entries(mediaObject.examples))
        if (isObject(example))
          cases.push([`${where} ${media} examples.${name}`, { schema, value: example.value }]);
  }
}

/** Schema-level `examples` arrays (JSON Schema 2020-12), found anywhere inside a schema. */
function schemaExamples(
  where: string,
  schema: unknown,
  cases: [string, ExampleCase][],
  seen: Set<unknown>,
): void {
  if (!isObject(schema) || seen.has(schema)) return;
  seen.add(schema);
  if (Array.isArray(schema.examples))
    schema.examples.forEach((value, index) => {
      cases.push([`${where} examples[${index}]`, { schema, value }]);
    });
  for (const [name, child] of Object.entries(schema)) {
    if (name === "examples" || name === "example") continue;
    const children = Array.isArray(child) ? child : [child];
    for (const [index, item] of children.entries())
      schemaExamples(
        Array.isArray(child) ? `${where}/${name}/${index}` : `${where}/${name}`,
        item,
        cases,
        seen,
      );
  }
}

function collectCases(): [string, ExampleCase][] {
  const cases: [string, ExampleCase][] = [];
  const seen = new Set<unknown>();
  for (const operation of contract.operations) {
    const { raw, operationId } = operation;
    if (isObject(raw.requestBody)) mediaExamples(`${operationId} request`, raw.requestBody.content, cases);
    if (isObject(raw.responses))
      for (const [status, response] of Object.entries(raw.responses))
        if (isObject(response)) mediaExamples(`${operationId} ${status}`, response.content, cases);
    for (const parameter of [...(Array.isArray(raw.parameters) ? raw.parameters : [])]) {
      if (isObject(parameter) && isObject(parameter.schema) && "example" in parameter)
        cases.push([
          `${operationId} parameter ${String(parameter.name)}`,
          { schema: parameter.schema, value: parameter.example },
        ]);
    }
    for (const [index, parameter] of operation.parameters.entries())
      schemaExamples(`${operationId} parameter ${index}`, parameter.schema, cases, seen);
  }
  for (const [host, document] of Object.entries(contract.documents))
    for (const [path, item] of Object.entries(isObject(document.paths) ? document.paths : {}))
      schemaExamples(`${host} ${path}`, item, cases, seen);
  return cases;
}

const cases = collectCases();

describe("examples of the contract", () => {
  it("finds examples for every operation's success response and every declared error", () => {
    for (const operation of contract.operations)
      for (const status of operation.statuses)
        expect(
          cases.some(([name]) => name.startsWith(`${operation.operationId} ${status} `)),
          `${operation.operationId} ${status} has no example`,
        ).toBe(true);
  });

  it.each(cases)("%s validates against its schema", (_name, { schema, value }) => {
    expect(validators.check(schema, value, "#")).toEqual([]);
  });

  it.each([
    ["a scan page without values", { operationId: "scanLookups", value: { scrollId: "x" } }],
    [
      "a statistic with a numeric status",
      { operationId: "scanAutopilotStats", value: { values: [{ status: 3 }] } },
    ],
  ])("the same check rejects %s", (_name, { operationId, value }) => {
    expect(contract.validateResponse(operationId, 200, "application/json", value)).not.toEqual([]);
  });
});
