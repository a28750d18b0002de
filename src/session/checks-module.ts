// The checks a session runs or a report is verified against: the kit's own (suites/index.ts), or those of a
// module named by LCKIT_CHECKS_MODULE (a module exporting allChecks: the kit's own CLI tests use it, and so
// can teams with extra checks of their own). Loaded in one place for lckit run and lckit report verify.
import { resolve } from "node:path";
import type { Check } from "../check/index.ts";

export const CHECKS_MODULE_ENV = "LCKIT_CHECKS_MODULE";

/** The checks module the environment names, relative to `cwd`; undefined: the kit's own. */
export function checksModuleOf(env: Readonly<Record<string, string | undefined>>): string | undefined {
  return env[CHECKS_MODULE_ENV] || undefined;
}

export async function loadChecks(cwd: string, checksModule?: string): Promise<Check[]> {
  const specifier = checksModule
    ? new URL(`file://${resolve(cwd, checksModule)}`).href
    : "../../suites/index.ts";
  const mod = (await import(specifier)) as { allChecks?: Check[] };
  if (!Array.isArray(mod.allChecks))
    throw new Error(`${checksModule ?? "suites/index.ts"} must export allChecks: Check[]`);
  return mod.allChecks;
}
