// Reads a target file (YAML or JSON, see docs/target-file.md and target.schema.json) into a Target.
// Secrets come only from environment variables named in the file; a literal secret is refused.

import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { ErrorObject } from "ajv/dist/2020.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parseDocument } from "yaml";
import {
  CREDENTIAL_ROLES,
  type Credential,
  type CredentialRole,
  type Depth,
  type Profile,
  type Safety,
  type Target,
} from "../check/index.ts";
import { closest } from "../did-you-mean.ts";
import { trimTrailingSlashes } from "../http/trailing-slashes.ts";
import { optional } from "../optional-field.ts";
import { RUN_DEFAULTS } from "../run-defaults.ts";
import { MAX_TIMER_MS } from "../timer-limit.ts";
import { UserInputError } from "../usage-error.ts";
import { lenientProfile } from "./profile.ts";
import schema from "./target.schema.json" with { type: "json" };

export interface TargetConfig {
  target: Target;
  /** Read with unsetCredentials "list": the credential variables that are not set (their roles hold a
   *  placeholder that is never sent). */
  unsetVariables?: string[];
  allow: Safety[];
  confirmTenant?: string;
  /** Requests per second; 0 means unlimited (loopback targets, unless the file says otherwise). */
  rateLimit: number;
  timeoutMs?: number;
  /** Largest answer body the kit reads, in bytes. */
  maxResponseBytes?: number;
  checkTimeoutMs?: number;
  /** The whole run's time limit in ms (`deadline` in the file). */
  deadlineMs?: number;
  unresponsiveAfter?: number;
  /** Requests the whole run may send (`requestBudget`); absent: no limit. */
  requestBudget?: number;
  /** How far the checks explore (`depth`); absent: "deep" for a certified run, else "default". */
  depth?: Depth;
  /** `certify: true`: every run of this file is a certified run, as with --certify. */
  certify?: boolean;
  /** The user's copy of the interface document (`interfaceDocument`, relative to the target file). */
  interfaceDocument?: string;
  file: string;
}

export interface TargetFileProblem {
  /** Dotted path in the file ("credentials.viewer.clientSecretEnv"), "" for the whole file. */
  path: string;
  message: string;
}

/** A target file the kit cannot use: the user's input, so the CLI prints it and exits with code 2. */
export class TargetFileError extends UserInputError {
  override name = "TargetFileError";
  constructor(
    readonly file: string,
    readonly problems: TargetFileProblem[],
  ) {
    super(
      problems.length === 1
        ? `${file}: ${where(problems[0]?.path ?? "")}${problems[0]?.message ?? ""}`
        : `${file} has ${problems.length} problems:\n${problems.map((p) => `  - ${where(p.path)}${p.message}`).join("\n")}`,
    );
  }
}

function where(path: string): string {
  return path === "" ? "" : `${path}: `;
}

/** Keys that would hold a credential value in the file itself. */
const literalKeys: Record<string, string> = {
  clientId: "clientIdEnv",
  clientSecret: "clientSecretEnv",
  client_id: "clientIdEnv",
  client_secret: "clientSecretEnv",
  secret: "clientSecretEnv",
  password: "clientSecretEnv",
  token: "clientIdEnv and clientSecretEnv (the kit fetches tokens itself)",
  accessToken: "clientIdEnv and clientSecretEnv (the kit fetches tokens itself)",
};

let compiled: ReturnType<Ajv2020["compile"]> | undefined;
function validator() {
  compiled ??= new Ajv2020({ allErrors: true, strict: false }).compile(schema);
  return compiled;
}

/** How a target file is read: for a run, every credential variable must be set; to list the plan
 *  (lckit run --list, which sends nothing) an unset one is named in unsetVariables instead. */
export interface TargetFileOptions {
  unsetCredentials?: "refuse" | "list";
}

export function loadTargetFile(
  file: string,
  env: Record<string, string | undefined>,
  options: TargetFileOptions = {},
): TargetConfig {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new TargetFileError(file, [
      {
        path: "",
        message:
          code === "ENOENT"
            ? "no such file; pass the path of a target file (see examples/target.example.yaml)"
            : `cannot be read (${code ?? String(error)})`,
      },
    ]);
  }
  return parseTargetFile(text, file, env, options);
}

