// lckit serve: the stateful reference on loopback, for consumer teams and manual runs.

import {
  type createReference,
  FAULTS,
  type FaultName,
  isFaultName,
  isVariantName,
  VARIANTS,
  type VariantName,
} from "../../reference/index.ts";
import { startServedSandbox } from "../../session/served-sandbox.ts";
import { untilStopSignal } from "../../session/signals.ts";
import { option, parseArgv, repeatable, toggle, type Values } from "../argv.ts";
import { defineCommand } from "../command.ts";
import { integer, port, text } from "../flags.ts";
import { type CliIo, UsageError } from "../io.ts";

const portOf = (example: string) => port({ allowZero: true, example });

const spec = {
  name: "serve",
  summary: "serve the stateful reference implementation on loopback",
  about: "Serves the stateful reference implementation (both path sets) on loopback.",
  flags: {
    port: option("N", portOf("8180"), "port of {base_url}; 0 picks a free port", {
      default: 8180,
      example: "8180",
    }),
    "rdm-port": option("N", portOf("8181"), "serve the lookup-data paths ({rdm_url}) on this second port", {
      defaultText: "same port",
      example: "8181",
    }),
    host: option("HOST", text, "interface to bind", { default: "127.0.0.1", example: "127.0.0.1" }),
    "control-port": option(
      "N",
      portOf("8189"),
      "port of the control interface (always on 127.0.0.1, apart from the interface's paths): clock, variants, faults, latency, rate limit, reset, state; 0 picks a free port; see docs/consumers.md",
      { default: 8189, example: "8189" },
    ),
    lookups: option(
      "N",
      integer({ min: 0, max: 20_000_000, example: "1000000" }),
      "add N generated lookups to the tenant",
      { example: "1000000" },
    ),
    statistics: option(
      "N",
      integer({ min: 0, max: 20_000_000, example: "100000" }),
      "add N generated autopilot statistics to the tenant",
      { example: "100000" },
    ),
    data: option(
      "FILE",
      text,
      "serve your own world instead of the kit's fixtures: a YAML or JSON data file (tenants, customers, clients, lookups, statistics, blockedValues), validated before anything starts; see examples/sandbox-data.yaml",
      { example: "examples/sandbox-data.yaml" },
    ),
    tenant: option("ID", text, "tenant that receives generated data", { default: "acme", example: "acme" }),
    seed: option("N", integer({ min: 0, max: 2 ** 31 - 1, example: "42" }), "seed of the generated data", {
      default: 1,
      example: "42",
    }),
    fault: repeatable("NAME", faultName, "switch on a seeded fault; names: lckit serve --help-faults", {
      example: "scan-never-ends",
    }),
    "help-faults": toggle("list the seeded faults"),
    variant: repeatable(
      "NAME",
      variantName,
      "take another correct choice where the document is silent (at most one per choice); names: lckit serve --help-variants",
      { example: "delete-task-204" },
    ),
    "help-variants": toggle("list the variants"),
    "pact-port": option(
      "N",
      portOf("8181"),
      "also serve Pact's provider-state change URL (POST /_pact/provider-states) and message URL " +
        "(POST /_pact/messages) on this loopback port (0 picks one); see docs/pact.md",
      { example: "8181" },
    ),
  },
};

function faultName(raw: string, flag: string): FaultName {
  if (!isFaultName(raw))
    throw new UsageError(
      `${flag} expects a fault name, got "${raw}"; run lckit serve --help-faults for the list`,
    );
  return raw;
}

function variantName(raw: string, flag: string): VariantName {
  if (!isVariantName(raw))
    throw new UsageError(
      `${flag} expects a variant name, got "${raw}"; run lckit serve --help-variants for the list`,
    );
  return raw;
}

export interface ServeOptions {
  port: number;
  rdmPort?: number;
  host: string;
  lookups?: number;
  statistics?: number;
  tenant: string;
  seed: number;
  faults: FaultName[];
  variants: VariantName[];
  /** Port of the Pact state-change and message endpoints; absent: not served. */
  pactPort?: number;
  /** A data file replacing the fixture world. */
  data?: string;
  /** Port of the control interface on 127.0.0.1; absent or 0: a free one. */
  controlPort?: number;
}

export function parseServeArgs(argv: string[]): ServeOptions | "help" | "help-faults" | "help-variants" {
  const parsed = parseArgv(spec, argv);
  if (parsed.help) return "help";
  return serveOptions(parsed.values);
}

