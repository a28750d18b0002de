// startSandbox(): the reference as a team's test runner wants it: their data, real sockets on loopback, the
// control interface beside it, a clock that runs in real time and moves forwards on request, every
// exchange recorded. One call, one close().
import { shiftableClock } from "./clock.ts";
import type { SandboxControl } from "./control.ts";
import { type ControlListening, listenControl } from "./control-app.ts";
import type { ReferenceData } from "./data-file.ts";
import type { FaultName } from "./faults.ts";
import { createReference, type Reference } from "./reference.ts";
import type { VariantName } from "./variants.ts";

export interface SandboxOptions {
  /** A data file or document (default: the kit's fixture world). */
  data?: string | ReferenceData;
  variants?: readonly VariantName[];
  faults?: readonly FaultName[];
  /** Port of base_url (default 0: a free one); rdm_url shares it. */
  port?: number;
  /** Port of the control interface (default 0: a free one); false: no control interface over HTTP. */
  controlPort?: number | false;
  /** Record every exchange (control.recording()). Default true. */
  record?: boolean;
}

export interface Sandbox {
  baseUrl: string;
  rdmUrl: string;
  /** The control interface's URL, when it listens. */
  controlUrl?: string;
  /** The same control in process. */
  control: SandboxControl;
  reference: Reference;
  /** Every client of the loaded data: id, secret, roles (sandbox values, for the tests' own use). */
  clients: { clientId: string; clientSecret: string; authorities: readonly string[]; customerId: string }[];
  close(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const reference = createReference({
    clock: shiftableClock(),
    record: options.record ?? true,
    ...(options.data === undefined ? {} : { data: options.data }),
    ...(options.variants ? { variants: options.variants } : {}),
    ...(options.faults ? { faults: options.faults } : {}),
  });
  const server = await reference.listen({ port: options.port ?? 0 });
  let control: ControlListening | undefined;
  if (options.controlPort !== false) {
    try {
      control = await listenControl(reference.control, { port: options.controlPort ?? 0 });
    } catch (error) {
      await server.close();
      throw error;
    }
  }
  return {
    baseUrl: server.baseUrl,
    rdmUrl: server.rdmUrl,
    ...(control ? { controlUrl: control.url } : {}),
    control: reference.control,
    reference,
    clients: [...reference.state.clients.values()].map(({ client, customerId }) => ({
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      authorities: client.authorities,
      customerId,
    })),
    close: async () => {
      await control?.close();
      await server.close();
    },
  };
}