export function parseTargetFile(
  text: string,
  file: string,
  env: Record<string, string | undefined>,
  options: TargetFileOptions = {},
): TargetConfig {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0)
    throw new TargetFileError(
      file,
      doc.errors.map((e) => ({
        path: "",
        message: `is not valid ${file.endsWith(".json") ? "JSON" : "YAML"}: ${e.message.split("\n")[0]}`,
      })),
    );
  let data: unknown;
  try {
    // maxAliasCount bounds alias expansion ("billion laughs"); an alias to a missing anchor throws.
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    throw new TargetFileError(file, [
      {
        path: "",
        message: `is not a usable target file: ${error instanceof Error ? error.message : String(error)}; write the values out instead of using YAML aliases`,
      },
    ]);
  }
  const cycle = circularPath(data);
  if (cycle !== undefined)
    throw new TargetFileError(file, [
      {
        path: cycle,
        message:
          "refers to a mapping or list that contains it (a YAML alias *name inside its own &name): a target " +
          "file cannot be circular; write the value out",
      },
    ]);
  if (data === null || typeof data !== "object" || Array.isArray(data))
    throw new TargetFileError(file, [
      {
        path: "",
        message: "expected a mapping with at least name, baseUrl and tenant (see docs/target-file.md)",
      },
    ]);

  // Literal secrets first (they say what to do instead), then what the schema finds elsewhere.
  const literal = literalSecrets(data as Record<string, unknown>);
  const validate = validator();
  const valid = validate(data);
  if (literal.length > 0 || !valid) {
    const flagged = new Set(literal.map((p) => p.path));
    const rest = schemaProblems(validate.errors ?? []).filter((p) => !flagged.has(p.path));
    throw new TargetFileError(file, [...literal, ...rest]);
  }
  const raw = data as RawTarget;

  const problems = [...urlProblems(raw), ...relationProblems(raw), ...durationProblems(raw)];
  const unsetVariables: string[] = [];
  const readEnv = (name: string, path: string) =>
    readVariable(env, name, path, problems, options.unsetCredentials === "list" ? unsetVariables : undefined);
  const credentials: Partial<Record<CredentialRole, Credential>> = {};
  for (const role of CREDENTIAL_ROLES) {
    const ref = raw.credentials?.[role];
    if (!ref) continue;
    const clientId = readEnv(ref.clientIdEnv, `credentials.${role}.clientIdEnv`);
    const clientSecret = readEnv(ref.clientSecretEnv, `credentials.${role}.clientSecretEnv`);
    if (clientId !== undefined && clientSecret !== undefined) credentials[role] = { clientId, clientSecret };
  }
  const quotaAlt = secondQuotaClient(raw, readEnv, credentials, problems);
  if (problems.length > 0) throw new TargetFileError(file, problems);

  const baseUrl = trimSlash(raw.baseUrl);
  const rdmUrl = trimSlash(raw.rdmUrl ?? raw.baseUrl);
  const loopback = isLoopback(baseUrl) && isLoopback(rdmUrl);
  const target: Target = {
    name: raw.name,
    baseUrl,
    rdmUrl,
    tenant: raw.tenant,
    ...optional("otherTenant", raw.otherTenant),
    ...optional("otherTenantLackedBy", raw.otherTenantLackedBy),
    ...optional("rdbmsTenant", raw.rdbmsTenant),
    ...optional("rdbmsCustomerId", raw.rdbmsCustomerId),
    ...optional("customerId", raw.customerId),
    ...optional("quotaCustomerId", raw.quotaCustomerId ?? raw.customerId),
    ...optional("quotaAlt", quotaAlt),
    credentials,
    profile: { ...lenientProfile, ...(raw.profile ?? {}) },
    loopback,
    disposable: raw.disposable === true,
  };
  return {
    target,
    ...(unsetVariables.length > 0 ? { unsetVariables } : {}),
    allow: raw.allow ?? [],
    ...optional("confirmTenant", raw.confirmTenant),
    rateLimit: raw.rateLimit ?? (loopback ? 0 : RUN_DEFAULTS.rateLimit),
    ...optional("timeoutMs", raw.timeoutMs),
    ...optional("maxResponseBytes", raw.maxResponseBytes),
    ...optional("checkTimeoutMs", raw.checkTimeoutMs),
    ...optional("deadlineMs", raw.deadline === undefined ? undefined : parseDuration(raw.deadline)),
    ...optional("unresponsiveAfter", raw.unresponsiveAfter),
    ...optional("requestBudget", raw.requestBudget),
    ...optional("depth", raw.depth),
    ...(raw.certify === true ? { certify: true } : {}),
    ...optional(
      "interfaceDocument",
      raw.interfaceDocument === undefined ? undefined : resolve(dirname(file), raw.interfaceDocument),
    ),
    file,
  };
}

