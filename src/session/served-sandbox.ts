// lckit serve below the CLI: the reference started on loopback with its control interface (and, when
// asked, the Pact state-change server), every answer naming the control's URL so that lckit run can reset
// the sandbox first; a start that fails for the user's input is a UsageError naming the flag, with
// nothing left started.
import {
  type ControlListening,
  createReference,
  type FaultName,
  FixtureError,
  type Listening,
  listenControl,
  SANDBOX_CONTROL_HEADER,
  shiftableClock,
  type VariantName,
} from "../reference/index.ts";
import { UsageError } from "../usage-error.ts";

/** What lckit serve is asked to start. */
export interface ServedSandboxRequest {
  port: number;
  host: string;
  rdmPort?: number;
  controlPort?: number;
  pactPort?: number;
  tenant: string;
  lookups?: number;
  statistics?: number;
  seed: number;
  data?: string;
  faults: FaultName[];
  variants: VariantName[];
}

export interface ServedSandbox {
  reference: ReturnType<typeof createReference>;
  server: Listening;
  control: ControlListening;
  pact?: { url: string; stateChangePath: string; messagesPath: string };
  /** Lookups or statistics were generated for the tenant. */
  generated: boolean;
  /** Stops the Pact server, the control and the reference, in that order. */
  close: () => Promise<void>;
}

export async function startServedSandbox(request: ServedSandboxRequest): Promise<ServedSandbox> {
  const generate =
    request.lookups !== undefined || request.statistics !== undefined
      ? {
          tenant: request.tenant,
          lookups: request.lookups,
          statistics: request.statistics,
          seed: request.seed,
        }
      : undefined;
  let server: Listening;
  let control: ControlListening;
  let reference: ReturnType<typeof createReference>;
  try {
    reference = createReference({
      // Real time that the control interface can move forwards.
      clock: shiftableClock(),
      faults: request.faults,
      variants: request.variants,
      generate,
      ...(request.data === undefined ? {} : { data: request.data }),
    });
    // Every answer names the control port, so that lckit run can reset this sandbox before it runs.
    let controlUrl: string | undefined;
    server = await reference.listen({
      port: request.port,
      host: request.host,
      rdmPort: request.rdmPort,
      headers: (): Record<string, string> =>
        controlUrl === undefined ? {} : { [SANDBOX_CONTROL_HEADER]: controlUrl },
    });
    try {
      control = await listenControl(reference.control, { port: request.controlPort ?? 0 });
      controlUrl = control.url;
    } catch (error) {
      await server.close();
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`control interface: ${message}`, { cause: error });
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof FixtureError) throw new UsageError(`--data ${message}; nothing was started`);
    if (/EADDRINUSE/.test(message)) {
      const flag = message.startsWith("control interface") ? "--control-port" : "--port";
      throw new UsageError(
        `port in use (${message}); choose another with ${flag} N (0 picks a free port); nothing was started`,
      );
    }
    if (/unknown tenant/.test(message)) throw new UsageError(`--tenant: ${message}`);
    throw error;
  }
  // Loaded only when asked for: a plain start does not pay for the Pact provider states.
  const pactServer =
    request.pactPort === undefined ? undefined : await import("../pact/state-change-server.ts");
  const pact =
    request.pactPort === undefined || pactServer === undefined
      ? undefined
      : await pactServer.listenStateChange({
          reference,
          baseUrl: server.baseUrl,
          rdmUrl: server.rdmUrl,
          host: "127.0.0.1",
          port: request.pactPort,
          tenant: request.tenant,
        });
  return {
    reference,
    server,
    control,
    ...(pact === undefined || pactServer === undefined
      ? {}
      : {
          pact: {
            url: pact.url,
            stateChangePath: pactServer.STATE_CHANGE_PATH,
            messagesPath: pactServer.MESSAGES_PATH,
          },
        }),
    generated: generate !== undefined,
    close: async () => {
      await pact?.close();
      await control.close();
      await server.close();
    },
  };
}
