// --help is written from the declarations: every command and subcommand answers it, lists each flag it
// parses, and lckit --help lists every command. The docs name only flags that exist.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type CommandSpec, option, toggle, usageLine } from "../../src/cli/argv.ts";
import { text } from "../../src/cli/flags.ts";
import { flagLines, wrap } from "../../src/cli/help.ts";
import { loadCommands, main } from "../../src/cli/main.ts";
import { captureIo } from "./capture-io.ts";

const commands = await loadCommands();
/** Every command that parses flags: the plain ones and each subcommand. */
const leaves: CommandSpec[] = commands.flatMap((c) => c.subcommands ?? [c.spec as CommandSpec]);

describe("--help from the declarations", () => {
  it.each(leaves.map((spec) => [spec.name, spec] as const))(
    "lckit %s --help lists every flag it parses",
    async (name, spec) => {
      const io = captureIo();
      expect(await main([...name.split(" "), "--help"], io)).toBe(0);
      const help = io.stdout();
      expect(help.startsWith(`Usage: ${usageLine(spec)}\n`)).toBe(true);
      for (const [flag, declared] of Object.entries(spec.flags)) {
        expect(help).toMatch(
          new RegExp(
            `^ {2}--${flag}\\b${declared.placeholder ? `.* ${declared.placeholder.replace(/[|.*+?^${}()[\]\\]/g, "\\$&")}` : ""}`,
            "m",
          ),
        );
        expect(help.replace(/\s+/g, " ")).toContain(wrap(declared.description, 1000)[0]?.slice(0, 40));
      }
      expect(help).toMatch(/^ {2}--help, -h {2,}this text$/m);
    },
  );

  it.each(commands.filter((c) => c.subcommands).map((c) => [c.spec.name, c] as const))(
    "lckit %s --help lists each subcommand with its usage line",
    async (name, command) => {
      const io = captureIo();
      expect(await main([name, "--help"], io)).toBe(0);
      for (const sub of command.subcommands ?? []) {
        expect(io.stdout()).toContain(sub.summary);
        expect(io.stdout()).toContain(usageLine(sub));
      }
    },
  );

  it("lckit --help lists every command and subcommand with its summary", async () => {
    const io = captureIo();
    expect(await main(["--help"], io)).toBe(0);
    for (const spec of [...commands.map((c) => c.spec), ...leaves])
      expect(io.stdout()).toContain(`${spec.name} `);
    for (const spec of [...commands.map((c) => c.spec), ...leaves])
      expect(io.stdout()).toContain(spec.summary);
  });

  it.each([
    [["help", "run"], "run"],
    [["help", "events", "check"], "events check"],
  ])("%j prints the help of lckit %s", async (argv, name) => {
    const io = captureIo();
    expect(await main(argv, io)).toBe(0);
    expect(io.stdout()).toMatch(new RegExp(`^Usage: lckit ${name} `));
  });

  it("a subcommand's --help names its siblings", async () => {
    const io = captureIo();
    expect(await main(["report", "diff", "--help"], io)).toBe(0);
    expect(io.stdout()).toMatch(/Other subcommands:\n {2}lckit report verify DIR/);
  });

  it.each<[string, { flag: ReturnType<typeof option<string>> | ReturnType<typeof toggle>; want: string[] }]>([
    [
      "a flag with its default",
      {
        flag: option("N", text, "runs per property", { default: "25" }),
        want: ["  --runs N              runs per property (default 25)"],
      },
    ],
    [
      "a switch with a short name",
      { flag: toggle("be loud", { short: "v" }), want: ["  --runs, -v            be loud"] },
    ],
    [
      "a long description, wrapped under its column",
      {
        flag: option("N", text, "word ".repeat(30).trim()),
        want: [
          `  --runs N              ${"word ".repeat(16).trim()}`,
          `${" ".repeat(24)}${"word ".repeat(14).trim()}`,
        ],
      },
    ],
  ])("writes %s", (_name, { flag, want }) => {
    expect(flagLines("runs", flag)).toEqual(want);
  });
});

describe("the docs name only declared flags", () => {
  const root = join(new URL(".", import.meta.url).pathname, "..", "..");
  const docs = [
    "README.md",
    ...readdirSync(join(root, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => join("docs", f)),
  ];
  const flagsOf = new Map(leaves.map((spec) => [spec.name, new Set(["help", ...Object.keys(spec.flags)])]));
  const groups = new Set(commands.filter((c) => c.subcommands).map((c) => c.spec.name));

  /** Each `lckit <command> ... --flag` of a doc line, up to the end of its code span, comment or pipe. */
  function mentions(doc: string): { command: string; flag: string; line: string }[] {
    const found: { command: string; flag: string; line: string }[] = [];
    for (const line of doc.split("\n"))
      for (const m of line.matchAll(/\blckit ([a-z]+)(?: ([a-z]+))?([^`|;#&]*)/g)) {
        const [, first = "", second, rest = ""] = m;
        const command = groups.has(first) && second !== undefined ? `${first} ${second}` : first;
        if (!flagsOf.has(command)) continue;
        for (const f of rest.matchAll(/(?:^|\s)--([a-z][a-z-]*)/g))
          found.push({ command, flag: f[1] ?? "", line });
      }
    return found;
  }

  it("finds the mentions it checks (README's lckit run --target ... --fail-on)", () => {
    const readme = mentions(readFileSync(join(root, "README.md"), "utf8"));
    expect(readme).toContainEqual(expect.objectContaining({ command: "run", flag: "fail-on" }));
    expect(mentions("`lckit run --no-such-flag`")).toEqual([
      { command: "run", flag: "no-such-flag", line: "`lckit run --no-such-flag`" },
    ]);
  });

  it.each(docs)("%s", (file) => {
    const unknown = mentions(readFileSync(join(root, file), "utf8"))
      .filter(({ command, flag }) => !flagsOf.get(command)?.has(flag))
      .map(({ command, flag, line }) => `lckit ${command} --${flag} in: ${line.trim()}`);
    expect(unknown).toEqual([]);
  });
});
