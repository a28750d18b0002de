// `lckit contract diff OLD NEW` classifies every change of pairs of contract versions made for the test
// (test/consumers/contract-pairs/): breaking vs compatible, for OpenAPI documents (with a components file)
// and event schemas (with a recursive object), with exit 1 on breaking changes, 0 otherwise, 2 on bad input.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { diffContracts } from "../../src/contract-diff/index.ts";
import { captureIo } from "../cli/capture-io.ts";

const root = join(new URL(".", import.meta.url).pathname, "..", "..");
const pairs = join(root, "test", "consumers", "contract-pairs");
const version = (name: string) => join(pairs, name);

const listing = (changes: ReturnType<typeof diffContracts>) =>
  changes.map((change) => `${change.level} ${change.kind} ${change.where}`).sort();

describe("contract diff of v1 and v2 (every kind of change)", () => {
  const changes = diffContracts(version("v1"), version("v2"));

  it("classifies each change of the pair, and nothing else", () => {
    const ops = "api.yaml: GET /items/{tenantId}";
    const post = "api.yaml: POST /items/{tenantId}";
    expect(listing(changes)).toEqual(
      [
        // Endpoints and event types.
        "breaking endpoint-removed api.yaml: DELETE /items/{tenantId}/{id}",
        "compatible endpoint-added api.yaml: GET /version",
        "breaking event-type-removed event ITEM_ARCHIVED",
        "compatible event-type-added event ITEM_RESTORED",
        // Parameters: a narrowed bound, a new required and a new optional one; the renamed path parameter
        // ({tenantId} to {tenant}) is no change.
        `breaking bound-tightened ${ops} parameter query:limit $`,
        `breaking parameter-required-added ${ops} parameter query:region`,
        `compatible parameter-added ${ops} parameter query:sort`,
        // Responses: a field removed, a new enum value, a narrowed type, a new field, an error status gone.
        `breaking field-removed ${ops} response 200 application/json $.values[].legacyCode`,
        `breaking enum-value-added ${ops} response 200 application/json $.values[].status`,
        `compatible type-narrowed ${ops} response 200 application/json $.values[].score`,
        `compatible field-added ${ops} response 200 application/json $.values[].createdAt`,
        `compatible status-removed ${ops} response 404`,
        `breaking field-removed ${post} response 201 application/json $.legacyCode`,
        `breaking enum-value-added ${post} response 201 application/json $.status`,
        `compatible type-narrowed ${post} response 201 application/json $.score`,
        `compatible field-added ${post} response 201 application/json $.createdAt`,
        // Request body: newly required, narrowed type; loosened bound, new enum value, new optional field.
        `breaking required-added ${post} request body application/json $.kind`,
        `breaking type-narrowed ${post} request body application/json $.count`,
        `compatible bound-loosened ${post} request body application/json $.name`,
        `compatible enum-value-added ${post} request body application/json $.kind`,
        `compatible field-added ${post} request body application/json $.note`,
        // Event payloads (provider to consumer): a field removed, a new enum value, in both types that use
        // the shared object.
        "breaking field-removed event ITEM_CREATED $.object.origin",
        "breaking enum-value-added event ITEM_CREATED $.object.channel",
        "breaking field-removed event ITEM_REMOVED $.object.origin",
        "breaking enum-value-added event ITEM_REMOVED $.object.channel",
      ].sort(),
    );
  });

  it("lists breaking changes first", () => {
    const firstCompatible = changes.findIndex((change) => change.level === "compatible");
    expect(changes.slice(firstCompatible).every((change) => change.level === "compatible")).toBe(true);
  });

  it("exits 1 and prints each breaking change with a summary line", async () => {
    const io = captureIo();
    expect(await main(["contract", "diff", version("v1"), version("v2")], io)).toBe(1);
    expect(io.stdout()).toContain(
      "BREAKING   api.yaml: DELETE /items/{tenantId}/{id}: endpoint removed [endpoint-removed]",
    );
    expect(io.stdout()).toMatch(/^contract diff: 14 breaking, 11 compatible change\(s\)/m);
  });

  it("--json gives the same changes as data", async () => {
    const io = captureIo();
    expect(await main(["contract", "diff", "--json", version("v1"), version("v2")], io)).toBe(1);
    expect(JSON.parse(io.stdout())).toEqual(changes);
  });
});

describe("contract diff without breaking changes", () => {
  it("v1 to v1-extended: only compatible changes, exit 0", async () => {
    const changes = diffContracts(version("v1"), version("v1-extended"));
    expect(changes.length).toBeGreaterThan(0);
    expect(changes.filter((change) => change.level === "breaking")).toEqual([]);
    expect(listing(changes)).toContain(
      "compatible bound-loosened api.yaml: GET /items/{tenantId} parameter query:limit $",
    );
    const io = captureIo();
    expect(await main(["contract", "diff", version("v1"), version("v1-extended")], io)).toBe(0);
  });

  it("the reverse (v1-extended to v1) breaks: what was added is taken away", () => {
    const kinds = new Set(
      diffContracts(version("v1-extended"), version("v1"))
        .filter((change) => change.level === "breaking")
        .map((change) => change.kind),
    );
    expect(kinds).toEqual(
      new Set([
        "endpoint-removed",
        "event-type-removed",
        "field-removed",
        "bound-tightened",
        "enum-value-removed",
        "type-widened",
      ]),
    );
  });

  it("a version against itself, and the repository's contract against its own single-file bundle: no change", () => {
    expect(diffContracts(version("v1"), version("v1"))).toEqual([]);
    expect(diffContracts(root, root)).toEqual([]);
    for (const host of ["platform", "lookup-data"])
      expect(
        diffContracts(join(root, "openapi", `${host}.yaml`), join(root, "openapi", "dist", `${host}.json`)),
      ).toEqual([]);
  });
});

describe("contract diff usage", () => {
  it.each([
    [["contract", "diff", "only-one"], /exactly two paths/],
    [["contract", "diff", "missing-old", "missing-new"], /OLD .*missing-old does not exist/],
    [["contract", "diff", join(pairs, "README.md"), join(pairs, "README.md")], /not an OpenAPI document/],
    [["contract", "diff", join(root, "openapi", "platform.yaml"), version("v1")], /compare like with like/],
    [["contract", "diff", "--bogus", "a", "b"], /unknown option "--bogus"/],
    [["contract", "compare"], /unknown subcommand "compare"/],
  ])("%j exits 2 naming the problem", async (argv, message) => {
    const io = captureIo();
    expect(await main(argv, io)).toBe(2);
    expect(io.stderr()).toMatch(message);
  });
});
