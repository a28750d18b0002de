// lckit serve: the stateful reference on loopback, for consumer teams and manual runs.

import { listenStateChange, MESSAGES_PATH, STATE_CHANGE_PATH } from "../../pact/state-change-server.ts";
import {
  createReference,
  FAULTS,
  type FaultName,
  isFaultName,
  isVariantName,
  type Listening,
  VARIANTS,
  type VariantName,
} from "../../reference/index.ts";
import type { Command } from "../command.ts";
import { type CliIo, UsageError } from "../io.ts";

const HELP = `Usage: lckit serve [options]

Serves the stateful reference implementation (both path sets) on loopback.

Options:
  --port N          port of {base_url} (default 8180; 0 picks a free port)
  --rdm-port N      serve the lookup-data paths ({rdm_url}) on this second port (default: same port)
  --host HOST       interface to bind (default 127.0.0.1)
  --lookups N       add N generated lookups to the tenant (e.g. 1000000)
  --statistics N    add N generated autopilot statistics to the tenant
  --tenant ID       tenant that receives generated data (default acme)
  --seed N          seed of the generated data (default 1)
  --fault NAME      switch on a seeded fault (repeatable); names: lckit serve --help-faults
  --help-faults     list the seeded faults
  --variant NAME    take another correct choice where the document is silent (repeatable, at most one
                    per choice); names: lckit serve --help-variants
  --help-variants   list the variants
  --pact-port N     also serve Pact's provider-state change URL (POST /_pact/provider-states) and message
                    URL (POST /_pact/messages) on this loopback port (0 picks one); see docs/pact.md
  --help            this text
`;

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
}

function integer(flag: string, raw: string | undefined, min: number, max: number, example: string): number {
  if (raw === undefined || !/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(
      `${flag} expects an integer from ${min} to ${max}, got ${raw === undefined ? "nothing" : `"${raw}"`}; e.g. ${flag} ${example}`,
    );
  }
  return Number(raw);
}

export function parseServeArgs(argv: string[]): ServeOptions | "help" | "help-faults" | "help-variants" {
  const options: ServeOptions = {
    port: 8180,
    host: "127.0.0.1",
    tenant: "acme",
    seed: 1,
    faults: [],
    variants: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.indexOf("=");
    const flag = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    const value = () => (eq > 0 && arg.startsWith("--") ? arg.slice(eq + 1) : argv[++i]);
    switch (flag) {
      case "--help":
      case "-h":
        return "help";
      case "--help-faults":
        return "help-faults";
      case "--help-variants":
        return "help-variants";
      case "--port":
        options.port = integer(flag, value(), 0, 65535, "8180");
        break;
      case "--rdm-port":
        options.rdmPort = integer(flag, value(), 0, 65535, "8181");
        break;
      case "--host": {
        const host = value();
        if (!host) throw new UsageError("--host expects an interface address, e.g. --host 127.0.0.1");
        options.host = host;
        break;
      }
      case "--lookups":
        options.lookups = integer(flag, value(), 0, 20_000_000, "1000000");
        break;
      case "--statistics":
        options.statistics = integer(flag, value(), 0, 20_000_000, "100000");
        break;
      case "--tenant": {
        const tenant = value();
        if (!tenant) throw new UsageError("--tenant expects a tenant id, e.g. --tenant acme");
        options.tenant = tenant;
        break;
      }
      case "--seed":
        options.seed = integer(flag, value(), 0, 2 ** 31 - 1, "42");
        break;
      case "--fault": {
        const name = value();
        if (!name || !isFaultName(name)) {
          throw new UsageError(
            `--fault expects a fault name, got ${name ? `"${name}"` : "nothing"}; run lckit serve --help-faults for the list`,
          );
        }
        options.faults.push(name);
        break;
      }
      case "--variant": {
        const name = value();
        if (!name || !isVariantName(name)) {
          throw new UsageError(
            `--variant expects a variant name, got ${name ? `"${name}"` : "nothing"}; run lckit serve --help-variants for the list`,
          );
        }
        const group = VARIANTS.find((v) => v.name === name)?.group;
        const rival = options.variants.find(
          (v) => v !== name && VARIANTS.find((e) => e.name === v)?.group === group,
        );
        if (rival) {
          throw new UsageError(
            `--variant ${name} and --variant ${rival} are alternatives of one choice (${group}); give at most one`,
          );
        }
        if (!options.variants.includes(name)) options.variants.push(name);
        break;
      }
      case "--pact-port":
        options.pactPort = integer(flag, value(), 0, 65535, "8181");
        break;
      default:
        throw new UsageError(`unknown option "${arg}"; run lckit serve --help for the options`);
    }
  }
  return options;
}

