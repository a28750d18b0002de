// What a check may change on a live system, and which operations each safety class may call.
import type { OperationSafety } from "../contract/index.ts";

/** read: no change; write: changes data or configuration and restores it; destructive: deletes data;
 *  quota: exhausts or changes token quotas. */
export const SAFETY_CLASSES = ["read", "write", "destructive", "quota"] as const;
export type Safety = (typeof SAFETY_CLASSES)[number];

/** The operations (by their x-kit-safety in the contract) a check of each safety class may call; the
 *  transport refuses any other before it leaves the kit, so a check that does more than it declares
 *  cannot change a live system its user did not allow it to change. */
export const MAY_CALL: Readonly<Record<Safety, readonly OperationSafety[]>> = {
  read: ["read"],
  // Token quotas are the quota customer's configuration: changing them is what quota checks do.
  quota: ["read", "write"],
  write: ["read", "write"],
  destructive: ["read", "destructive"],
};

/** An operation (operationId) a check calls beyond its safety class, and why that call changes nothing. */
export interface HarmlessCall {
  operation: string;
  why: string;
}
