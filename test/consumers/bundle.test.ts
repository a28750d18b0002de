// The single-file artefacts (openapi/dist/*) as a consumer team's tools read them: up to date with the
// source documents, with no $ref left, with one example per operation tied across parameters, request and
// response that the sandbox accepts, and usable by openapi-typescript run inside this repository (the
// repository's redocly.yaml must not take over its configuration).
import "../support/background.ts";
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { bundleDocument, generate, tiedExampleName } from "../../scripts/generators/openapi-bundle.ts";
import { isObject } from "../../src/contract/index.ts";
import { diffContracts } from "../../src/contract-diff/index.ts";
import { createReference } from "../../src/reference/index.ts";

const run = promisify(execFile);
const root = join(new URL(".", import.meta.url).pathname, "..", "..");
const hosts = ["platform", "lookup-data"] as const;
const methods = ["get", "put", "post", "delete", "patch"] as const;
const scratch = mkdtempSync(join(tmpdir(), "lckit-bundle-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Json = Record<string, unknown>;
const dist = (host: string, ext: string) =>
  readFileSync(join(root, "openapi", "dist", `${host}.${ext}`), "utf8");

function refs(node: unknown, at = "#"): string[] {
  if (Array.isArray(node)) return node.flatMap((item, index) => refs(item, `${at}/${index}`));
  if (!isObject(node)) return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === "$ref" ? [`${at}: ${String(value)}`] : refs(value, `${at}/${key}`),
  );
}

describe("openapi/dist bundles", () => {
  it("are what the generator makes of the source documents today (npm run generate)", async () => {
    for (const file of await generate(root))
      expect(readFileSync(join(root, file.path), "utf8"), `${file.path} is stale: run npm run generate`).toBe(
        file.content,
      );
  });

  it("change when a source document changes (so the staleness check catches an edit)", async () => {
    cpSync(join(root, "openapi"), join(scratch, "openapi"), { recursive: true });
    const source = join(scratch, "openapi", "components", "parameters.yaml");
    writeFileSync(source, readFileSync(source, "utf8").replace("example: acme", "example: globex"));
    const changed = await generate(scratch);
    const stale = changed.filter((file) => file.content !== readFileSync(join(root, file.path), "utf8"));
    expect(stale.map((file) => file.path).sort()).toEqual([
      "openapi/dist/kit-preferences/lookup-data.json",
      "openapi/dist/kit-preferences/lookup-data.yaml",
      "openapi/dist/kit-preferences/platform.json",
      "openapi/dist/kit-preferences/platform.yaml",
      "openapi/dist/lookup-data.json",
      "openapi/dist/lookup-data.yaml",
      "openapi/dist/platform.json",
      "openapi/dist/platform.yaml",
    ]);
  });

  for (const host of hosts) {
    it(`${host}: YAML and JSON hold the same document, with no $ref left`, () => {
      const yaml = parse(dist(host, "yaml")) as Json;
      const json = JSON.parse(dist(host, "json")) as Json;
      expect(yaml).toEqual(json);
      expect(refs(json)).toEqual([]);
      expect(json.openapi).toBe("3.1.0");
    });
  }
});

describe("openapi/dist/kit-preferences: the sandbox's contract", () => {
  it("is the consumer bundle narrowed by exactly the kit's preferences (x-kit-preference)", () => {
    for (const host of hosts) {
      const changes = diffContracts(
        join(root, "openapi", "dist", `${host}.json`),
        join(root, "openapi", "dist", "kit-preferences", `${host}.json`),
      );
      expect(changes.length).toBeGreaterThan(0);
      // Preferences only ever add bounds: what consumers may send shrinks, nothing else moves.
      expect(new Set(changes.map((change) => change.kind))).toEqual(new Set(["bound-tightened"]));
    }
    const lookupScan = diffContracts(
      join(root, "openapi", "dist", "lookup-data.json"),
      join(root, "openapi", "dist", "kit-preferences", "lookup-data.json"),
    ).map((change) => `${change.where}: ${change.detail}`);
    expect(lookupScan).toContain(
      "POST /lookups/{tenantId}/_scan parameter query:limit $: maximum none became 100",
    );
  });

  it("the consumer bundle leaves the lookup scan limit open; the preferences bundle bounds it 1..100", () => {
    const limitOf = (document: Json) => {
      const scan = ((document.paths as Json)["/lookups/{tenantId}/_scan"] as Json).post as Json;
      const limit = (scan.parameters as Json[]).find((parameter) => parameter.name === "limit") as Json;
      return limit.schema as Json;
    };
    expect(limitOf(JSON.parse(dist("lookup-data", "json")) as Json)).toEqual({ type: "integer" });
    expect(
      limitOf(
        JSON.parse(
          readFileSync(join(root, "openapi", "dist", "kit-preferences", "lookup-data.json"), "utf8"),
        ) as Json,
      ),
    ).toEqual({ type: "integer", minimum: 1, maximum: 100, default: 100 });
  });
});

/** Every operation of a bundled document with its tied example name. */
function operations(document: Json): { path: string; method: string; operation: Json; name: string }[] {
  const found: { path: string; method: string; operation: Json; name: string }[] = [];
  for (const [path, item] of Object.entries(isObject(document.paths) ? document.paths : {}))
    for (const method of methods) {
      const operation = isObject(item) ? item[method] : undefined;
      if (!isObject(operation)) continue;
      const name = tiedExampleName(operation);
      if (!name) throw new Error(`${method} ${path}: no named example on its success response`);
      found.push({ path, method, operation, name });
    }
  return found;
}

/** The request an example-driven tool builds from the tied example of one operation. */
function tiedRequest(path: string, method: string, operation: Json, name: string, token: string): Request {
  let concrete = path;
  const query = new URLSearchParams();
  for (const parameter of (operation.parameters ?? []) as Json[]) {
    const example = isObject(parameter.examples) ? parameter.examples[name] : undefined;
    if (!isObject(example)) {
      if (parameter.required) throw new Error(`${path}: parameter ${parameter.name} has no example ${name}`);
      continue;
    }
    const value = String(example.value);
    if (parameter.in === "path")
      concrete = concrete.replace(`{${parameter.name}}`, encodeURIComponent(value));
    if (parameter.in === "query") query.set(String(parameter.name), value);
  }
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  let body: string | undefined;
  const requestBody = operation.requestBody;
  if (isObject(requestBody) && isObject(requestBody.content)) {
    const [media, content] = Object.entries(requestBody.content)[0] ?? [];
    const example = isObject(content) && isObject(content.examples) ? content.examples[name] : undefined;
    if (!media || !isObject(example)) throw new Error(`${path}: request body has no example ${name}`);
    headers["content-type"] = media;
    if (media === "application/x-www-form-urlencoded") {
      body = new URLSearchParams(example.value as Record<string, string>).toString();
      delete headers.authorization;
    } else if (example.value !== null) body = JSON.stringify(example.value);
  }
  const search = query.size > 0 ? `?${query}` : "";
  return new Request(`http://sandbox.test${concrete}${search}`, {
    method: method.toUpperCase(),
    headers,
    ...(body !== undefined ? { body } : {}),
  });
}

/** Operations whose path names something the server mints, with the declared status their example meets. */
const serverMinted: Record<string, number> = { getTask: 404 };

describe("tied examples", () => {
  for (const host of hosts) {
    it(`${host}: every operation's tied request is accepted by the sandbox (fixture world)`, async () => {
      const reference = createReference();
      const tokenResponse = await reference.fetch(
        new Request("http://sandbox.test/oauth/token", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "grant_type=client_credentials&client_id=acme-admin&client_secret=acme-admin-secret",
        }),
      );
      const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
      const document = bundleDocument(join(root, "openapi"), host);
      const refused: string[] = [];
      const all = operations(document);
      expect(all.length).toBeGreaterThan(0);
      for (const { path, method, operation, name } of all) {
        const response = await reference.fetch(tiedRequest(path, method, operation, name, token));
        const id = String(operation.operationId);
        // A task id is minted by the server (a UUID): no example can name an existing one, so the tied
        // request of the kit-extension getTask meets the declared 404. docs/consumers.md says so.
        const success =
          id in serverMinted
            ? [String(serverMinted[id])]
            : Object.keys(operation.responses as Json).filter((status) => status.startsWith("2"));
        if (!success.includes(String(response.status)))
          refused.push(`${operation.operationId} (${name}): ${response.status} ${await response.text()}`);
      }
      expect(refused).toEqual([]);
    });
  }

  it("a request example left untied would be refused (the tie is what makes it accepted)", async () => {
    // The token request's first listed example authenticates by Basic, which a tool does not send from
    // the example: the generator ties the form-authenticated one instead.
    const document = bundleDocument(join(root, "openapi"), "platform");
    const token = operations(document).find((entry) => entry.operation.operationId === "issueToken");
    if (!token) throw new Error("issueToken is missing from the platform bundle");
    const content = (token.operation.requestBody as Json).content as Json;
    const examples = (content["application/x-www-form-urlencoded"] as Json).examples as Json;
    expect(Object.keys(examples)[0]).toBe(token.name);
    const basicOnly = (examples.basicAuth as Json).value as Record<string, string>;
    const response = await createReference().fetch(
      new Request("http://sandbox.test/oauth/token", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(basicOnly).toString(),
      }),
    );
    expect(response.status).toBe(401);
  });
});

