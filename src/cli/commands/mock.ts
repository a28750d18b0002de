// `lckit mock`: serves the two OpenAPI documents with Prism on loopback until SIGINT or SIGTERM.

import { defaultPorts, type MockServer, PortInUseError, startMock } from "../../mock/index.ts";
import { untilStopSignal } from "../../session/signals.ts";
import { option, parseArgv, toggle, type Values } from "../argv.ts";
import { defineCommand } from "../command.ts";
import { integer, type ParseContext, port } from "../flags.ts";
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

const spec = {
  name: "mock",
  summary: "serve the OpenAPI documents with the Prism mock on loopback",
  synopsis: "[--platform-port N] [--lookup-data-port N] [--dynamic --seed N] [--verbose] [--help]",
  about: `Serves openapi/platform.yaml ({base_url}) and openapi/lookup-data.yaml ({rdm_url}) with the Prism mock on
127.0.0.1 until interrupted (Ctrl-C, SIGTERM). Prism checks requests against the contract and answers with
the documents' examples. A data request without Authorization gets 401; a request the contract refuses
gets 400 (as from lckit serve) with an application/problem+json body whose "violations" name, for each
departure, the location, the field, the rule and the value sent. Each refusal is also printed on stderr.`,
  flags: {
    "platform-port": option("N", port({ allowZero: false, example: "4010" }), "port of the {base_url} mock", {
      default: defaultPorts.platform,
      example: String(defaultPorts.platform),
    }),
    "lookup-data-port": option(
      "N",
      port({ allowZero: false, example: "4011" }),
      "port of the {rdm_url} mock",
      { default: defaultPorts["lookup-data"], example: String(defaultPorts["lookup-data"]) },
    ),
    dynamic: toggle(
      "answer with realistic data generated from the schemas (recent timestamps, dotted versions, fixture " +
        "tenant, lookup types and codes; pages within the requested limit), reproducibly for --seed N; " +
        "without it the documents' static examples are served",
    ),
    // Kept as the text given: it goes to Prism's generator as it was typed.
    seed: option("N", integerText, "seed of the generated answers (with --dynamic, which needs it)", {
      example: "42",
    }),
    verbose: toggle("also print Prism's own log lines on stderr (requests, matched examples, violations)", {
      short: "v",
    }),
  },
  notes: "Prints the two base URLs on stdout, one per line: platform <url>, lookup-data <url>.",
};

/** An integer, returned as typed. */
function integerText(raw: string, flag: string, ctx: ParseContext): string {
  integer({ example: "42" })(raw, flag, ctx);
  return raw;
}

/** Parses the flags of \`lckit mock\`; throws UsageError naming the offending flag. */
export function parseMockArgs(argv: string[]): MockArgs {
  const parsed = parseArgv(spec, argv);
  if (parsed.help)
    return {
      help: true,
      verbose: false,
      platformPort: defaultPorts.platform,
      lookupDataPort: defaultPorts["lookup-data"],
    };
  return mockArgs(parsed.values);
}

/** The cross-flag rules of lckit mock, on the parsed flags. */
function mockArgs(values: Values<typeof spec.flags>): MockArgs {
  if (values.dynamic && values.seed === undefined)
    throw new UsageError(
      "--dynamic needs --seed N so that generated responses are reproducible, e.g. --dynamic --seed 42.",
    );
  if (!values.dynamic && values.seed !== undefined)
    throw new UsageError(
      "--seed applies to generated responses only; add --dynamic (e.g. --dynamic --seed 42).",
    );
  if (values["platform-port"] === values["lookup-data-port"])
    throw new UsageError(
      `--platform-port and --lookup-data-port must differ, both are ${values["platform-port"]}.`,
    );
  return {
    help: false,
    verbose: values.verbose,
    platformPort: values["platform-port"],
    lookupDataPort: values["lookup-data-port"],
    ...(values.seed === undefined ? {} : { seed: values.seed }),
  };
}

async function run(args: MockArgs, io: CliIo): Promise<number> {
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
  const signal = await untilStopSignal();
  io.err(`lckit mock: ${signal}, stopping Prism (PIDs ${mock.pids.platform}, ${mock.pids["lookup-data"]})\n`);
  await mock.stop();
  return 0;
}

export const command = defineCommand(spec, ({ values }, io) => run(mockArgs(values), io));
