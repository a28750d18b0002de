// The caller rules of what a delete task deletes: never the whole tenant by mistake, only URIs of its own
// tenant (its body's shape is client/request-within-contract's); each task read once, shared by the two.

import { callerRule, type RuleVerdict, type Violation, verdict, where } from "./caller-rule.ts";
import { type DeleteTaskReading, readDeleteTask } from "./delete-task-reading.ts";
import { oncePerTraffic, type Traffic, type TrafficExchange } from "./traffic.ts";

export const deleteTaskWholeTenant = callerRule({
  id: "client/delete-task-whole-tenant",
  requirements: ["CALLER-TASK-02"],
  title:
    "SHOULD name what a delete task deletes (parameters.type or parameters.uris); a task with neither deletes every lookup of the tenant",
  opportunity: "a delete task of the documented shape",
  breaks:
    "neither `parameters.type` nor `parameters.uris` (or an empty `uris`): every lookup of the tenant goes",
  exercisedBy: "a delete task",
  judge: (traffic) =>
    judgeTasks(
      traffic,
      () => true,
      (read) => read.wholeTenant,
      NO_TASK,
    ),
});

export const deleteTaskUrisOfItsTenant = callerRule({
  id: "client/delete-task-uris-of-its-tenant",
  requirements: ["CALLER-TASK-03"],
  title: "SHOULD list in a delete task only lookup URIs of the task's own tenant (the path's)",
  opportunity: "a delete task with parameters.uris of the documented shape",
  breaks: "a URI of another tenant than the path's (the document does not say what a task does with it)",
  exercisedBy: "a delete by URIs",
  judge: (traffic) =>
    judgeTasks(
      traffic,
      (read) => read.uris !== undefined && read.uris.length > 0,
      (read) => {
        const foreign = (read.uris ?? [])
          .map((uri, i) => ({ uri, i }))
          .filter(({ uri }) => !uri.startsWith(`${read.tenant}/`));
        const first = foreign[0];
        if (first === undefined) return undefined;
        return `parameters.uris[${first.i}] "${first.uri}" is a lookup of tenant "${first.uri.split("/")[0]}", but the task is for tenant "${read.tenant}"${foreign.length > 1 ? ` (${foreign.length} such URIs)` : ""}; the document does not say what a task does with another tenant's lookup (a provider may refuse the task or skip the URI): send it in a task of its own tenant, POST /tasks/${first.uri.split("/")[0]}`;
      },
      "your client sent no delete task with parameters.uris of the documented shape; a client that deletes by URIs exercises it",
    ),
});

const NO_TASK =
  "your client sent no delete task (POST /tasks/{tenantId}); if it never deletes lookups, this rule does not apply to it";
const MALFORMED_TASKS =
  "no delete task your client sent was of the documented shape (client/request-within-contract says what is wrong); fix that, and this rule judges what the tasks delete";

/** Judges each delete task of the documented shape that a rule `applies` to (its opportunities): `broken`
 *  says why one breaks the rule. Not exercised: `none` applied, or no task was of the documented shape. */
function judgeTasks(
  traffic: Traffic,
  applies: (read: DeleteTaskReading) => boolean,
  broken: (read: DeleteTaskReading) => string | undefined,
  none: string,
): RuleVerdict {
  let opportunities = 0;
  const tasks = deleteTasks(traffic);
  const violations: Violation[] = [];
  for (const { x, read } of tasks) {
    if (read.problem !== undefined || !applies(read)) continue;
    opportunities += 1;
    const why = broken(read);
    if (why) violations.push({ seq: x.seq, message: `${where(x)}: ${why}` });
  }
  const malformed = tasks.length > 0 && tasks.every(({ read }) => read.problem !== undefined);
  return verdict(opportunities, violations, malformed ? MALFORMED_TASKS : none);
}

/** The delete tasks of one traffic, each read once, shared by the three task rules. */
const deleteTasks = oncePerTraffic((traffic: Traffic): { x: TrafficExchange; read: DeleteTaskReading }[] =>
  traffic.exchanges.filter((x) => x.operation === "createTask").map((x) => ({ x, read: readDeleteTask(x) })),
);
