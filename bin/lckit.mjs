#!/usr/bin/env node
// Entry point of the kit's CLI. The installed package runs the compiled JavaScript in dist/ (no TypeScript
// loader at run time). A clone of the repository has src/ and its dev dependencies instead: there tsx's
// loader runs the sources, so a stale dist/ from an earlier `npm run build` is never what runs.
// LCKIT_USE_DIST=1 runs dist/ in a clone too (after `npm run build`).
import { existsSync } from "node:fs";

const source = new URL("../src/cli/main.ts", import.meta.url);
const compiled = new URL("../dist/src/cli/main.js", import.meta.url);

async function load() {
  if (existsSync(source) && process.env.LCKIT_USE_DIST !== "1") {
    let tsx;
    try {
      tsx = await import("tsx/esm/api");
    } catch {
      tsx = undefined;
    }
    if (tsx) {
      tsx.register();
      return import(source.href);
    }
    if (!existsSync(compiled)) {
      process.stderr.write(
        "lckit: this is a clone of the kit without its dev dependencies (no tsx) and without a build; " +
          "run `npm ci`, or `npm run build` and then lckit again\n",
      );
      process.exit(2);
    }
  }
  return import(compiled.href);
}

const { cli } = await load();
await cli(process.argv.slice(2));
