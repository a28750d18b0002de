// The typed client bound to a check's target, and the credentials of its roles.

import type { CheckContext, Credential, CredentialRole } from "../../src/check/index.ts";
import { skip } from "../../src/check/index.ts";
import { createClient, type InterfaceClient } from "../../src/client/index.ts";

export function clientOf(ctx: CheckContext): InterfaceClient {
  return createClient({ fetch: ctx.fetch, baseUrl: ctx.target.baseUrl, rdmUrl: ctx.target.rdmUrl });
}

export function credentialOf(ctx: CheckContext, role: CredentialRole): Credential {
  const credential = ctx.target.credentials[role];
  if (!credential) skip(`the target file has no credentials.${role}; add it to run this check`);
  return credential;
}

export function otherTenantOf(ctx: CheckContext): string {
  const tenant = ctx.target.otherTenant;
  if (!tenant) skip("the target file names no otherTenant; add one to run this check");
  return tenant;
}

export function customerIdOf(ctx: CheckContext): string {
  const id = ctx.target.customerId;
  if (!id) skip("the target file names no customerId (the customer of the tenant); add it to run this check");
  return id;
}

export function quotaCustomerIdOf(ctx: CheckContext): string {
  const id = ctx.target.quotaCustomerId ?? ctx.target.customerId;
  if (!id) skip("the target file names no quotaCustomerId (the customer of the quota client); add it");
  return id;
}
