// Pacts against the contract: the committed pacts agree with openapi/ and event-schemas/; pacts that
// contradict them fail, naming the pact file, the interaction and the violation.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkPactFiles, formatViolation, type PactViolation } from "../../src/pact/contract-check.ts";
import { findPactFiles, PactFileError, readPactFile } from "../../src/pact/pact-file.ts";
import { CONSUMERS, PROVIDER_NAME, pactFileName } from "../../src/pact/provider.ts";
import { pactDir, repositoryRoot } from "./consumer-pact.ts";

const cwd = repositoryRoot;
const fixtures = "test/pact/fixtures";
const contradicting = join(fixtures, "contradicting-consumer-lookup-data-interface.json");
const legacy = join(fixtures, "legacy-v3-consumer-lookup-data-interface.json");

describe("committed pacts against the contract", () => {
  const files = findPactFiles([pactDir], cwd);

  it("holds one pact per consumer of the kit, each with the kit's provider", () => {
    expect(files.map((file) => file.split("/").at(-1)).sort()).toEqual(
      Object.values(CONSUMERS)
        .map((consumer) => pactFileName(consumer))
        .sort(),
    );
    for (const file of files) expect(readPactFile(file, cwd).provider).toBe(PROVIDER_NAME);
  });

  it("finds no contradiction in any interaction or message", () => {
    const result = checkPactFiles(files, cwd);
    expect(result.violations.map(formatViolation)).toEqual([]);
    expect(result.files.every((file) => file.interactions > 0)).toBe(true);
    expect(result.ok).toBe(true);
  });
});

describe("pacts that contradict the contract", () => {
  const result = checkPactFiles([contradicting, legacy], cwd);
  const found = (file: string, interaction: string) =>
    result.violations
      .filter((v) => v.file === file && v.interaction === interaction)
      .map(
        (v): Partial<PactViolation> => ({ part: v.part, instancePath: v.instancePath, keyword: v.keyword }),
      );

  it.each<[string, string, Partial<PactViolation>[]]>([
    [
      contradicting,
      "a version request answered with a number",
      [{ part: "response", instancePath: "/rdm-service", keyword: "type" }],
    ],
    // The lookup scan's bounds are a kit preference (x-kit-preference), not part of the consumer contract:
    // a pact asking for 500 does not contradict it.
    [contradicting, "a lookup scan with a page size of 500", []],
    [
      contradicting,
      "a delete task of an unknown kind",
      [{ part: "request", instancePath: "/type", keyword: "enum" }],
    ],
    [
      contradicting,
      "a healthcheck sent with POST",
      [{ part: "operation", instancePath: "", keyword: "operation" }],
    ],
    [
      contradicting,
      "an ENTITY_CREATED event that carries ovChanged",
      [{ part: "message", instancePath: "/payload/ovChanged", keyword: "not" }],
    ],
    [contradicting, "a status request that follows the contract", []],
    [
      legacy,
      "a blocked-values request with a negative offset",
      [{ part: "request", instancePath: "/query/offset", keyword: "minimum" }],
    ],
    [legacy, "a healthcheck request", []],
  ])("%s: %s", (file, interaction, want) => {
    expect(found(file, interaction)).toEqual(want);
  });

  it("fails as a whole and names file, interaction and place in each line", () => {
    expect(result.ok).toBe(false);
    for (const violation of result.violations) {
      const line = formatViolation(violation);
      expect(line).toContain(violation.file);
      expect(line).toContain(`"${violation.interaction}"`);
      expect(line).toContain(violation.instancePath);
    }
  });

  it.each([
    ["a file that is not JSON", "test/pact/consumer-pact.ts", /cannot be read as JSON/],
    ["a JSON file that is not a pact", "package.json", /is not a pact file/],
  ])("refuses %s", (_name, file, message) => {
    expect(() => checkPactFiles([file], cwd)).toThrow(PactFileError);
    expect(() => checkPactFiles([file], cwd)).toThrow(message);
  });

  it("refuses a path that does not exist", () => {
    expect(() => findPactFiles(["pacts-that-are-not-there"], cwd)).toThrow(/no such file or directory/);
  });
});
