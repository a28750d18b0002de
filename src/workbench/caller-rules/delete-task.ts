// The caller rules of the delete task: its body as the document defines it, never the whole tenant by
// mistake, only URIs of its own tenant; each task read once, shared by the three.
import { LOOKUP_TYPE_URI_PATTERN, lookupTypeName } from "../../contract/index.ts";
import { parseJson, type Traffic, type TrafficExchange } from "../traffic.ts";
import { callerRule, type Violation, verdict, where } from "./caller-rule.ts";

export const deleteTaskBody = callerRule({
  id: "client/delete-task-body",
  requirements: ["CALLER-TASK-01"],
  title:
    "MUST send a delete task body of the documented shape (type delete; parameters holding only type, a lookup type URI, and uris, lookup URIs <tenant>/<type>/<code>)",
  opportunity: "a delete task (POST /tasks/{tenantId})",
  breaks:
    'a body other than `{"type": "delete", "parameters"?: {"type"?: "rdm/lookupTypes/<type_name>", "uris"?: ["<tenant>/<type_name>/<code>", ...]}}`, a member the document does not define included (see below)',
  exercisedBy: "a delete task",
  judge(traffic) {
    const tasks = deleteTasks(traffic);
    const violations: Violation[] = [];
    for (const { x, read } of tasks)
      if (read.problem) violations.push({ seq: x.seq, message: `${where(x)}: ${read.problem}` });
    return verdict(tasks.length, violations, NO_TASK);
  },
});

export const deleteTaskWholeTenant = callerRule({
  id: "client/delete-task-whole-tenant",
  requirements: ["CALLER-TASK-02"],
  title:
    "SHOULD name what a delete task deletes (parameters.type or parameters.uris); a task with neither deletes every lookup of the tenant",
  opportunity: "a delete task of the documented shape",
  breaks:
    "neither `parameters.type` nor `parameters.uris` (or an empty `uris`): every lookup of the tenant goes",
  exercisedBy: "a delete task",
  judge(traffic) {
    let opportunities = 0;
    const tasks = deleteTasks(traffic);
    const violations: Violation[] = [];
    for (const { x, read } of tasks) {
      if (read.problem !== undefined) continue;
      opportunities += 1;
      if (read.wholeTenant) violations.push({ seq: x.seq, message: `${where(x)}: ${read.wholeTenant}` });
    }
    return verdict(opportunities, violations, tasks.length === 0 ? NO_TASK : MALFORMED_TASKS);
  },
});

export const deleteTaskUrisOfItsTenant = callerRule({
  id: "client/delete-task-uris-of-its-tenant",
  requirements: ["CALLER-TASK-03"],
  title: "SHOULD list in a delete task only lookup URIs of the task's own tenant (the path's)",
  opportunity: "a delete task with parameters.uris of the documented shape",
  breaks: "a URI of another tenant than the path's (the document does not say what a task does with it)",
  exercisedBy: "a delete by URIs",
  judge(traffic) {
    let opportunities = 0;
    const tasks = deleteTasks(traffic);
    const violations: Violation[] = [];
    for (const { x, read } of tasks) {
      if (read.problem !== undefined || read.uris === undefined || read.uris.length === 0) continue;
      opportunities += 1;
      const foreign = read.uris
        .map((uri, i) => ({ uri, i }))
        .filter(({ uri }) => !uri.startsWith(`${read.tenant}/`));
      const first = foreign[0];
      if (first)
        violations.push({
          seq: x.seq,
          message: `${where(x)}: parameters.uris[${first.i}] "${first.uri}" is a lookup of tenant "${first.uri.split("/")[0]}", but the task is for tenant "${read.tenant}"${foreign.length > 1 ? ` (${foreign.length} such URIs)` : ""}; the document does not say what a task does with another tenant's lookup (a provider may refuse the task or skip the URI): send it in a task of its own tenant, POST /tasks/${first.uri.split("/")[0]}`,
        });
    }
    return verdict(
      opportunities,
      violations,
      tasks.length > 0 && tasks.every(({ read }) => read.problem !== undefined)
        ? MALFORMED_TASKS
        : "your client sent no delete task with parameters.uris of the documented shape; a client that deletes by URIs exercises it",
    );
  },
});

const NO_TASK =
  "your client sent no delete task (POST /tasks/{tenantId}); if it never deletes lookups, this rule does not apply to it";
const MALFORMED_TASKS =
  "no delete task your client sent was of the documented shape (client/delete-task-body says what is wrong); fix that, and this rule judges what the tasks delete";

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

function tenantOfPath(pathname: string): string {
  const match = /\/tasks\/([^/]+)\/?$/.exec(pathname);
  if (!match) return "";
  try {
    return decodeURIComponent(match[1] as string);
  } catch {
    return match[1] as string;
  }
}

/** The delete tasks of one traffic, each read once, shared by the three task rules. */
const taskReadings = new WeakMap<Traffic, { x: TrafficExchange; read: DeleteTaskReading }[]>();
function deleteTasks(traffic: Traffic): { x: TrafficExchange; read: DeleteTaskReading }[] {
  let tasks = taskReadings.get(traffic);
  if (!tasks) {
    tasks = traffic.exchanges
      .filter((x) => x.operation === "createTask")
      .map((x) => ({ x, read: readDeleteTask(x) }));
    taskReadings.set(traffic, tasks);
  }
  return tasks;
}

/** What a task body with neither parameters.type nor parameters.uris does, as the document reads it. */
const deletesAll = (tenant: string) => `neither type nor uris: deletes all lookups of tenant ${tenant}`;

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
  const malformed = (list ?? []).findIndex((u) => !/^[^/]+\/[^/]+\/.+$/.test(u));
  if (malformed >= 0)
    return {
      tenant,
      problem: `parameters.uris[${malformed}] is ${JSON.stringify(list?.[malformed])}, expected a lookup URI <tenant_id>/<type_name>/<code>, e.g. "${tenant}/<type_name>/<code>"`,
    };
  const reading: DeleteTaskReading = { tenant, ...(list === undefined ? {} : { uris: list }) };
  if (type === undefined && list === undefined)
    reading.wholeTenant = `the task as the document reads it: ${deletesAll(tenant)}. If that is what you mean, this finding only says so; to delete less, send ${example}`;
  else if (type === undefined && list?.length === 0)
    reading.wholeTenant = `parameters.uris is an empty list: the document does not say what an empty list deletes, and a provider that reads it as not set deletes all lookups of tenant ${tenant}; send no task when there is nothing to delete`;
  return reading;
}
