// After tsc: the generated JavaScript modules of src/generated (ajv's standalone validators) and their
// declaration files go into dist/ beside the compiled TypeScript, which tsc neither compiles nor copies.
import { copyFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const from = "src/generated";
const to = join("dist", "src", "generated");
const copied = readdirSync(from).filter((name) => name.endsWith(".js") || name.endsWith(".d.ts"));
for (const name of copied) copyFileSync(join(from, name), join(to, name));
console.error(`build: copied ${copied.join(", ")} to ${to}`);