/** The options of lckit serve from its parsed flags; the list flags answer instead of serving. */
function serveOptions(values: Values<typeof spec.flags>): ServeOptions | "help-faults" | "help-variants" {
  if (values["help-faults"]) return "help-faults";
  if (values["help-variants"]) return "help-variants";
  const variants: VariantName[] = [];
  for (const name of values.variant) {
    const group = VARIANTS.find((v) => v.name === name)?.group;
    const rival = variants.find((v) => v !== name && VARIANTS.find((e) => e.name === v)?.group === group);
    if (rival) {
      throw new UsageError(
        `--variant ${name} and --variant ${rival} are alternatives of one choice (${group}); give at most one`,
      );
    }
    if (!variants.includes(name)) variants.push(name);
  }
  return {
    port: values.port,
    controlPort: values["control-port"],
    host: values.host,
    tenant: values.tenant,
    seed: values.seed,
    faults: values.fault,
    variants,
    ...(values["rdm-port"] === undefined ? {} : { rdmPort: values["rdm-port"] }),
    ...(values.lookups === undefined ? {} : { lookups: values.lookups }),
    ...(values.statistics === undefined ? {} : { statistics: values.statistics }),
    ...(values["pact-port"] === undefined ? {} : { pactPort: values["pact-port"] }),
    ...(values.data === undefined ? {} : { data: values.data }),
  };
}

const CREDENTIALS_HINT = `Fixture clients (client_id / client_secret, HTTP Basic on POST /oauth/token):
  acme-admin / acme-admin-secret      ROLE_ADMIN_TENANT_acme
  acme-editor / acme-editor-secret    ROLE_RDM_EDIT (tenant acme)
  acme-viewer / acme-viewer-secret    ROLE_RDM (tenant acme)
  acme-quota / acme-quota-secret      ROLE_RDM (tenant acme), for quota experiments
  acme-lab-quota / acme-lab-quota-secret  ROLE_RDM (tenant acme, customer cust-acme-lab), a second quota client
  globex-admin / globex-admin-secret  ROLE_ADMIN_TENANT_globex
  legacy-admin / legacy-admin-secret  ROLE_ADMIN_TENANT_legacy (auth.migration.mode=rdbms)
`;

/** The clients of a data file (ids and roles; their secrets stay in the file, never in a log). */
function dataClientsHint(reference: ReturnType<typeof createReference>, file: string): string {
  const lines = [...reference.state.clients.values()].map(
    ({ client, customerId }) =>
      `  ${client.clientId.padEnd(28)} ${client.authorities.join(" ")} (customer ${customerId})`,
  );
  return `Clients of ${file} (client_id, roles; the secrets are in the file; HTTP Basic on POST /oauth/token):\n${lines.join("\n")}\n`;
}

/** Starts the server and resolves with an exit code once `stopped` resolves. */
export async function serve(options: ServeOptions, io: CliIo, stopped: Promise<unknown>): Promise<number> {
  const sandbox = await startServedSandbox(options);
  const { server, control, pact, reference, generated } = sandbox;
  io.err(
    `lckit serve: reference listening\n  base_url ${server.baseUrl}\n  rdm_url  ${server.rdmUrl}\n  control  ${control.url} (GET / lists its routes)\n`,
  );
  if (pact)
    io.err(
      `  pact     ${pact.url}${pact.stateChangePath} (state change), ${pact.url}${pact.messagesPath} (messages)\n`,
    );
  if (generated) {
    io.err(
      `  generated for tenant ${options.tenant}: ${options.lookups ?? 0} lookups, ${options.statistics ?? 0} statistics (seed ${options.seed})\n`,
    );
  }
  if (options.faults.length > 0) io.err(`  seeded faults ON: ${options.faults.join(", ")}\n`);
  if (options.variants.length > 0) io.err(`  variants ON: ${options.variants.join(", ")}\n`);
  io.err(options.data === undefined ? CREDENTIALS_HINT : dataClientsHint(reference, options.data));
  io.err("Stop with Ctrl-C.\n");
  await stopped;
  await sandbox.close();
  io.err("lckit serve: stopped\n");
  return 0;
}

export const command = defineCommand(spec, ({ values }, io) => {
  const parsed = serveOptions(values);
  if (parsed === "help-variants") {
    for (const v of VARIANTS)
      io.out(`${v.name.padEnd(34)} ${v.description}\n${"".padEnd(34)} (${v.silentPoint})\n`);
    return 0;
  }
  if (parsed === "help-faults") {
    for (const f of FAULTS) io.out(`${f.name.padEnd(40)} ${f.rule.padEnd(18)} ${f.description}\n`);
    return 0;
  }
  return serve(parsed, io, untilStopSignal());
});
