// Runs a Node script (argv[2], with the arguments after it) and prints the process's peak resident set
// size on stderr when it exits, so a test can bound the memory a run took whatever the target sent.
import { pathToFileURL } from "node:url";

process.on("exit", () => {
  process.stderr.write(`LCKIT_PEAK_RSS_KB=${process.resourceUsage().maxRSS}\n`);
});
const [script, ...rest] = process.argv.slice(2);
process.argv = [process.argv[0], script, ...rest];
await import(pathToFileURL(script).href);
