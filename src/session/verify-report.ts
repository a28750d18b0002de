// `lckit report verify`: a report folder's manifest and signature checked against this kit version's MUST
// checks, so that a folder certified by another kit version (or with checks left out) is named as such.
import { verifyFolder } from "../report-folder/manifest.ts";
import { kitInfo, specHashes } from "../result/kit-info.ts";
import { checksModuleOf, loadChecks } from "./checks-module.ts";

export interface VerifyReportRequest {
  folder: string;
  /** An Ed25519 public key (PEM) the signature must be made with. */
  publicKey?: string;
  /** Where the checks module is looked up from, and the environment naming it (LCKIT_CHECKS_MODULE). */
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export async function verifyReport(request: VerifyReportRequest): Promise<ReturnType<typeof verifyFolder>> {
  const allChecks = await loadChecks(request.cwd, checksModuleOf(request.env));
  return verifyFolder(request.folder, {
    ...(request.publicKey === undefined ? {} : { publicKey: request.publicKey }),
    kit: {
      version: kitInfo().version,
      mustIds: allChecks.filter((c) => c.level === "MUST").map((c) => c.id),
      catalogueSha256: specHashes().catalogue.sha256,
    },
  });
}
