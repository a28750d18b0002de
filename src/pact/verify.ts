// Provider verification: every interaction of the given pact files is replayed against the embedded
// reference (default, on a free loopback port) or a live target from a runner target file, with provider
// states set up (state-handlers.ts), real credentials injected (token-injection.ts), and message pacts
// answered by the kit's event generator (event-messages.ts).
import { resolve } from "node:path";
import type { MessageProviders } from "@pact-foundation/pact";
import type { Target } from "../check/index.ts";
import { operationCalled } from "../contract/index.ts";
import { createReference, type FaultName, type Listening, type Reference } from "../reference/index.ts";
import { embeddedTargetDescription } from "../target/embedded.ts";
import type { TargetConfig } from "../target/target-file.ts";
import { importOptional } from "../tools/optional-tool.ts";
import { UserInputError } from "../usage-error.ts";
import { eventMessages, generateEvent } from "./event-messages.ts";
import { type PactFile, readPactFile } from "./pact-file.ts";
import { PROVIDER_NAME } from "./provider.ts";
import { type ProviderRouter, startProviderRouter } from "./provider-router.ts";
import { createSession, type ProviderSession, type VerificationProblem } from "./provider-session.ts";
import { providerState } from "./provider-states.ts";
import { stateHandlers } from "./state-handlers.ts";
import { createRequestFilter } from "./token-injection.ts";
import { type PactVerificationReport, parseVerifierResult, toReport } from "./verification-result.ts";

// Pact sends usage data unless told not to; the kit never lets it.
process.env.PACT_DO_NOT_TRACK = "true";

export interface VerifyOptions {
  /** Pact files (see findPactFiles), relative to cwd. */
  pactFiles: readonly string[];
  cwd: string;
  /** A live target from a runner target file; absent: the embedded reference. */
  target?: TargetConfig;
  /** Seeded faults of the embedded reference (src/reference/faults.ts), to prove the pacts catch them. */
  faults?: readonly FaultName[];
}

/** The pacts cannot be verified as asked (wrong provider, no interactions, unsafe for the target): exit 2. */
export class PactConfigError extends UserInputError {
  override name = "PactConfigError";
}

function unsafeInteractions(pacts: PactFile[], config: TargetConfig): string[] {
  const { target } = config;
  // Loopback is no permission (a port-forward to production is loopback too): only a disposable target
  // (the embedded reference, or a target file that says `disposable: true`) takes writes unasked.
  if (target.disposable) return [];
  const confirmed = config.confirmTenant === target.tenant;
  const found: string[] = [];
  for (const pact of pacts)
    for (const interaction of pact.interactions) {
      if (interaction.kind !== "http") continue;
      // What replaying it does to a live system: the contract says it per operation (x-kit-safety).
      const safety = operationCalled(interaction.request.method, interaction.request.path)?.safety;
      if (safety === undefined || safety === "read") continue;
      if (config.allow.includes(safety) && (safety !== "destructive" || confirmed)) continue;
      found.push(
        `${pact.file}: "${interaction.description}" needs allow: [${safety}]${safety === "destructive" ? ` and confirmTenant: ${target.tenant}` : ""}`,
      );
    }
  return found;
}

function unknownStates(pacts: PactFile[]): VerificationProblem[] {
  const problems: VerificationProblem[] = [];
  for (const pact of pacts)
    for (const interaction of pact.interactions)
      for (const state of interaction.states)
        if (!providerState(state))
          problems.push({
            source: state,
            message: `unknown provider state (${pact.file}: "${interaction.description}"); the kit verifies the states listed in src/pact/provider-states.ts`,
          });
  return problems;
}

function messageProviders(tenantId: string): MessageProviders {
  const providers: MessageProviders = {};
  for (const spec of eventMessages) {
    providers[spec.description] = () => {
      const event = generateEvent(spec, tenantId);
      const metadata = Object.fromEntries(
        Object.entries(event.headers).map(([key, value]) => [key, String(value)]),
      );
      return { __pactMessageMetadata: metadata, message: event.payload };
    };
  }
  return providers;
}