interface RawTarget {
  name: string;
  baseUrl: string;
  rdmUrl?: string;
  tenant: string;
  otherTenant?: string;
  otherTenantLackedBy?: CredentialRole[];
  rdbmsTenant?: string;
  customerId?: string;
  quotaCustomerId?: string;
  rdbmsCustomerId?: string;
  quotaAltCustomerId?: string;
  credentials?: Partial<Record<CredentialRole | typeof SECOND_QUOTA_KEY, EnvCredential>>;
  allow?: Safety[];
  confirmTenant?: string;
  rateLimit?: number;
  timeoutMs?: number;
  maxResponseBytes?: number;
  checkTimeoutMs?: number;
  deadline?: string;
  unresponsiveAfter?: number;
  requestBudget?: number;
  depth?: Depth;
  certify?: boolean;
  interfaceDocument?: string;
  disposable?: boolean;
  profile?: Partial<Profile>;
}

interface EnvCredential {
  clientIdEnv: string;
  clientSecretEnv: string;
}

/** The key of the optional second quota client under credentials (beside the CREDENTIAL_ROLES): not a role
 *  a check asks for, but a second "quota" client the runner gives one of two quota lanes. */
export const SECOND_QUOTA_KEY = "quotaAlt";

/** credentials.quotaAlt with quotaAltCustomerId: both or neither, a customer other than the quota client's
 *  (two lanes setting one customer's quota would overwrite each other) and a client other than it. */
function secondQuotaClient(
  raw: RawTarget,
  readEnv: (name: string, path: string) => string | undefined,
  credentials: Partial<Record<CredentialRole, Credential>>,
  problems: TargetFileProblem[],
): Target["quotaAlt"] {
  const ref = raw.credentials?.[SECOND_QUOTA_KEY];
  const customerId = raw.quotaAltCustomerId;
  if (ref === undefined && customerId === undefined) return undefined;
  const before = problems.length;
  if (ref === undefined)
    problems.push({
      path: `credentials.${SECOND_QUOTA_KEY}`,
      message:
        `is required when quotaAltCustomerId is given: the second quota client, a client of ${customerId}; ` +
        `add it (clientIdEnv and clientSecretEnv) or remove quotaAltCustomerId`,
    });
  if (customerId === undefined)
    problems.push({
      path: "quotaAltCustomerId",
      message: `is required when credentials.${SECOND_QUOTA_KEY} is given: the customer of that second quota client`,
    });
  const quotaCustomerId = raw.quotaCustomerId ?? raw.customerId;
  if (customerId !== undefined && (customerId === quotaCustomerId || customerId === raw.rdbmsCustomerId))
    problems.push({
      path: "quotaAltCustomerId",
      message:
        `is "${customerId}", the customer of ${customerId === quotaCustomerId ? "the quota client" : "rdbmsTenant"}; ` +
        "the second quota client needs a customer of its own (quotas are set per customer, so two lanes " +
        "on one customer would overwrite each other's quota). Name another customer, or remove the key",
    });
  if (raw.credentials?.quota === undefined)
    problems.push({
      path: `credentials.${SECOND_QUOTA_KEY}`,
      message:
        "is a second quota client, but credentials.quota (the first) is missing; add credentials.quota",
    });
  if (ref === undefined) return undefined;
  const path = `credentials.${SECOND_QUOTA_KEY}`;
  const clientId = readEnv(ref.clientIdEnv, `${path}.clientIdEnv`);
  const clientSecret = readEnv(ref.clientSecretEnv, `${path}.clientSecretEnv`);
  if (clientId !== undefined && clientId === credentials.quota?.clientId)
    problems.push({
      path: `${path}.clientIdEnv`,
      message: `names the same client as credentials.quota (${ref.clientIdEnv}); the second quota client must be another client, of quotaAltCustomerId`,
    });
  if (
    problems.length > before ||
    customerId === undefined ||
    clientId === undefined ||
    clientSecret === undefined
  )
    return undefined;
  return { customerId, credential: { clientId, clientSecret } };
}

