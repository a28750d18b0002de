// How every command reads its argv: it declares its flags once (name, value, default, description) and this
// file parses argv against that declaration with node:util parseArgs. The same declaration writes the
// command's --help (see help.ts), so the help cannot drift from what is parsed.
import { parseArgs } from "node:util";
import { unknownName } from "../did-you-mean.ts";
import { UsageError } from "../usage-error.ts";
import type { ParseContext, Parser } from "./flags.ts";

/** One flag of a command. `T` is what the command receives for it (the default when it is absent). */
export interface Flag<T> {
  readonly kind: "value" | "switch";
  /** What the value looks like in help and messages: FILE, N, LIST. Empty for switches. */
  readonly placeholder: string;
  /** once: one value; many: repeatable, every value kept; the parser turns one occurrence into values. */
  readonly repeat: "once" | "many";
  readonly parse: Parser<unknown>;
  readonly description: string;
  readonly default: T;
  /** How help shows the default when it is not simply the value (computed, "random", "all"). */
  readonly defaultText?: string;
  /** An example value for "needs a value" messages. */
  readonly example: string;
  readonly short?: string;
  /** Help shows the flag under this heading instead of "Options". */
  readonly section?: string;
}

export type FlagSet = Record<string, Flag<unknown>>;

/** What a declaration parses to: each flag's value by the flag's name. */
export type Values<F extends FlagSet> = { [K in keyof F]: F[K] extends Flag<infer T> ? T : never };

interface FlagOptions {
  short?: string;
  defaultText?: string;
  example?: string;
  section?: string;
}

/** A flag with a value, given at most once: `--runs 25`, `--runs=25`. */
export function option<T>(
  placeholder: string,
  parse: Parser<T>,
  description: string,
  options: FlagOptions & { default: T },
): Flag<T>;
export function option<T>(
  placeholder: string,
  parse: Parser<T>,
  description: string,
  options?: FlagOptions,
): Flag<T | undefined>;
export function option<T>(
  placeholder: string,
  parse: Parser<T>,
  description: string,
  options: FlagOptions & { default?: T } = {},
): Flag<T | undefined> {
  return {
    kind: "value",
    placeholder,
    repeat: "once",
    parse,
    description,
    default: options.default,
    example: options.example ?? (options.default === undefined ? placeholder : String(options.default)),
    ...pick(options),
  };
}

/** A flag that may be given again to add values (`--check a --check b`); a parser that returns a list
 *  (`--allow write,quota`) adds each item. Absent: no values. */
export function repeatable<T>(
  placeholder: string,
  parse: Parser<T | T[]>,
  description: string,
  options: FlagOptions = {},
): Flag<T[]> {
  return {
    kind: "value",
    placeholder,
    repeat: "many",
    parse,
    description,
    default: [],
    example: options.example ?? placeholder,
    ...pick(options),
  };
}

/** A flag without a value: present or not. */
export function toggle(description: string, options: Omit<FlagOptions, "example"> = {}): Flag<boolean> {
  return {
    kind: "switch",
    placeholder: "",
    repeat: "once",
    parse: () => true,
    description,
    default: false,
    example: "",
    ...pick(options),
  };
}

function pick(options: FlagOptions) {
  return {
    ...(options.short === undefined ? {} : { short: options.short }),
    ...(options.defaultText === undefined ? {} : { defaultText: options.defaultText }),
    ...(options.section === undefined ? {} : { section: options.section }),
  };
}

/** Every command has --help (-h); it is not declared by each. */
export const helpFlag = toggle("this text", { short: "h" });

/** What a command declares about itself; help.ts writes its --help from this. */
export interface CommandSpec<F extends FlagSet = FlagSet> {
  /** As typed after `lckit`: "run", "events check". */
  name: string;
  /** One line for the list of commands. */
  summary: string;
  /** The arguments that are not flags, as usage shows them: "JOURNAL", "OLD NEW", "[PATH...]".
   *  Absent: the command takes none, and one given is refused. */
  positionals?: string;
  /** Replaces the generated flag part of the usage line, where flags belong together (`--dynamic --seed N`). */
  synopsis?: string;
  /** What the command does, between the usage line and the options. */
  about?: string;
  flags: F;
  /** After the options: exit codes, what happens on Ctrl-C. */
  notes?: string;
}

export type ParsedArgv<F extends FlagSet> =
  | { help: true }
  | { help: false; values: Values<F>; positionals: string[]; given: ReadonlySet<keyof F & string> };

