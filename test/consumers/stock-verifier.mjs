#!/usr/bin/env node
// A Pact provider verification that is NOT lckit's: Pact's own (Rust) verifier through
// @pact-foundation/pact-core, the engine of the Pact CLI verifier, configured only with what any provider
// team has: the provider's URL, Pact's state-change URL, a message URL and the pact files. No request
// filter, no state handlers in this process. Prints one JSON line {ok, failures: [...]}; exit 0 when every
// interaction verified, 1 when some failed, 2 on bad usage.
//
//   node test/consumers/stock-verifier.mjs --provider-base-url URL --state-change-url URL \
//     [--message-url URL] PACT.json...
import { resolve } from "node:path";
import pactCore from "@pact-foundation/pact-core";

process.env.PACT_DO_NOT_TRACK = "true";

const args = process.argv.slice(2);
const options = { pacts: [] };
for (let index = 0; index < args.length; index++) {
  const arg = args[index];
  const value = () => {
    const next = args[++index];
    if (next === undefined) usage(`${arg} needs a value`);
    return next;
  };
  if (arg === "--provider-base-url") options.base = value();
  else if (arg === "--state-change-url") options.states = value();
  else if (arg === "--message-url") options.messages = value();
  else if (arg.startsWith("--")) usage(`unknown option ${arg}`);
  else options.pacts.push(resolve(arg));
}
if (!options.base || !options.states || options.pacts.length === 0)
  usage("--provider-base-url, --state-change-url and at least one pact file are required");

function usage(message) {
  process.stderr.write(`stock-verifier: ${message}\n`);
  process.exit(2);
}

const transports = [];
if (options.messages) {
  const url = new URL(options.messages);
  transports.push({ protocol: "message", port: Number(url.port), path: url.pathname, scheme: "http" });
}

let text;
let ok;
try {
  text = await pactCore.verifyPacts({
    provider: "lookup-data-interface",
    providerBaseUrl: options.base,
    pactUrls: options.pacts,
    providerStatesSetupUrl: options.states,
    transports,
    logLevel: "error",
    timeout: 30_000,
  });
  ok = true;
} catch (error) {
  text = error instanceof Error ? error.message : String(error);
  ok = false;
}
let failures = [];
try {
  const result = JSON.parse(text);
  failures = (result.errors ?? []).map((entry) => ({
    interaction: entry.interaction,
    mismatch: JSON.stringify(entry.mismatch ?? entry).slice(0, 400),
  }));
  ok = ok && result.result !== false;
} catch {
  failures = [{ interaction: "(verifier)", mismatch: String(text).slice(0, 400) }];
  ok = false;
}
process.stdout.write(`${JSON.stringify({ ok, failures })}\n`);
process.exitCode = ok && failures.length === 0 ? 0 : 1;
