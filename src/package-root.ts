// Where the kit's own data files live (openapi/, event-schemas/, requirements/, fixtures/, report schema):
// the package root, found the same way whether this module runs from src/ (a clone, tests, tsx) or from
// dist/src/ (the installed package), so no caller counts "../" levels that differ between the two.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_NAME = "lookup-conformance-kit";

function findPackageRoot(start: string): string {
  let dir = start;
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === PACKAGE_NAME)
          return dir;
      } catch {
        // an unreadable manifest on the way up is not ours: keep looking
      }
    }
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error(
        `cannot find the ${PACKAGE_NAME} package root above ${start}: its package.json is missing; reinstall the kit`,
      );
    dir = parent;
  }
}

/** Absolute path of the package root (the directory holding the kit's package.json). */
export const packageRoot: string = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** Absolute path of a file or directory of the package, e.g. packagePath("openapi", "platform.yaml"). */
export function packagePath(...segments: string[]): string {
  return join(packageRoot, ...segments);
}
