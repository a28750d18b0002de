// `lckit mock`: serves the two OpenAPI documents with Prism on loopback until SIGINT or SIGTERM.
import { defaultPorts, type MockServer, PortInUseError, startMock } from "../../mock/index.ts";
import type { Command } from "../command.ts";
import { type CliIo, UsageError } from "../io.ts";

export interface MockArgs {
  help: boolean;
  /** Prism's own log lines on stderr. */
  verbose: boolean;
  platformPort: number;
  lookupDataPort: number;
  /** Present only with --dynamic --seed N. */
  seed?: string;
}

const usage = `Usage: lckit mock [--platform-port N] [--lookup-data-port N] [--dynamic --seed N] [--verbose] [--help]

Serves openapi/platform.yaml ({base_url}) and openapi/lookup-data.yaml ({rdm_url}) with the Prism mock on
127.0.0.1 until interrupted (Ctrl-C, SIGTERM). Prism checks requests against the contract and answers with
the documents' examples. A data request without Authorization gets 401; a request the contract refuses
gets 400 (as from lckit serve) with an application/problem+json body whose "violations" name, for each
departure, the location, the field, the rule and the value sent. Each refusal is also printed on stderr.

Options:
  --platform-port N      port of the {base_url} mock (default ${defaultPorts.platform})
  --lookup-data-port N   port of the {rdm_url} mock (default ${defaultPorts["lookup-data"]})
  --dynamic --seed N     answer with realistic data generated from the schemas (recent timestamps,
                         dotted versions, fixture tenant, lookup types and codes; pages within the
                         requested limit), reproducibly for seed N; without these flags the
                         documents' static examples are served
  --verbose              also print Prism's own log lines on stderr (requests, matched examples, violations)
  --help                 this text

Prints the two base URLs on stdout, one per line: platform <url>, lookup-data <url>.
`;

/** Parses the flags of `lckit mock`; throws UsageError naming the offending flag. */
export function parseMockArgs(argv: string[]): MockArgs {
  const args: MockArgs = {
    help: false,
    verbose: false,
    platformPort: defaultPorts.platform,
    lookupDataPort: defaultPorts["lookup-data"],
  };
  let dynamic = false;
  let seed: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] ?? "";
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=") ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const value = (): string => {
      if (inline !== undefined) return inline;
      const next = argv[index + 1];
      if (next === undefined || next.startsWith("--"))
        throw new UsageError(`${flag} needs a value, e.g. ${flag} 4010. Run \`lckit mock --help\`.`);
      index++;
      return next;
    };
    switch (flag) {
      case "--help":
      case "-h":
        args.help = true;
        break;
      case "--platform-port":
        args.platformPort = port(flag, value());
        break;
      case "--lookup-data-port":
        args.lookupDataPort = port(flag, value());
        break;
      case "--dynamic":
        dynamic = true;
        break;
      case "--verbose":
      case "-v":
        args.verbose = true;
        break;
      case "--seed": {
        seed = value();
        if (!/^-?\d+$/.test(seed))
          throw new UsageError(`--seed expects an integer, got "${seed}". Example: --dynamic --seed 42.`);
        break;
      }
      default:
        throw new UsageError(
          `unknown option "${flag}". Expected --platform-port, --lookup-data-port, --dynamic, --seed, --verbose or --help.`,
        );
    }
  }
  if (dynamic && seed === undefined)
    throw new UsageError(
      "--dynamic needs --seed N so that generated responses are reproducible, e.g. --dynamic --seed 42.",
    );
  if (!dynamic && seed !== undefined)
    throw new UsageError(
      "--seed applies to generated responses only; add --dynamic (e.g. --dynamic --seed 42).",
    );
  if (args.platformPort === args.lookupDataPort)
    throw new UsageError(
      `--platform-port and --lookup-data-port must differ, both are ${args.platformPort}.`,
    );
  if (seed !== undefined) args.seed = seed;
  return args;
}

function port(flag: string, text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > 65535)
    throw new UsageError(`${flag} expects a port number 1..65535, got "${text}".`);
  return value;
}

function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      resolve(signal);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
}

async function run(argv: string[], io: CliIo): Promise<number> {
  const args = parseMockArgs(argv);
  if (args.help) {
    io.out(usage);
    return 0;
  }
  io.err(
    `lckit mock: starting Prism (${args.seed === undefined ? "static examples" : `dynamic, seed ${args.seed}`})\n`,
  );
  let mock: MockServer;
  try {
    mock = await startMock({
      platformPort: args.platformPort,
      lookupDataPort: args.lookupDataPort,
      ...(args.seed !== undefined ? { seed: args.seed } : {}),
      onRefusal: (line) => io.err(`lckit mock: refused ${line}\n`),
      ...(args.verbose ? { onLine: (line: string) => io.err(`prism ${line}\n`) } : {}),
    });
  } catch (error) {
    if (!(error instanceof PortInUseError)) throw error;
    const flag = error.port === args.platformPort ? "--platform-port" : "--lookup-data-port";
    throw new UsageError(`${error.message} (${flag} ${error.port}).`);
  }
  io.out(`platform ${mock.baseUrl}\nlookup-data ${mock.rdmUrl}\n`);
  io.err(`lckit mock: serving {base_url}=${mock.baseUrl} {rdm_url}=${mock.rdmUrl}; Ctrl-C stops\n`);
  const signal = await untilSignal();
  io.err(`lckit mock: ${signal}, stopping Prism (PIDs ${mock.pids.platform}, ${mock.pids["lookup-data"]})\n`);
  await mock.stop();
  return 0;
}

export const command: Command = {
  summary: "serve the OpenAPI documents with the Prism mock on loopback",
  run,
};
