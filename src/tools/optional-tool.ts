// Tools only some commands need (Prism for `lckit mock`, Pact for `lckit pact verify`) are optional peer
// dependencies: `lckit run` and `lckit events check` must not make every user install ~150 MB of them.
// They are found with Node's own module resolution, from the kit's location first (the usual case: both
// installed in the same project) and then from the working directory (the kit installed globally or run
// with npx, the tool installed in the project); when absent, the error names the install command (exit 2).

import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { UsageError } from "../usage-error.ts";

/** The optional tools the kit knows, with the version range it is tested with. */
export const OPTIONAL_TOOLS = {
  "@stoplight/prism-cli": { range: "5.12.0", usedBy: "lckit mock" },
  "@pact-foundation/pact": { range: "^16.5.0", usedBy: "lckit pact verify" },
} as const;

export type OptionalTool = keyof typeof OPTIONAL_TOOLS;

/** An optional tool is not installed: a usage error (exit 2) that says how to install it. */
export class MissingToolError extends UsageError {
  override name = "MissingToolError";
  constructor(readonly tool: OptionalTool) {
    const { range, usedBy } = OPTIONAL_TOOLS[tool];
    super(
      `${tool} is not installed; ${usedBy} needs it (an optional tool, so that the other commands stay small). ` +
        `Install it beside the kit: npm install --save-dev ${tool}@${range}`,
    );
  }
}

function resolveFrom(base: string, specifier: string): string | undefined {
  try {
    return createRequire(base).resolve(specifier);
  } catch {
    return undefined;
  }
}

/** Absolute path of a file of an optional tool (e.g. "package.json"), or throws MissingToolError. */
export function resolveOptional(tool: OptionalTool, file = "package.json", cwd = process.cwd()): string {
  const specifier = `${tool}/${file}`;
  const found = resolveFrom(import.meta.url, specifier) ?? resolveFrom(join(cwd, "noop.js"), specifier);
  if (found === undefined) throw new MissingToolError(tool);
  return found;
}

/** The tool's module namespace, loaded on first use. */
export async function importOptional<T>(tool: OptionalTool, cwd = process.cwd()): Promise<T> {
  const manifest = resolveOptional(tool, "package.json", cwd);
  const entry = createRequire(manifest).resolve(tool);
  return (await import(pathToFileURL(entry).href)) as T;
}

/** Absolute path of the script behind one of the tool's `bin` entries (run it with process.execPath). */
export function optionalBin(tool: OptionalTool, name: string, cwd = process.cwd()): string {
  const manifest = resolveOptional(tool, "package.json", cwd);
  const bin = (createRequire(manifest)(manifest) as { bin?: string | Record<string, string> }).bin;
  const script = typeof bin === "string" ? bin : bin?.[name];
  if (script === undefined)
    throw new Error(
      `${tool} at ${dirname(manifest)} has no "${name}" command; reinstall it (${OPTIONAL_TOOLS[tool].range})`,
    );
  return join(dirname(manifest), script);
}
