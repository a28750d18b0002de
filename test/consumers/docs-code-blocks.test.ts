// Every code block of docs/consumers.md that a team would paste runs here as written: the TypeScript ones
// with the package's own specifiers (resolved through package.json "exports" to the sources), the shell
// ones through the CLI. A block that cannot run here (a placeholder command, a server left running, a tool
// the kit does not ship) is listed with why; a new block fails until it is run or listed.
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { main } from "../../src/cli/main.ts";
import { captureIo } from "../cli/capture-io.ts";

const repo = join(import.meta.dirname, "..", "..");
const doc = readFileSync(join(repo, "docs", "consumers.md"), "utf8");
const exportsMap = (
  JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as {
    exports: Record<string, string | { import: string }>;
  }
).exports;

interface Block {
  lang: string;
  text: string;
  line: number;
}

/** The fenced blocks of a Markdown text, a list item's indentation taken off their lines. */
function blocks(markdown: string): Block[] {
  const out: Block[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)```(\w*)\s*$/.exec(lines[i] as string);
    if (!open) continue;
    const indent = (open[1] as string).length;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^ *```\s*$/.test(lines[j] as string); j++)
      body.push((lines[j] as string).slice(indent));
    out.push({ lang: open[2] as string, text: body.join("\n"), line: i + 1 });
    i = j;
  }
  return out;
}

/** Where the package's specifier leads in this checkout: its "exports" entry, the built file's source. */
function resolvePackage(specifier: string): string {
  const subpath = `.${specifier.slice("lookup-conformance-kit".length)}`;
  const entry = exportsMap[subpath];
  if (entry === undefined) throw new Error(`${specifier}: not in package.json "exports"`);
  const target = typeof entry === "string" ? entry : entry.import;
  return join(repo, target.replace(/^\.\/dist\/(.*)\.js$/, "$1.ts"));
}

/** The block with the package's specifiers as file URLs (for import()) or paths (for a bundler). */
function withPackageImports(code: string, as: "url" | "path" = "url"): string {
  return code.replace(/from "(lookup-conformance-kit(?:\/[^"]*)?)"/g, (_, spec: string) => {
    const file = resolvePackage(spec);
    return `from ${JSON.stringify(as === "url" ? pathToFileURL(file).href : file)}`;
  });
}

/** Runs a TypeScript block as a module in a folder holding team.yaml (the example data), with the names
 *  the test needs exported after it; a block that uses expect gets it, as a test file has it. */
async function runBlock(block: Block, exported: string[]): Promise<Record<string, unknown>> {
  const folder = mkdtempSync(join(tmpdir(), "lckit-doc-block-"));
  copyFileSync(join(repo, "examples", "sandbox-data.yaml"), join(folder, "team.yaml"));
  const modules = join(repo, ".tmp", "doc-blocks");
  mkdirSync(modules, { recursive: true });
  const file = join(modules, `consumers-${block.line}-${process.pid}.ts`);
  const prelude = /\bexpect\(/.test(block.text) ? 'import { expect } from "vitest";\n' : "";
  const epilogue = exported.length > 0 ? `\nexport { ${exported.join(", ")} };\n` : "\n";
  writeFileSync(file, `${prelude}${withPackageImports(block.text)}${epilogue}`);
  const cwd = process.cwd();
  process.chdir(folder);
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } finally {
    process.chdir(cwd);
    rmSync(file, { force: true });
  }
}

const all = blocks(doc);
const find = (lang: string, marker: string): Block => {
  const found = all.filter((b) => b.lang === lang && b.text.includes(marker));
  if (found.length !== 1) throw new Error(`docs/consumers.md: ${found.length} ${lang} blocks hold ${marker}`);
  return found[0] as Block;
};

/** Blocks that do not run here, by a line they hold, and why. */
const SHOWN: [string, string][] = [
  ["-- npm test\n", "placeholders of the team's own (team.yaml, npm test, pytest tests)"],
  ["--variants all --parallel 2 -- npm test", "the team's npm test, and an excerpt of output"],
  [
    "uses: OWNER/lookup-conformance-kit",
    "a GitHub workflow step (test/package/action.test.ts runs the Action)",
  ],
  [
    "lckit serve --data node_modules/lookup-conformance-kit/examples/sandbox-data.yaml",
    "a server that keeps running (test/reference covers --data)",
  ],
  ["lckit serve: --data team.yaml:", "output, not a command"],
  ["C=http://127.0.0.1:8189", "calls to a running sandbox's control port (test/workbench/control.test.ts)"],
  ["npx openapi-typescript", "tools the kit does not ship (Dredd, Specmatic)"],
  ["TOKEN=$(curl", "a running sandbox on port 8180"],
  ['"type": "urn:lckit:mock:request-validation"', "an answer body (test/consumers/docs.test.ts compares it)"],
  ['{"headers": {"tenantId": "shop"', "a line of a stream (test/consumers/docs.test.ts parses it)"],
  [
    '"kind": "lckit-client-sweep"',
    'sweep.json as data (test/workbench/client-sweep.test.ts, "writes sweep.json and one junit.xml whose test cases name the choice", holds it to the fields and values of a real sweep.json)',
  ],
  ["lckit contract diff OLD NEW", "placeholders OLD and NEW"],
  [
    "lckit events consumer check --delivery rabbitmq --",
    "starts a RabbitMQ node of the kit's own (test/broker/rabbitmq-node.test.ts runs the check without --broker over both protocols)",
  ],
  [
    "consumer-command: node dist/consumer.js",
    "a GitHub workflow step (test/package/package.test.ts runs the Action's event consumer mode)",
  ],
];
const RUN = [
  "import { setupServer }",
  "import { setupWorker }",
  "import { startSandbox }",
  "import { createReference, manualClock }",
  "FAULT=token-per-call lckit client check",
  "FAULT=last-arrival lckit events consumer check",
  "lckit contract diff node_modules/lookup-conformance-kit/openapi/dist/lookup-data.yaml",
];

