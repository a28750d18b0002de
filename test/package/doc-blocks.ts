// The code blocks of README.md and docs/*.md a user would paste (sh, bash, js, mjs), for the package test
// to run in a project that installed the packed tarball. A block that cannot run there says why in an HTML
// comment right before its fence, `<!-- not-run: reason -->`; every other block must run as written.
// (TypeScript blocks are run against the sources by test/consumers/docs-code-blocks.test.ts.)
import { execFile } from "node:child_process";
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
}

const RUNNABLE: Record<string, DocBlock["lang"]> = { sh: "sh", bash: "sh", shell: "sh", js: "js", mjs: "js" };
const NOT_RUN = /^\s*<!--\s*not-run:\s*(.*?)\s*-->\s*$/;
const EXITS = /^\s*<!--\s*exits:\s*([\d ]+?)\s*-->\s*$/;

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
      out.push({
        file,
        line: i + 1,
        lang,
        text: body.join("\n"),
        ...(reason === undefined ? {} : { notRun: reason }),
        ...(exits === undefined ? {} : { exits: exits.split(/\s+/).map(Number) }),
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
        env: {
          ...process.env,
          NO_COLOR: "1",
          PATH: `${join(cwd, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
          ...env,
        },
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
