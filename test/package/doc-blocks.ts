// The code blocks of README.md and docs/*.md a user would paste (sh, bash, js, mjs), for the package test
// to run in a project that installed the packed tarball. A block that cannot run there says why in an HTML
// comment right before its fence, `<!-- not-run: reason -->`; every other block must run as written.
// A block that calls a running sandbox says `<!-- with: lckit serve -->` (the test serves one on the kit's
// default ports while it runs); a block that is itself a server until Ctrl-C says `<!-- serves -->` (the
// test waits until it serves, then stops it by its PID). A block written for the RabbitMQ node npm test
// starts on 127.0.0.1:5672 (guest) says `<!-- with: rabbitmq -->`.
// (TypeScript blocks are run against the sources by test/consumers/docs-code-blocks.test.ts.)
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface DocBlock {
  /** The Markdown file, relative to the repository ("docs/consumers.md"). */
  file: string;
  /** Line of the opening fence (from 1). */
  line: number;
  lang: "sh" | "js";
  text: string;
  /** Why it is not run, from its `<!-- not-run: reason -->` comment; undefined: it must run. */
  notRun?: string;
  /** From `<!-- exits: 0 1 1 -->`: a shell block whose lines are run one by one, each with its exit code
   *  (a block that shows a broken example failing); without it the whole block must exit 0. */
  exits?: number[];
  /** From `<!-- with: lckit serve -->`: it calls the sandbox `lckit serve` serves on its default ports. */
  withServe?: true;
  /** From `<!-- serves -->`: one command that serves until stopped. */
  serves?: true;
  /** From `<!-- with: rabbitmq -->`: it publishes to or reads from the RabbitMQ node on 127.0.0.1:5672. */
  withRabbit?: true;
}

const RUNNABLE: Record<string, DocBlock["lang"]> = { sh: "sh", bash: "sh", shell: "sh", js: "js", mjs: "js" };
const NOT_RUN = /^\s*<!--\s*not-run:\s*(.*?)\s*-->\s*$/;
const EXITS = /^\s*<!--\s*exits:\s*([\d ]+?)\s*-->\s*$/;
const WITH_SERVE = /^\s*<!--\s*with:\s*lckit serve\s*-->\s*$/;
const SERVES = /^\s*<!--\s*serves\s*-->\s*$/;
const WITH_RABBIT = /^\s*<!--\s*with:\s*rabbitmq\s*-->\s*$/;

/** The runnable blocks of one Markdown text, a list item's indentation taken off their lines. */
export function blocksOf(file: string, markdown: string): DocBlock[] {
  const out: DocBlock[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)```(\w*)\s*$/.exec(lines[i] as string);
    if (!open) continue;
    const indent = (open[1] as string).length;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^ *```\s*$/.test(lines[j] as string); j++)
      body.push((lines[j] as string).slice(indent));
    const lang = RUNNABLE[open[2] as string];
    if (lang !== undefined) {
      let k = i - 1;
      while (k >= 0 && (lines[k] as string).trim() === "") k--;
      const reason = NOT_RUN.exec(lines[k] ?? "")?.[1];
      const exits = EXITS.exec(lines[k] ?? "")?.[1];
      const marker = lines[k] ?? "";
      out.push({
        file,
        line: i + 1,
        lang,
        text: body.join("\n"),
        ...(reason === undefined ? {} : { notRun: reason }),
        ...(exits === undefined ? {} : { exits: exits.split(/\s+/).map(Number) }),
        ...(WITH_SERVE.test(marker) ? { withServe: true as const } : {}),
        ...(SERVES.test(marker) ? { serves: true as const } : {}),
        ...(WITH_RABBIT.test(marker) ? { withRabbit: true as const } : {}),
      });
    }
    i = j;
  }
  return out;
}

/** Every runnable block of README.md and docs/*.md. */
export function docBlocks(repo: string): DocBlock[] {
  const files = [
    "README.md",
    ...readdirSync(join(repo, "docs"))
      .filter((f) => f.endsWith(".md"))
      .sort()
      .map((f) => `docs/${f}`),
  ];
  return files.flatMap((file) => blocksOf(file, readFileSync(join(repo, file), "utf8")));
}

export interface BlockRun {
  code: number;
  output: string;
  /** With `exits`: each command line's exit code, in order. */
  codes?: number[];
}

