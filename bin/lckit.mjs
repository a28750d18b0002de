#!/usr/bin/env node
// Entry point of the kit's CLI: Node 20 cannot run .ts itself, so tsx's loader is registered first.
import { register } from "tsx/esm/api";

register();
const { cli } = await import("../src/cli/main.ts");
await cli(process.argv.slice(2));