const CREDENTIALS_HINT = `Fixture clients (client_id / client_secret, HTTP Basic on POST /oauth/token):
  acme-admin / acme-admin-secret      ROLE_ADMIN_TENANT_acme
  acme-editor / acme-editor-secret    ROLE_RDM_EDIT (tenant acme)
  acme-viewer / acme-viewer-secret    ROLE_RDM (tenant acme)
  acme-quota / acme-quota-secret      ROLE_RDM (tenant acme), for quota experiments
  globex-admin / globex-admin-secret  ROLE_ADMIN_TENANT_globex
  legacy-admin / legacy-admin-secret  ROLE_ADMIN_TENANT_legacy (auth.migration.mode=rdbms)
`;

/** Starts the server and resolves with an exit code once `stopped` resolves. */
export async function serve(options: ServeOptions, io: CliIo, stopped: Promise<unknown>): Promise<number> {
  const generate =
    options.lookups !== undefined || options.statistics !== undefined
      ? {
          tenant: options.tenant,
          lookups: options.lookups,
          statistics: options.statistics,
          seed: options.seed,
        }
      : undefined;
  let server: Listening;
  let reference: ReturnType<typeof createReference>;
  try {
    reference = createReference({ faults: options.faults, variants: options.variants, generate });
    server = await reference.listen({ port: options.port, host: options.host, rdmPort: options.rdmPort });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/EADDRINUSE/.test(message)) {
      throw new UsageError(`port in use (${message}); choose another with --port N (0 picks a free port)`);
    }
    if (/unknown tenant/.test(message)) throw new UsageError(`--tenant: ${message}`);
    throw error;
  }
  io.err(`lckit serve: reference listening\n  base_url ${server.baseUrl}\n  rdm_url  ${server.rdmUrl}\n`);
  const pact =
    options.pactPort === undefined
      ? undefined
      : await listenStateChange({
          reference,
          baseUrl: server.baseUrl,
          rdmUrl: server.rdmUrl,
          host: "127.0.0.1",
          port: options.pactPort,
          tenant: options.tenant,
        });
  if (pact)
    io.err(
      `  pact     ${pact.url}${STATE_CHANGE_PATH} (state change), ${pact.url}${MESSAGES_PATH} (messages)\n`,
    );
  if (generate) {
    io.err(
      `  generated for tenant ${options.tenant}: ${options.lookups ?? 0} lookups, ${options.statistics ?? 0} statistics (seed ${options.seed})\n`,
    );
  }
  if (options.faults.length > 0) io.err(`  seeded faults ON: ${options.faults.join(", ")}\n`);
  if (options.variants.length > 0) io.err(`  variants ON: ${options.variants.join(", ")}\n`);
  io.err(CREDENTIALS_HINT);
  io.err("Stop with Ctrl-C.\n");
  await stopped;
  await pact?.close();
  await server.close();
  io.err("lckit serve: stopped\n");
  return 0;
}

export const command: Command = {
  summary: "serve the stateful reference implementation on loopback",
  async run(argv, io) {
    const parsed = parseServeArgs(argv);
    if (parsed === "help") {
      io.out(HELP);
      return 0;
    }
    if (parsed === "help-variants") {
      for (const v of VARIANTS)
        io.out(`${v.name.padEnd(34)} ${v.description}\n${"".padEnd(34)} (${v.silentPoint})\n`);
      return 0;
    }
    if (parsed === "help-faults") {
      for (const f of FAULTS) io.out(`${f.name.padEnd(40)} ${f.rule.padEnd(18)} ${f.description}\n`);
      return 0;
    }
    const stopped = new Promise<string>((resolve) => {
      process.once("SIGINT", () => resolve("SIGINT"));
      process.once("SIGTERM", () => resolve("SIGTERM"));
    });
    return serve(parsed, io, stopped);
  },
};
