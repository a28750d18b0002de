// Where a run's settings come from, in one declared place: a flag wins over the target file's key, the
// key over the kit's default. The CLI, the GitHub Action (through the CLI) and the library all merge here.
import type { Depth, Safety } from "../check/index.ts";
import type { TargetConfig } from "../target/target-file.ts";

/** The settings a flag and a target-file key may both give (SETTING_SOURCES: "flag wins"). */
interface FlagSettings {
  confirmTenant?: string;
  deadlineMs?: number;
  unresponsiveAfter?: number;
  requestBudget?: number;
  interfaceDocument?: string;
  depth?: Depth;
}

/** What the caller asked for (the flags of lckit run, or a library caller's options): unset is "not given". */
export interface RequestedSettings extends FlagSettings {
  allow: readonly Safety[];
}

/** The settings a run goes with. Undefined: the run's default (src/run-defaults.ts). */
export interface EffectiveSettings extends FlagSettings {
  allow: Safety[];
  rateLimit?: number;
  timeoutMs?: number;
  maxResponseBytes?: number;
  checkTimeoutMs?: number;
}

/**
 * Each setting, the flag that gives it and the target-file key: the table the merge follows and
 * docs/target-file.md describes. Settings with no flag come from the target file alone; "allow" adds the
 * flag's classes to the file's instead of replacing them.
 */
export const SETTING_SOURCES = [
  { setting: "allow", flag: "--allow", key: "allow", merge: "union" },
  { setting: "confirmTenant", flag: "--confirm-tenant", key: "confirmTenant", merge: "flag wins" },
  { setting: "deadlineMs", flag: "--deadline", key: "deadline", merge: "flag wins" },
  {
    setting: "unresponsiveAfter",
    flag: "--unresponsive-after",
    key: "unresponsiveAfter",
    merge: "flag wins",
  },
  { setting: "requestBudget", flag: "--request-budget", key: "requestBudget", merge: "flag wins" },
  {
    setting: "interfaceDocument",
    flag: "--interface-document",
    key: "interfaceDocument",
    merge: "flag wins",
  },
  { setting: "depth", flag: "--depth", key: "depth", merge: "flag wins" },
  { setting: "rateLimit", flag: undefined, key: "rateLimit", merge: "file only" },
  { setting: "timeoutMs", flag: undefined, key: "timeoutMs", merge: "file only" },
  { setting: "maxResponseBytes", flag: undefined, key: "maxResponseBytes", merge: "file only" },
  { setting: "checkTimeoutMs", flag: undefined, key: "checkTimeoutMs", merge: "file only" },
] as const satisfies readonly {
  setting: keyof EffectiveSettings;
  flag: string | undefined;
  key: keyof TargetConfig | "deadline";
  merge: "union" | "flag wins" | "file only";
}[];

/** The merge of SETTING_SOURCES; `file` is absent for the embedded reference. */
export function mergeSettings(
  requested: RequestedSettings,
  file: TargetConfig | undefined,
): EffectiveSettings {
  const merged: EffectiveSettings = {
    allow: [...new Set([...(file?.allow ?? []), ...requested.allow])],
  };
  const pick = <K extends keyof EffectiveSettings>(key: K, value: EffectiveSettings[K] | undefined) => {
    if (value !== undefined) merged[key] = value;
  };
  pick("confirmTenant", requested.confirmTenant ?? file?.confirmTenant);
  pick("deadlineMs", requested.deadlineMs ?? file?.deadlineMs);
  pick("unresponsiveAfter", requested.unresponsiveAfter ?? file?.unresponsiveAfter);
  pick("requestBudget", requested.requestBudget ?? file?.requestBudget);
  pick("interfaceDocument", requested.interfaceDocument ?? file?.interfaceDocument);
  pick("depth", requested.depth ?? file?.depth);
  // A rate limit of 0 is "unlimited", as the runner reads an absent one.
  pick("rateLimit", file?.rateLimit ? file.rateLimit : undefined);
  pick("timeoutMs", file?.timeoutMs);
  pick("maxResponseBytes", file?.maxResponseBytes);
  pick("checkTimeoutMs", file?.checkTimeoutMs);
  return merged;
}
