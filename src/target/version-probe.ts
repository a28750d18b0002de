// The certified run's probe of the target: its GET /version answer, recorded in the certificate
// (src/result/certification.ts decides the certificate; this file is the one part that talks to the target).
import type { Target } from "../check/index.ts";
import { version } from "../client/service.ts";
import { accessTokenOf, requestToken } from "../client/token.ts";
import type { Certification } from "../result/model.ts";

/** Asks GET {rdm_url}/version with a viewer token (the first role the target file has, or none) and keeps
 *  the answer, capped. Secrets stay out: only the status and the body are kept. */
export async function askVersion(
  fetch: (request: Request) => Promise<Response>,
  target: Pick<Target, "baseUrl" | "rdmUrl" | "credentials">,
): Promise<Certification["targetVersion"]> {
  const config = {
    fetch: ((input: Parameters<typeof globalThis.fetch>[0], init?: RequestInit) =>
      fetch(new Request(input, { ...init, signal: AbortSignal.timeout(10_000) }))) as typeof globalThis.fetch,
    baseUrl: target.baseUrl,
    rdmUrl: target.rdmUrl,
  };
  try {
    const credential =
      target.credentials.viewer ?? Object.values(target.credentials).find((c) => c !== undefined);
    const token =
      credential === undefined ? undefined : accessTokenOf(await requestToken(config, credential));
    const response = await version(config, token ?? null);
    return { status: response.status, body: response.text.slice(0, 500) };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}