/** Dotted path of the first value that contains itself (through a YAML alias), if any. */
function circularPath(data: unknown): string | undefined {
  const ancestors = new Set<object>();
  const walk = (value: unknown, path: string[]): string | undefined => {
    if (value === null || typeof value !== "object") return undefined;
    if (ancestors.has(value)) return path.join(".");
    ancestors.add(value);
    for (const [key, child] of Object.entries(value)) {
      const found = walk(child, [...path, key]);
      if (found !== undefined) return found;
    }
    ancestors.delete(value);
    return undefined;
  };
  return walk(data, []);
}

/** Anywhere in the file: a key that would hold a secret, or an *Env value that looks like the secret itself. */
function literalSecrets(data: Record<string, unknown>): TargetFileProblem[] {
  const problems: TargetFileProblem[] = [];
  const walk = (value: unknown, path: string[]) => {
    if (value === null || typeof value !== "object") return;
    for (const [key, child] of Object.entries(value)) {
      const at = [...path, key].join(".");
      const instead = literalKeys[key];
      if (instead !== undefined && typeof child !== "object")
        problems.push({
          path: at,
          message:
            `literal credentials are not allowed in a target file (it is meant to be committed); ` +
            `put the value in an environment variable and name it with ${instead} ` +
            `(e.g. ${key.toLowerCase().includes("id") ? "clientIdEnv: ACME_VIEWER_ID" : "clientSecretEnv: ACME_VIEWER_SECRET"})`,
        });
      else if (key.endsWith("Env") && typeof child === "string" && !/^[A-Z_][A-Z0-9_]*$/.test(child))
        problems.push({
          path: at,
          message:
            "must name an environment variable (upper-case letters, digits and _, e.g. ACME_VIEWER_SECRET), " +
            "not hold a value; if this is the secret itself, remove it from the file and rotate it",
        });
      else walk(child, [...path, key]);
    }
  };
  walk(data, []);
  return problems;
}

const topLevelKeys = Object.keys(schema.properties);

function schemaProblems(errors: ErrorObject[]): TargetFileProblem[] {
  const seen = new Set<string>();
  const out: TargetFileProblem[] = [];
  for (const e of errors) {
    // anyOf alternatives repeat each other; the anyOf error itself says it well enough.
    if (e.schemaPath.includes("/anyOf/")) continue;
    const path = e.instancePath.split("/").filter(Boolean).join(".");
    let problem: TargetFileProblem;
    if (e.keyword === "additionalProperties") {
      const key = String(e.params.additionalProperty);
      const allowed = allowedKeys(e.instancePath);
      const near = closest(key, allowed);
      problem = {
        path: path === "" ? key : `${path}.${key}`,
        message: `unknown key${near ? `; did you mean "${near}"?` : ""} Allowed here: ${allowed.join(", ")}`,
      };
    } else if (e.keyword === "required") {
      const key = String(e.params.missingProperty);
      problem = { path: path === "" ? key : `${path}.${key}`, message: "is required" };
    } else if (e.keyword === "enum") {
      problem = { path, message: `must be one of ${(e.params.allowedValues as unknown[]).join(", ")}` };
    } else if (e.keyword === "pattern" && path.endsWith("Env")) {
      problem = { path, message: "must name an environment variable (upper-case letters, digits and _)" };
    } else if (e.keyword === "maximum" && /(timeoutMs|TimeoutMs)$/.test(path)) {
      problem = {
        path,
        message:
          `must be at most ${e.params.limit} ms (about 24.8 days, the longest time limit Node can wait); ` +
          "a larger value would silently become 1 ms. Give a smaller limit",
      };
    } else if (e.keyword === "anyOf") {
      problem = {
        path,
        message: `has an unsupported value; see docs/target-file.md for the choices of ${path}`,
      };
    } else {
      problem = { path, message: e.message ?? `fails ${e.keyword}` };
    }
    const key = `${problem.path}\0${problem.message}`;
    if (!seen.has(key)) out.push(problem);
    seen.add(key);
  }
  return out;
}

