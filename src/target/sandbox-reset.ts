// Before a run against a sandbox that `lckit serve` serves: its answers name its control port
// (SANDBOX_CONTROL_HEADER), and the run resets it there, so a second run does not find the tenant an
// earlier run's delete task emptied. A target that names no control port is left alone: it is not the
// kit's sandbox, or not one it may reset.
import type { Target } from "../check/index.ts";
import { SANDBOX_CONTROL_HEADER } from "../reference/listen.ts";
import { isLoopback } from "./target-file.ts";

export type SandboxReset =
  /** The sandbox was reset through its control port. */
  | { status: "reset"; control: string }
  /** The sandbox names a control port the run could not reset it through: the command that does. */
  | { status: "not-reset"; control: string; why: string; command: string };

const PROBE_MS = 3_000;

/** Resets the sandbox the kit serves at the target, if the target is one; undefined when it is not. Only a
 *  loopback target naming a loopback control port is touched. */
export async function resetServedSandbox(
  fetch: (request: Request) => Promise<Response>,
  target: Pick<Target, "baseUrl" | "rdmUrl">,
): Promise<SandboxReset | undefined> {
  if (!isLoopback(target.baseUrl) || !isLoopback(target.rdmUrl)) return undefined;
  let control: string | null;
  try {
    // Any answer carries the header; /healthcheck without a token is a 401 that changes nothing.
    const probe = await fetch(
      // A redirect is not followed: the kit sends nothing to a host the target file does not name.
      new Request(`${target.rdmUrl}/healthcheck`, {
        redirect: "manual",
        signal: AbortSignal.timeout(PROBE_MS),
      }),
    );
    await probe.body?.cancel();
    control = probe.headers.get(SANDBOX_CONTROL_HEADER);
  } catch {
    return undefined;
  }
  if (control === null || !isLoopback(control)) return undefined;
  const command = `curl -X POST ${control}/reset`;
  try {
    const reset = await fetch(
      new Request(`${control}/reset`, {
        method: "POST",
        redirect: "manual",
        signal: AbortSignal.timeout(PROBE_MS),
      }),
    );
    await reset.body?.cancel();
    if (reset.ok) return { status: "reset", control };
    return { status: "not-reset", control, why: `its control port answered ${reset.status}`, command };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { status: "not-reset", control, why: `its control port did not answer (${why})`, command };
  }
}