/** The usage line: "lckit pact verify [--target FILE] [--pact-dir DIR] [--help]", or with "[options]"
 *  where the flags are too many to list. */
export function usageLine(spec: CommandSpec): string {
  const flags = Object.entries(spec.flags);
  const listed =
    spec.synopsis ??
    (flags.length <= 3
      ? [
          ...flags.map(([name, f]) => `[--${name}${f.placeholder ? ` ${f.placeholder}` : ""}]`),
          "[--help]",
        ].join(" ")
      : "[options]");
  return ["lckit", spec.name, spec.positionals, listed].filter(Boolean).join(" ");
}

function usageError(spec: CommandSpec, message: string): UsageError {
  return new UsageError(`${message}\nUsage: ${usageLine(spec)}`);
}

/** Parses argv against the declaration. Refuses, naming the flag: an unknown flag (with the nearest
 *  known one), a missing value, a value on a switch, a single-value flag given twice, a value the flag's
 *  parser refuses, and arguments where the command takes none. --help wins over every value problem. */
export function parseArgv<F extends FlagSet>(
  spec: CommandSpec<F>,
  argv: readonly string[],
  ctx: ParseContext = { cwd: process.cwd() },
): ParsedArgv<F> {
  const declared: Record<string, Flag<unknown>> = { help: helpFlag, ...spec.flags };
  const options = Object.fromEntries(
    Object.entries(declared).map(([name, f]) => [
      name,
      {
        type: f.kind === "value" ? ("string" as const) : ("boolean" as const),
        multiple: true,
        ...(f.short === undefined ? {} : { short: f.short }),
      },
    ]),
  );
  // Not strict: node's own strict errors are prose without the flag as data; the checks below are the
  // strict ones, and each can name the flag, suggest the nearest one, and show the usage line.
  const { tokens } = parseArgs({
    args: [...argv],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const known = Object.keys(declared).map((name) => `--${name}`);
  const raw = new Map<string, string[]>();
  const positionals: string[] = [];
  let help = false;
  for (const token of tokens) {
    if (token.kind === "positional") {
      positionals.push(token.value);
      continue;
    }
    if (token.kind === "option-terminator") continue;
    const flag = declared[token.name];
    const shown = token.rawName;
    if (flag === undefined) {
      throw usageError(
        spec,
        `${unknownName("option", shown, known)} ` + `See lckit ${spec.name} --help for its options.`,
      );
    }
    const name = `--${token.name}`;
    if (flag.kind === "switch") {
      if (token.value !== undefined)
        throw usageError(spec, `${name} takes no value, got "${name}=${token.value}"; give ${name} alone`);
      if (token.name === "help") help = true;
      raw.set(token.name, [...(raw.get(token.name) ?? []), ""]);
      continue;
    }
    // A separate argument starting with "--" is the next flag, not a value: "--pact-dir --target x"
    // forgot the directory. A value that starts with "--" can be given as --flag=--value.
    const value = token.value;
    if (value === undefined || value === "" || (!token.inlineValue && value.startsWith("--")))
      throw usageError(spec, `${name} needs a value, e.g. ${name} ${flag.example}`);
    const earlier = raw.get(token.name) ?? [];
    if (flag.repeat === "once" && earlier.length > 0)
      throw usageError(spec, `${name} was given twice ("${earlier[0]}" and "${value}"); give it once`);
    raw.set(token.name, [...earlier, value]);
  }
  if (help) return { help: true };
  if (spec.positionals === undefined && positionals.length > 0)
    throw usageError(
      spec,
      `unexpected argument "${positionals[0]}": lckit ${spec.name} takes options only, and options start with --`,
    );
  const values: Record<string, unknown> = {};
  const given = new Set<string>();
  for (const [name, flag] of Object.entries(spec.flags)) {
    const texts = raw.get(name);
    if (texts === undefined) {
      values[name] = flag.default;
      continue;
    }
    given.add(name);
    const flagName = `--${name}`;
    if (flag.kind === "switch") values[name] = true;
    else if (flag.repeat === "once") values[name] = flag.parse(texts[0] as string, flagName, ctx);
    else values[name] = texts.flatMap((t) => flag.parse(t, flagName, ctx));
  }
  return {
    help: false,
    values: values as Values<F>,
    positionals,
    given: given as ReadonlySet<keyof F & string>,
  };
}
