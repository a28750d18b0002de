// SIGINT and SIGTERM as a stop request of a session: the run ends gracefully (what finished is reported)
// instead of the process dying with nothing written.
import type { StopSignal } from "../result/model.ts";

export type { StopSignal };

/** Aborts `controller` (with the signal's name as reason) on SIGINT or SIGTERM. `onSignal` hears each one
 *  (`again`: the run was already stopping); without it a second signal does what it would without the kit.
 *  Returns the function that removes the handlers. */
export function abortOnSignals(
  controller: AbortController,
  onSignal?: (signal: StopSignal, again: boolean) => void,
): () => void {
  const handlers = (["SIGINT", "SIGTERM"] as const).map((signal) => {
    const handler = () => {
      const again = controller.signal.aborted;
      onSignal?.(signal, again);
      if (!again) controller.abort(signal);
    };
    if (onSignal === undefined) process.once(signal, handler);
    else process.on(signal, handler);
    return () => process.off(signal, handler);
  });
  return () => {
    for (const off of handlers) off();
  };
}

/** Runs `work` with a stop request that SIGINT and SIGTERM make (the judging commands: what finished is
 *  judged and reported, exit 4); the handlers go when it ends. `onSignal` as for abortOnSignals. */
export async function whileStoppable<T>(
  work: (signal: AbortSignal) => Promise<T>,
  onSignal?: (signal: StopSignal, again: boolean) => void,
): Promise<T> {
  const controller = new AbortController();
  const off = abortOnSignals(controller, onSignal);
  try {
    return await work(controller.signal);
  } finally {
    off();
  }
}

/** The first SIGINT or SIGTERM, for a server that runs until told to stop (lckit serve, lckit mock); both
 *  handlers go with it, so a second signal does what it would without the kit. */
export function untilStopSignal(): Promise<StopSignal> {
  return new Promise((resolve) => {
    const controller = new AbortController();
    const off = abortOnSignals(controller, (signal) => {
      off();
      resolve(signal);
    });
  });
}