/** A shell block's command lines: comments and blank lines out, continued lines joined. */
export function commandLines(text: string): string[] {
  return text
    .replace(/\\\n/g, " ")
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.trim().startsWith("#"));
}

/** Runs a block in `cwd` as a user would paste it: a shell block with `sh -e` (node_modules/.bin on PATH,
 *  as in an npm script), a JavaScript block as an ES module there. */
export async function runDocBlock(
  block: DocBlock,
  cwd: string,
  node: string,
  env: Record<string, string> = {},
): Promise<BlockRun> {
  if (block.serves) return runServer(commandLines(block.text), cwd, env);
  if (block.withServe) {
    const sandbox = await serving(["sh", "-c", `exec "${node}" node_modules/.bin/lckit serve`], cwd, env);
    if (sandbox.code !== undefined)
      return { code: 1, output: `lckit serve did not start:\n${sandbox.output()}` };
    try {
      return await runDocBlock({ ...block, withServe: undefined }, cwd, node, env);
    } finally {
      await sandbox.stop();
    }
  }
  const name = `doc-block-${block.file.replace(/\W+/g, "-")}-${block.line}`;
  if (block.exits !== undefined) {
    const codes: number[] = [];
    let output = "";
    for (const [i, line] of commandLines(block.text).entries()) {
      const file = join(cwd, `${name}-${i + 1}.sh`);
      writeFileSync(file, `${line}\n`);
      const ran = await execute("sh", [file], cwd, env);
      codes.push(ran.code);
      output += `$ ${line}\n${ran.output}`;
    }
    const code = codes.every((c, i) => c === block.exits?.[i]) && codes.length === block.exits.length ? 0 : 1;
    return { code, output, codes };
  }
  const file = join(cwd, `${name}.${block.lang === "sh" ? "sh" : "mjs"}`);
  writeFileSync(file, `${block.text}\n`);
  return block.lang === "sh" ? execute("sh", ["-e", file], cwd, env) : execute(node, [file], cwd, env);
}

function execute(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<BlockRun> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {
        cwd,
        env: shellEnv(cwd, env),
        maxBuffer: 64 * 1024 * 1024,
        timeout: 170_000,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

/** The environment a block runs in, as the shell would run it in `cwd`: node_modules/.bin on PATH, no
 *  colours, and the block's own variables over all. */
function shellEnv(cwd: string, env: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NO_COLOR: "1",
    PATH: `${join(cwd, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
    ...env,
  };
}

interface Serving {
  /** The exit code if it ended before it served (it could not start). */
  code?: number | null;
  output: () => string;
  /** SIGTERM to its PID; resolves with its exit code once it has ended. */
  stop: () => Promise<number | null>;
}

/** Starts a server in `cwd` (as the shell would, node_modules/.bin on PATH) and resolves once it says it
 *  serves (lckit serve's last start line, "Stop with Ctrl-C."), or once it has ended without serving. */
function serving(argv: string[], cwd: string, env: Record<string, string>): Promise<Serving> {
  const [command = "", ...args] = argv;
  const child: ChildProcess = spawn(command, args, {
    cwd,
    env: shellEnv(cwd, env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const ended = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    return ended;
  };
  return new Promise((resolve) => {
    const hear = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (/^Stop with Ctrl-C\.$/m.test(output)) resolve({ output: () => output, stop });
    };
    child.stdout?.on("data", hear);
    child.stderr?.on("data", hear);
    void ended.then((code) => resolve({ code, output: () => output, stop }));
  });
}

/** A block that serves until Ctrl-C: its one command run (exec'd, so the PID is the server's) until it
 *  serves, then stopped by SIGTERM; it must have served and then ended with exit 0. */
async function runServer(lines: string[], cwd: string, env: Record<string, string>): Promise<BlockRun> {
  if (lines.length !== 1)
    return { code: 1, output: `a <!-- serves --> block holds one command, this one ${lines.length}` };
  const server = await serving(["sh", "-c", `exec ${lines[0]}`], cwd, env);
  if (server.code !== undefined)
    return { code: 1, output: `it ended (${server.code}) before it served:\n${server.output()}` };
  const code = await server.stop();
  return { code: code ?? 1, output: server.output() };
}