interface Provider {
  url: string;
  session: ProviderSession;
  name: string;
  close(): Promise<void>;
}

async function startEmbedded(faults: readonly FaultName[]): Promise<Provider> {
  const reference: Reference = createReference({ faults });
  const listening: Listening = await reference.listen({ host: "127.0.0.1", port: 0 });
  const target: Target = {
    ...embeddedTargetDescription(),
    baseUrl: listening.baseUrl,
    rdmUrl: listening.rdmUrl,
  };
  const name =
    faults.length > 0 ? `the embedded reference with fault ${faults.join(", ")}` : "the embedded reference";
  return {
    url: listening.baseUrl,
    session: createSession(target, { reference }),
    name,
    close: listening.close,
  };
}

async function startLive(config: TargetConfig): Promise<Provider> {
  const { target } = config;
  const session = createSession(
    target,
    config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs },
  );
  let router: ProviderRouter | undefined;
  if (target.baseUrl !== target.rdmUrl) router = await startProviderRouter(target.baseUrl, target.rdmUrl);
  return {
    url: router?.url ?? target.baseUrl,
    session,
    name: `target "${target.name}"`,
    close: async () => {
      await router?.close();
    },
  };
}

export async function verifyPacts(options: VerifyOptions): Promise<PactVerificationReport> {
  if (options.pactFiles.length === 0)
    throw new PactConfigError("no pact files to verify; pass a directory holding *.json pacts");
  const pacts = options.pactFiles.map((file) => readPactFile(file, options.cwd));
  const foreign = pacts.filter((pact) => pact.provider !== PROVIDER_NAME);
  if (foreign.length > 0)
    throw new PactConfigError(
      foreign
        .map(
          (pact) =>
            `${pact.file}: a pact with provider "${pact.provider}"; lckit verifies pacts with provider "${PROVIDER_NAME}"`,
        )
        .join("\n"),
    );
  if (pacts.every((pact) => pact.interactions.length === 0))
    throw new PactConfigError(`the pact files hold no interactions: ${options.pactFiles.join(", ")}`);
  if (options.target && options.faults && options.faults.length > 0)
    throw new PactConfigError("faults apply to the embedded reference only; drop them or the target file");
  if (options.target) {
    const unsafe = unsafeInteractions(pacts, options.target);
    if (unsafe.length > 0)
      throw new PactConfigError(
        `target ${options.target.target.name} is not marked disposable and does not allow what these interactions do (add them to allow: in ${options.target.file}, or disposable: true for a throwaway sandbox):\n  ${unsafe.join("\n  ")}`,
      );
  }

  // Pact is an optional peer dependency, loaded only here and before anything starts (when absent, a usage
  // error names the install command).
  const { Verifier } = await importOptional<typeof import("@pact-foundation/pact")>("@pact-foundation/pact");
  const provider = options.target
    ? await startLive(options.target)
    : await startEmbedded(options.faults ?? []);
  const { session } = provider;
  session.problems.push(...unknownStates(pacts));
  try {
    const verifier = new Verifier({
      provider: PROVIDER_NAME,
      providerBaseUrl: provider.url,
      pactUrls: options.pactFiles.map((file) => resolve(options.cwd, file)),
      stateHandlers: stateHandlers(session),
      requestFilter: createRequestFilter(session),
      messageProviders: messageProviders(session.target.tenant),
      logLevel: "error",
      timeout: options.target?.timeoutMs ?? 30_000,
    });
    let text: string;
    try {
      text = await verifier.verifyProvider();
    } catch (error) {
      // A failed verification rejects with the same JSON a passing one resolves with.
      text = error instanceof Error ? error.message : String(error);
      if (!parseVerifierResult(text)) throw error;
    }
    const raw = parseVerifierResult(text);
    if (!raw)
      throw new Error(
        `the Pact verifier answered something that is not its JSON result: ${text.slice(0, 300)}`,
      );
    return toReport(raw, {
      target: provider.name,
      pactFiles: [...options.pactFiles],
      problems: session.problems,
      redact: (line) => session.redactor.text(line),
    });
  } finally {
    await provider.close();
  }
}
