// The ways the configuration sets what the quota checks depend on: a customer is written by PUT or by POST
// (the document shows both and not their difference), a client's validity by PUT .../clients. A rule the
// document states for "the customer" holds whichever way it was written, so the checks drive each.

import { type CheckContext, type CredentialRole, depthOf, explore } from "../../src/check/index.ts";
import type { ApiResponse, Customer } from "../../src/client/index.ts";
import { clientOf } from "./target-client.ts";

export const CUSTOMER_METHODS = ["PUT", "POST"] as const;
export type CustomerMethod = (typeof CUSTOMER_METHODS)[number];

/** The exploration dimensions of the quota checks, named once. */
export const DIMENSION = {
  method: "method",
  transition: "transition",
  quota: "quota value",
  instant: "instant",
  refused: "refused request",
} as const;

/** A method as the exploration log names it. */
export function methodName(method: CustomerMethod | "PUT clients"): string {
  return method === "PUT clients" ? method : `${method} customer`;
}

/**
 * Writes the customer as `customer` by `method` and notes the method. The whole customer goes either way:
 * PUT may replace or merge and POST may merge or replace (not shown), and a whole object stores the same
 * under every one of those readings.
 */
export async function writeCustomer(
  ctx: CheckContext,
  role: CredentialRole,
  customerId: string,
  customer: Customer,
  method: CustomerMethod,
): Promise<ApiResponse<Customer>> {
  explore(ctx, DIMENSION.method, methodName(method));
  const client = clientOf(ctx);
  const token = await ctx.token(role);
  return method === "PUT"
    ? client.putCustomer(token, customerId, customer)
    : client.postCustomer(token, customerId, customer);
}

/** The method a step of a check uses where one write is enough at the default depth: alternating from
 *  one drawn by the seed, so that both are reached across a check's steps; `n` numbers the step. */
export function methodFor(ctx: CheckContext, n: number): CustomerMethod {
  return CUSTOMER_METHODS[(Math.abs(ctx.seed) + n) % 2] as CustomerMethod;
}

/** Every method at "deep"; at "default" only where `both` says the check can afford both. */
export function methodsAt(ctx: CheckContext, n: number, both = false): readonly CustomerMethod[] {
  return both || depthOf(ctx) === "deep" ? CUSTOMER_METHODS : [methodFor(ctx, n)];
}
