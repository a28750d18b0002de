// A delete task as the document reads it (Resources and their fields / Delete task request; Task rules):
// what is wrong with its body, else what it deletes. Shared by the contract-derived request rule and the
// delete task rules.
import { LOOKUP_TYPE_URI_PATTERN, lookupTypeName } from "../../contract/index.ts";
import { parseJson, type TrafficExchange } from "./traffic.ts";

/** The lookup type URI's prefix: a delete task URI that starts with it is the lookup's own URI
 *  rdm/lookupTypes/<type_name>/<code> (Lookup.parents' form), not <tenant_id>/<type_name>/<code>. */
const LOOKUP_URI_OF_TYPE = /^rdm\/lookupTypes\//;

/** The document's shape of a lookup URI in the delete task: <tenant_id>/<type_name>/<code> (a code may
 *  hold a slash: the document does not say it cannot). */
export function isLookupUri(uri: string): boolean {
  return /^[^/]+\/[^/]+\/.+$/.test(uri) && !LOOKUP_URI_OF_TYPE.test(uri);
}

/** The members the document defines: the delete task request's, and those parameters holds. */
const TASK_MEMBERS = ["type", "parameters"];
const PARAMETER_MEMBERS = ["type", "uris"];
const LOOKUP_TYPE_URI = new RegExp(LOOKUP_TYPE_URI_PATTERN);

/** A delete task as the document reads it: what is wrong with its body (MUST), else what it deletes. */
export interface DeleteTaskReading {
  /** The path's tenant. */
  tenant: string;
  problem?: string;
  /** Set when the task deletes, or may delete, every lookup of the tenant. */
  wholeTenant?: string;
  uris?: string[];
}

export function tenantOfPath(pathname: string): string {
  const match = /\/tasks\/([^/]+)\/?$/.exec(pathname);
  if (!match) return "";
  try {
    return decodeURIComponent(match[1] as string);
  } catch {
    return match[1] as string;
  }
}

/** What a task body with neither parameters.type nor parameters.uris does, as the document reads it. */
export const deletesAll = (tenant: string) =>
  `neither type nor uris: deletes all lookups of tenant ${tenant}`;

export function readDeleteTask(x: Pick<TrafficExchange, "body" | "pathname">): DeleteTaskReading {
  const tenant = tenantOfPath(x.pathname);
  const example = `{"type": "delete", "parameters": {"uris": ["${tenant}/<type_name>/<code>"]}} (or {"type": "delete", "parameters": {"type": "rdm/lookupTypes/<type_name>"}})`;
  const body = x.body;
  if (body === undefined) return { tenant, problem: `no body; send ${example}` };
  const parsed = parseJson(body) as Record<string, unknown> | undefined;
  if (parsed === undefined || parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
    return {
      tenant,
      problem: `the body is not a JSON object (${JSON.stringify(body.slice(0, 60))}); send ${example}`,
    };
  if (parsed.type !== "delete")
    return { tenant, problem: `type is ${JSON.stringify(parsed.type)}, expected "delete"; send ${example}` };
  const parameters = parsed.parameters;
  if (
    parameters !== undefined &&
    parameters !== null &&
    (typeof parameters !== "object" || Array.isArray(parameters))
  )
    return {
      tenant,
      problem: `parameters is ${JSON.stringify(parameters).slice(0, 60)}, expected an object holding type and/or uris; send ${example}`,
    };
  const members = (parameters ?? {}) as Record<string, unknown>;
  const type = members.type ?? undefined;
  const uris = members.uris ?? undefined;
  // What the task deletes as the document reads it: the members it does not define are not read.
  const does =
    type === undefined && uris === undefined
      ? deletesAll(tenant)
      : type !== undefined
        ? `type ${JSON.stringify(type)}: deletes the lookups of that type${uris === undefined ? "" : " listed in uris"} only`
        : "uris: deletes the listed lookups";
  const unknownTop = Object.keys(parsed).filter((k) => !TASK_MEMBERS.includes(k));
  const unknownParameters = Object.keys(members).filter((k) => !PARAMETER_MEMBERS.includes(k));
  if (unknownParameters.length > 0 || unknownTop.length > 0) {
    const named = [...unknownParameters.map((k) => `parameters.${k}`), ...unknownTop.map((k) => k)];
    return {
      tenant,
      problem: `the body carries ${named.map((n) => JSON.stringify(n)).join(", ")}, which the document does not define (a delete task holds type and parameters; parameters holds only type and uris), so a provider does not read ${named.length === 1 ? "it" : "them"}. The task as the document reads it: ${does}. Send ${example}`,
    };
  }
  if (type !== undefined && (typeof type !== "string" || !LOOKUP_TYPE_URI.test(type)))
    return {
      tenant,
      problem: `parameters.type is ${JSON.stringify(type)}, expected a lookup type URI rdm/lookupTypes/<type_name>${typeof type === "string" && type !== "" ? ` ("rdm/lookupTypes/${lookupTypeName(type).split("/").pop()}")` : ""}`,
    };
  if (uris !== undefined && !(Array.isArray(uris) && uris.every((u) => typeof u === "string")))
    return {
      tenant,
      problem: `parameters.uris is ${JSON.stringify(uris).slice(0, 60)}, expected an array of lookup URIs <tenant_id>/<type_name>/<code>, e.g. ["${tenant}/<type_name>/<code>"]`,
    };
  const list = uris as string[] | undefined;
  const malformed = (list ?? []).findIndex((u) => !isLookupUri(u));
  if (malformed >= 0) {
    const bad = list?.[malformed] as string;
    const rdm = LOOKUP_URI_OF_TYPE.test(bad)
      ? ` ("${tenant}/${bad.replace(LOOKUP_URI_OF_TYPE, "")}"): it has the lookup's rdm/lookupTypes/<type_name>/<code> form, which names no tenant, so no lookup of the tenant matches it and the task deletes nothing`
      : `, e.g. "${tenant}/<type_name>/<code>"`;
    return {
      tenant,
      problem: `parameters.uris[${malformed}] is ${JSON.stringify(bad)}, expected a lookup URI <tenant_id>/<type_name>/<code>${rdm}`,
    };
  }
  const reading: DeleteTaskReading = { tenant, ...(list === undefined ? {} : { uris: list }) };
  if (type === undefined && list === undefined)
    reading.wholeTenant = `the task as the document reads it: ${deletesAll(tenant)}. If that is what you mean, this finding only says so; to delete less, send ${example}`;
  else if (type === undefined && list?.length === 0)
    reading.wholeTenant = `parameters.uris is an empty list: the document does not say what an empty list deletes, and a provider that reads it as not set deletes all lookups of tenant ${tenant}; send no task when there is nothing to delete`;
  return reading;
}