function allowedKeys(instancePath: string): string[] {
  const parts = instancePath.split("/").filter(Boolean);
  let node: { properties?: Record<string, unknown> } = schema;
  for (const part of parts) {
    const next = node.properties?.[part] as { properties?: Record<string, unknown> } | undefined;
    if (!next) return topLevelKeys;
    node = next;
  }
  return Object.keys(node.properties ?? {});
}

function urlProblems(raw: RawTarget): TargetFileProblem[] {
  const out: TargetFileProblem[] = [];
  for (const key of ["baseUrl", "rdmUrl"] as const) {
    const value = raw[key];
    if (value === undefined) continue;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      out.push({
        path: key,
        message: `"${value}" is not an absolute URL; write it like https://lookup.example.com`,
      });
      continue;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      out.push({ path: key, message: `must use http or https, got ${url.protocol.replace(/:$/, "")}` });
    else if (url.username || url.password)
      out.push({
        path: key,
        message:
          "must not carry credentials (user:password@); use credentials.<role> with environment variables",
      });
    else if (url.search || url.hash)
      out.push({
        path: key,
        message: "must not have a query string or fragment; give the base address only",
      });
  }
  return out;
}

/** "30m", "90s", "1h", "500ms" to milliseconds; undefined when it is none of these or over the limit. */
export function parseDuration(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min|h)\s*$/.exec(text);
  if (!m?.[1] || !m[2]) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000 }[m[2]] ?? 1;
  const ms = Math.round(Number(m[1]) * unit);
  return ms >= 1 && ms <= MAX_TIMER_MS ? ms : undefined;
}

function durationProblems(raw: RawTarget): TargetFileProblem[] {
  if (raw.deadline === undefined || parseDuration(raw.deadline) !== undefined) return [];
  return [
    {
      path: "deadline",
      message:
        `"${raw.deadline}" is not a duration the kit can wait; write a number and a unit (ms, s, m, h), ` +
        `e.g. 30m, from 1 ms to ${MAX_TIMER_MS} ms (about 24.8 days)`,
    },
  ];
}

function relationProblems(raw: RawTarget): TargetFileProblem[] {
  const out: TargetFileProblem[] = [];
  if (raw.otherTenant !== undefined && raw.otherTenant === raw.tenant)
    out.push({
      path: "otherTenant",
      message: `must differ from tenant ("${raw.tenant}"); isolation needs two tenants`,
    });
  if (raw.confirmTenant !== undefined && raw.confirmTenant !== raw.tenant)
    out.push({
      path: "confirmTenant",
      message: `is "${raw.confirmTenant}" but tenant is "${raw.tenant}"; it must name the tenant destructive checks delete data in`,
    });
  if (raw.rdbmsTenant !== undefined && raw.rdbmsCustomerId === undefined)
    out.push({
      path: "rdbmsCustomerId",
      message: "is required when rdbmsTenant is given (the customer of that tenant)",
    });
  return out;
}

/** A credential variable's value; unset or empty is a problem, or, when `unset` collects them (a plan
 *  that sends nothing), a placeholder that names the variable and is never sent. */
function readVariable(
  env: Record<string, string | undefined>,
  name: string,
  path: string,
  problems: TargetFileProblem[],
  unset?: string[],
): string | undefined {
  const value = env[name];
  if ((value === undefined || value === "") && unset !== undefined) {
    if (!unset.includes(name)) unset.push(name);
    return `(${name} unset)`;
  }
  if (value === undefined || value === "") {
    problems.push({
      path,
      message: `environment variable ${name} is ${value === undefined ? "not set" : "empty"}; export it before running (in CI: from a secret)`,
    });
    return undefined;
  }
  return value;
}

function trimSlash(url: string): string {
  return trimTrailingSlashes(url);
}

export function isLoopback(url: string): boolean {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
    return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
  } catch {
    return false;
  }
}
