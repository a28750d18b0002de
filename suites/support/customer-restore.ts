// Reading and restoring a customer's configuration around checks that change it. The interface has no
// GET for a customer; the kit reads it with a POST of an empty object, which under the kit's merge
// semantics (CONFIG-CUSTOMER-03) changes nothing and answers the stored customer.

import { type CheckContext, type CredentialRole, fail, skip } from "../../src/check/index.ts";
import { type Customer, describeResponse } from "../../src/client/index.ts";
import { clientOf } from "./target-client.ts";

function looksLikeCustomer(body: unknown, customerId: string): body is Customer {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
  const { id, tenants } = body as Customer;
  return id === customerId || Array.isArray(tenants);
}

/** The stored customer, or a skip when the target does not answer the empty merge with it. */
export async function readCustomer(
  ctx: CheckContext,
  role: CredentialRole,
  customerId: string,
): Promise<Customer> {
  const response = await clientOf(ctx).postCustomer(await ctx.token(role), customerId, {});
  if (!response.ok || !looksLikeCustomer(response.body, customerId))
    skip(
      `cannot read customer ${customerId} to restore it afterwards: POST {} (a merge of nothing) answered ` +
        `${describeResponse(response)}; this check changes the customer and runs only where it can restore it`,
    );
  return response.body;
}

/** The customer without multitokenConfig: multi-token support off. */
export function withoutMultiToken(customer: Customer): Customer {
  const { multitokenConfig: _dropped, ...rest } = customer;
  return rest;
}

export async function putCustomerOrFail(
  ctx: CheckContext,
  role: CredentialRole,
  customerId: string,
  customer: Customer,
  why: string,
): Promise<void> {
  const response = await clientOf(ctx).putCustomer(await ctx.token(role), customerId, customer);
  if (!response.ok)
    fail(`${why}: expected PUT of customer ${customerId} to succeed, got ${describeResponse(response)}`);
}

/** Runs `body` and puts the customer back as it was, whatever happened. The customer as it was is
 *  journalled first, so that the runner (check timeout, Ctrl-C) or `lckit restore` (after kill -9) puts
 *  it back where the check itself cannot. */
export async function withCustomerRestored<T>(
  ctx: CheckContext,
  role: CredentialRole,
  customerId: string,
  body: (original: Customer) => Promise<T>,
): Promise<T> {
  const original = await readCustomer(ctx, role, customerId);
  const journalled = ctx.journal.open({
    kind: "customer",
    customerId,
    role,
    restore: original as Record<string, unknown>,
  });
  let result: T;
  try {
    result = await body(original);
  } catch (error) {
    // Restore anyway, but report the check's own finding rather than a restore problem.
    try {
      const response = await clientOf(ctx).putCustomer(await ctx.token(role), customerId, original);
      if (response.ok) ctx.journal.settle(journalled);
    } catch {
      ctx.log.info(`could not restore customer ${customerId} after a failed check`);
    }
    throw error;
  }
  await putCustomerOrFail(ctx, role, customerId, original, "restoring the customer after the check");
  ctx.journal.settle(journalled);
  return result;
}
