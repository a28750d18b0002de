// A "live" target for the verification tests: the reference served on two loopback ports ({base_url} and
// {rdm_url} apart, as deployments may be), described by a runner target file with credentials from
// environment variables, and prepared the way a provider team prepares a deployment for verification.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { accessTokenOf, createClient } from "../../src/client/index.ts";
import { probeLookup } from "../../src/pact/state-handlers.ts";
import { createReference, type FaultName, type Reference } from "../../src/reference/index.ts";

export interface LiveTarget {
  file: string;
  env: Record<string, string>;
  reference: Reference;
  close(): Promise<void>;
}

const roles = {
  admin: "acme-admin",
  editor: "acme-editor",
  viewer: "acme-viewer",
  quota: "acme-quota",
  otherAdmin: "globex-admin",
  rdbmsAdmin: "legacy-admin",
} as const;

export async function startLiveTarget(faults: FaultName[] = []): Promise<LiveTarget> {
  const reference = createReference({ faults });
  const listening = await reference.listen({ host: "127.0.0.1", port: 0, rdmPort: 0 });
  const dir = mkdtempSync(join(tmpdir(), "lckit-pact-target-"));
  const env: Record<string, string> = {};
  const credentials: string[] = [];
  for (const [role, clientId] of Object.entries(roles)) {
    const name = role.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();
    env[`PACT_${name}_ID`] = clientId;
    env[`PACT_${name}_SECRET`] = `${clientId}-secret`;
    credentials.push(`  ${role}: { clientIdEnv: PACT_${name}_ID, clientSecretEnv: PACT_${name}_SECRET }`);
  }
  const file = join(dir, "target.yaml");
  writeFileSync(
    file,
    [
      "name: reference on loopback",
      "disposable: true",
      `baseUrl: ${listening.baseUrl}`,
      `rdmUrl: ${listening.rdmUrl}`,
      "tenant: acme",
      "otherTenant: globex",
      "rdbmsTenant: legacy",
      "rdbmsCustomerId: cust-legacy",
      "customerId: cust-acme",
      "credentials:",
      ...credentials,
      "",
    ].join("\n"),
  );
  await prepare(reference, listening.baseUrl, listening.rdmUrl);
  return {
    file,
    env,
    reference,
    close: async () => {
      await listening.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What the pacts' provider states require and a live target cannot be made to do by the verifier. */
async function prepare(reference: Reference, baseUrl: string, rdmUrl: string): Promise<void> {
  const client = createClient({ fetch, baseUrl, rdmUrl });
  const admin = accessTokenOf(
    await client.token({ clientId: "acme-admin", clientSecret: "acme-admin-secret" }),
  );
  if (!admin) throw new Error("the live reference issued no admin token");
  const quota = await client.postCustomer(admin, "cust-acme", {
    multitokenConfig: client.multiTokenConfig(5),
  });
  if (!quota.ok) throw new Error(`could not set the quota: ${quota.status} ${quota.text}`);
  for (let i = 0; i < 5; i++)
    await client.token({ clientId: "acme-quota", clientSecret: "acme-quota-secret" });
  // The interface has no create-lookup operation; the provider team adds the lookup the delete pact deletes.
  reference.state.lookups.get("acme")?.add(probeLookup("acme", "provider-team"));
}
