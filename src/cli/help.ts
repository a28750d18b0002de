// --help text written from the commands' declarations: usage line, what the command does, one line per
// flag with its value and default, then the notes. Nothing here is written by hand per command.
import { type CommandSpec, type Flag, helpFlag, usageLine } from "./argv.ts";

const WIDTH = 106;
const NAME_COLUMN = 24;

/** Words of `text` in lines of at most `width` characters (a longer word keeps its own line). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(line);
  return lines;
}

function defaultShown(flag: Flag<unknown>): string | undefined {
  if (flag.defaultText !== undefined) return flag.defaultText;
  const value = flag.default;
  if (value === undefined || value === false || (Array.isArray(value) && value.length === 0))
    return undefined;
  return Array.isArray(value) ? value.join(",") : String(value);
}

/** "  --runs N              runs per property (default 25)", wrapped under its description column. */
export function flagLines(name: string, flag: Flag<unknown>): string[] {
  const head = `  --${name}${flag.short ? `, -${flag.short}` : ""}${flag.placeholder ? ` ${flag.placeholder}` : ""}`;
  const shown = defaultShown(flag);
  const notes = [flag.repeat === "many" ? "repeatable" : "", shown === undefined ? "" : `default ${shown}`];
  const extra = notes.filter(Boolean).join("; ");
  const description = `${flag.description}${extra === "" ? "" : ` (${extra})`}`;
  const body = wrap(description, WIDTH - NAME_COLUMN);
  const indent = " ".repeat(NAME_COLUMN);
  if (head.length >= NAME_COLUMN - 1) return [head, ...body.map((l) => indent + l)];
  const [first = "", ...rest] = body;
  return [head.padEnd(NAME_COLUMN) + first, ...rest.map((l) => indent + l)];
}

/** The whole --help of one command. `siblings`: the other subcommands of its group, listed at the end. */
export function commandHelp(spec: CommandSpec, siblings: readonly CommandSpec[] = []): string {
  const sections = new Map<string, string[]>();
  for (const [name, flag] of [...Object.entries(spec.flags), ["help", helpFlag] as const]) {
    const title = flag.section ?? "Options";
    sections.set(title, [...(sections.get(title) ?? []), ...flagLines(name, flag)]);
  }
  const parts = [`Usage: ${usageLine(spec)}`];
  if (spec.about) parts.push(spec.about.trim());
  for (const [title, lines] of sections) parts.push(`${title}:\n${lines.join("\n")}`);
  if (spec.notes) parts.push(spec.notes.trim());
  if (siblings.length > 0)
    parts.push(
      `Other subcommands:\n${siblings.map((s) => `  ${usageLine(s)}\n      ${s.summary}`).join("\n")}`,
    );
  return `${parts.join("\n\n")}\n`;
}

/** What a command with subcommands (events, pact, report, contract) says about itself. */
export interface GroupSpec {
  name: string;
  summary: string;
  about?: string;
  notes?: string;
}

/** The --help of a command with subcommands: each subcommand's summary and usage line. */
export function groupHelp(group: GroupSpec, subcommands: readonly CommandSpec[]): string {
  const width = Math.max(...subcommands.map((s) => s.name.length - group.name.length));
  const parts = [`Usage: lckit ${group.name} <subcommand> [options]`];
  if (group.about) parts.push(group.about.trim());
  parts.push(
    `Subcommands:\n${subcommands
      .map((s) => `  ${s.name.slice(group.name.length + 1).padEnd(width)} ${s.summary}`)
      .join("\n")}`,
    subcommands.map((s) => `  ${usageLine(s)}`).join("\n"),
    `Run \`lckit ${group.name} <subcommand> --help\` for the options of each.`,
  );
  if (group.notes) parts.push(group.notes.trim());
  return `${parts.join("\n\n")}\n`;
}

/** `lckit --help`: every command and its summary, subcommands under their command. */
export function topLevelHelp(
  commands: readonly { spec: GroupSpec | CommandSpec; subcommands?: readonly CommandSpec[] }[],
): string {
  const lines: string[] = [];
  for (const { spec, subcommands } of commands) {
    lines.push(`  ${spec.name.padEnd(16)} ${spec.summary}`);
    for (const sub of subcommands ?? []) lines.push(`    ${sub.name.padEnd(14)} ${sub.summary}`);
  }
  return [
    "Usage: lckit <command> [options]",
    "",
    "Commands:",
    ...lines,
    "",
    "Run `lckit <command> --help` for the options of a command; `lckit --version` prints the version.",
    "",
  ].join("\n");
}
