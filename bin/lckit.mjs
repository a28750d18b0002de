#!/usr/bin/env node
// Entry point of the kit's CLI. The installed package runs the compiled JavaScript in dist/ (no TypeScript
// loader at run time). A clone of the repository has src/ and its dev dependencies instead: there tsx's
// loader runs the sources, so a stale dist/ from an earlier `npm run build` is never what runs.
import { existsSync } from "node:fs";

const source = new URL("../src/cli/main.ts", import.meta.url);
let cli;
if (existsSync(source) && process.env.LCKIT_USE_DIST !== "1") {
  const { register } = await import("tsx/esm/api");
  register();
  ({ cli } = await import(source.href));
} else {
  ({ cli } = await import("../dist/src/cli/main.js"));
}
await cli(process.argv.slice(2));