describe("openapi-typescript inside the repository", () => {
  it("generates types from both bundles with its CLI, and they type-check", async () => {
    const outputs: string[] = [];
    for (const host of hosts) {
      const output = join(scratch, `${host}.ts`);
      // cwd is the repository: its redocly.yaml is found and must not hijack the command line.
      await run(
        join(root, "node_modules", ".bin", "openapi-typescript"),
        [`openapi/dist/${host}.yaml`, "-o", output],
        { cwd: root, timeout: 120_000 },
      );
      expect(readFileSync(output, "utf8")).toContain("export interface paths");
      outputs.push(output);
    }
    const entry = join(scratch, "use.ts");
    writeFileSync(
      entry,
      [
        'import type { paths as Platform } from "./platform.ts";',
        'import type { paths as LookupData } from "./lookup-data.ts";',
        'type Token = Platform["/oauth/token"]["post"]["responses"][200]["content"]["application/json"];',
        'export const token: Token["token_type"] = "bearer";',
        'type Page = LookupData["/lookups/{tenantId}/_scan"]["post"]["responses"][200]["content"]["application/json"];',
        "export const count = (page: Page): number => page.values.length;",
        "",
      ].join("\n"),
    );
    await run(
      join(root, "node_modules", ".bin", "tsc"),
      [
        "--noEmit",
        "--strict",
        "--allowImportingTsExtensions",
        "--module",
        "nodenext",
        "--skipLibCheck",
        entry,
      ],
      { cwd: root, timeout: 120_000 },
    );
  }, 240_000);
});