/** The README's blocks: none runs inside a test (each installs, runs the whole suite or needs a target). */
const README_SHOWN: [string, string][] = [
  ["npm ci && npm run conformance", "installs, then runs every check (the kit's own CI does)"],
  ["npm ci && npm test", "installs, then runs this suite"],
  [
    "npm i -D lookup-conformance-kit",
    "installs from the registry (test/package installs the packed tarball)",
  ],
  ["export ACME_VIEWER_ID=...", "a team's target file and credentials"],
  ["openapi/          platform.yaml", "the repository's layout, not a command"],
];

/** The README's blocks that run here as written, from a folder laid out like a clone. */
const README_RUN = ["npx lckit events publish --to stream.ndjson"];

/** Runs each line of a shell block (`NAME=value ... lckit <args>`) through the CLI in a folder laid out
 *  like a project that installed the kit (node_modules/lookup-conformance-kit linked to this checkout),
 *  as a user would paste it; `argsOf` may add flags a test needs. (test/package runs the same blocks
 *  from the packed tarball.) */
async function runShellBlock(
  text: string,
  prefix: string,
  argsOf: (args: string[]) => string[],
): Promise<{ codes: number[]; outputs: string[] }> {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(join(folder, "node_modules"));
  symlinkSync(repo, join(folder, "node_modules", "lookup-conformance-kit"));
  const codes: number[] = [];
  const outputs: string[] = [];
  for (const line of text.split("\n").filter((l) => l.trim() !== "")) {
    const words = line.trim().split(/\s+/);
    const env: Record<string, string> = {};
    while (/^[A-Z_]+=/.test(words[0] ?? "")) {
      const [name = "", value = ""] = (words.shift() as string).split("=");
      env[name] = value;
    }
    expect(words[0]).toBe("lckit");
    const io = { ...captureIo(), cwd: folder, env };
    codes.push(await main(argsOf(words.slice(1)), io));
    outputs.push(io.stdout());
  }
  return { codes, outputs };
}

