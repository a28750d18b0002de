// Every check of the kit, in run order. Reads come first; then the explorer (its deleting check before the
// delete-task suite, leaving it a type to delete and a tenant to empty); then deletion, after every suite that reads
// lookups (the interface cannot create them again); then token quotas, which switch multi-token support on
// and off for the tenant's customer and need no lookups (a scan of an empty tenant serves to use a
// token), with the explorer of tokens and configuration among them; errors, which looks at the traffic so far; the schema suite last, since it validates the
// traffic of the whole run. (The planner also moves destructive checks after the others.)
import type { Check } from "../src/check/index.ts";
import { authChecks } from "./auth.ts";
import { autopilotScanChecks } from "./autopilot-scan.ts";
import { blockedValuesChecks } from "./blocked-values.ts";
import { configurationChecks } from "./configuration.ts";
import { deleteTaskChecks } from "./delete-task.ts";
import { errorsChecks } from "./errors.ts";
import { exploreChecks } from "./explore.ts";
import { exploreTokens } from "./explore-tokens.ts";
import { lookupScanChecks } from "./lookup-scan.ts";
import { schemaChecks } from "./schema.ts";
import { serviceChecks } from "./service.ts";
import { tokenQuotaChecks } from "./token-quota.ts";

export const allChecks: Check[] = [
  ...serviceChecks,
  ...authChecks,
  ...lookupScanChecks,
  ...autopilotScanChecks,
  ...blockedValuesChecks,
  ...configurationChecks,
  ...exploreChecks,
  ...deleteTaskChecks,
  ...tokenQuotaChecks,
  exploreTokens,
  ...errorsChecks,
  ...schemaChecks,
];

export const suiteNames: string[] = [...new Set(allChecks.map((check) => check.suite))];