describe("the README's code blocks", () => {
  const readme = blocks(readFileSync(join(repo, "README.md"), "utf8"));

  it("are each run here or listed with why they do not run in a test", () => {
    const unclaimed = readme.filter(
      (b) => ![...README_RUN, ...README_SHOWN.map(([marker]) => marker)].some((m) => b.text.includes(m)),
    );
    expect(unclaimed.map((b) => `line ${b.line}: ${b.text.split("\n")[0]}`)).toEqual([]);
  });

  it("the events publish and check run as written: every message conforms, and the report folder is written", async () => {
    const block = readme.find((b) => b.text.includes(README_RUN[0] as string));
    expect(block).toBeDefined();
    const folder = mkdtempSync(join(tmpdir(), "lckit-readme-"));
    const [publish = "", check = ""] = (block?.text ?? "")
      .split("\n")
      .map((l) => l.replace(/#.*$/, "").trim());
    const io = { ...captureIo(), cwd: folder };
    expect(await main(publish.split(/\s+/).slice(2), io)).toBe(0);
    expect(await main(check.split(/\s+/).slice(2), io)).toBe(0);
    expect(io.stdout()).toContain("result: every message conforms");
    expect(readdirSync(join(folder, "reports"))).toHaveLength(1);
  });
});

describe("docs/consumers.md code blocks run as written", () => {
  it("every block is run here or listed with why not", () => {
    const unclaimed = all.filter(
      (b) => ![...RUN, ...SHOWN.map(([marker]) => marker)].some((marker) => b.text.includes(marker)),
    );
    expect(unclaimed.map((b) => `line ${b.line}: ${b.text.split("\n")[0]}`)).toEqual([]);
    for (const marker of RUN)
      expect(
        all.some((b) => b.text.includes(marker)),
        marker,
      ).toBe(true);
  });

  it("MSW in Node: the handlers answer the team's base URL, and the clock moves as the block says", async () => {
    const block = find("ts", "import { setupServer }");
    const module = await runBlock(block, ["server", "sandbox"]);
    const server = module.server as { close(): void };
    try {
      const token = await fetch("https://api.example.test/oauth/token", {
        method: "POST",
        headers: {
          authorization: `Basic ${Buffer.from("order-service:order-service-secret").toString("base64")}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: "grant_type=client_credentials",
      });
      expect(token.status).toBe(200);
      const sandbox = module.sandbox as { control: { state(): { now: number } } };
      expect(sandbox.control.state().now).toBeGreaterThanOrEqual(3_600_000);
    } finally {
      server.close();
    }
  });

  it("MSW in a browser: the block bundles for the browser as written, its JSON import included", async () => {
    const block = find("ts", "import { setupWorker }");
    const folder = mkdtempSync(join(tmpdir(), "lckit-doc-browser-"));
    writeFileSync(
      join(folder, "team-sandbox.json"),
      JSON.stringify(parse(readFileSync(join(repo, "examples", "sandbox-data.yaml"), "utf8"))),
    );
    writeFileSync(join(folder, "page.ts"), withPackageImports(block.text, "path"));
    symlinkSync(join(repo, "node_modules"), join(folder, "node_modules"));
    const result = await build({
      entryPoints: [join(folder, "page.ts")],
      bundle: true,
      platform: "browser",
      format: "esm",
      write: false,
      logLevel: "silent",
    });
    expect(result.errors).toEqual([]);
    expect(result.outputFiles[0]?.text).toContain("api.example.test");
  }, 60_000);

  it("startSandbox(): serves on loopback and closes", async () => {
    const module = await runBlock(find("ts", "import { startSandbox }"), ["sandbox"]);
    const sandbox = module.sandbox as { baseUrl: string };
    expect(sandbox.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await expect(fetch(`${sandbox.baseUrl}/healthcheck`)).rejects.toThrow();
  });

  it("createReference() with a manual clock: the control calls and the block's own expect hold", async () => {
    const module = await runBlock(find("ts", "import { createReference, manualClock }"), ["sandbox"]);
    const sandbox = module.sandbox as { control: { state(): { now: number; variants: string[] } } };
    expect(sandbox.control.state().now).toBeGreaterThanOrEqual(3_600_000);
    expect(sandbox.control.state().variants).toEqual(["quota-refusal-409"]);
  });

  it("the example consumers, checked as the block says: the correct ones pass, FAULT=last-arrival breaks the order rule", async () => {
    const block = find("sh", "FAULT=last-arrival lckit events consumer check");
    // --quiet before the command (the last three words): the consumers' own output stays out of stdout.
    const { codes, outputs } = await runShellBlock(block.text, "lckit-doc-consumer-", (args) => [
      ...args.slice(0, -3),
      "--quiet",
      ...args.slice(-3),
    ]);
    expect(codes).toEqual([0, 1, 0]);
    expect(outputs[0]).toMatch(/^CONFORMANT: /);
    expect(outputs[1]).toMatch(/FAIL consumer\/latest-by-object-version .*it arrived after the latest one/);
    expect(outputs[2]).toMatch(/^CONFORMANT: .*delivered \(stdin/);
  }, 120_000);

  it("the example clients, checked as the block says: the correct one passes, FAULT=token-per-call is named, FAULT=short-page-is-last fails short-pages only", async () => {
    const block = find("sh", "FAULT=token-per-call lckit client check");
    const { codes, outputs } = await runShellBlock(block.text, "lckit-doc-sh-", (args) => args);
    expect(codes).toEqual([0, 1, 1]);
    expect(outputs[0]).toMatch(/^CONFORMANT: /);
    expect(outputs[1]).toMatch(/^NOT CONFORMANT: your command failed \(exit 1\)/);
    expect(outputs[1]).toMatch(/WARN client\/token-reuse .*requested a new token/);
    // The sweep of the third line: the default passes, short-pages is named with why it failed, and the
    // sweep's rule of differences names the short page taken for the end.
    expect(outputs[2]).toMatch(/^\[[12]\/2\] ok +default +command exit 0 /m);
    expect(outputs[2]).toMatch(
      /^\[[12]\/2\] FAIL short-pages +command exit 1 \(\d+\.\d s\); broken: (?:[^\n]*, )?client\/scan-read-under-every-choice \(MUST\)\n(?: +SHOULD: [^\n]*\n)? +the choice: /m,
    );
    expect(outputs[2]).toContain("client check over 2 provider choice(s): 1 passed, 1 did not (short-pages)");
  }, 120_000);

  it("lckit contract diff of the two layers prints what the block shows", async () => {
    const block = find(
      "sh",
      "lckit contract diff node_modules/lookup-conformance-kit/openapi/dist/lookup-data.yaml",
    );
    const [command = "", shown = ""] = block.text.split("\n");
    // The package's files are this checkout's.
    const io = { ...captureIo(), cwd: repo };
    await main(
      command.replaceAll("node_modules/lookup-conformance-kit/", "").trim().split(/\s+/).slice(1),
      io,
    );
    expect(io.stdout()).toContain(shown.replace(/^#\s*/, "").trim());
  });
});
