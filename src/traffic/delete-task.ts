// What reads show after a delete task (Endpoints / Task rules): a task with type delete removes all
// lookups of its tenant, those of parameters.type only, or the lookups parameters.uris lists. Whether a
// task completes before its answer or later is not shown, so a task is judged from the moment the traffic
// shows it complete (its answer, or a read of the task, with a status that says so); a scan of the tenant
// after that returning a lookup the task removed breaks the rule, unless the lookup's updateDate is after
// the task (made again since, by a way the traffic need not show). Scans after a task whose completion the
// traffic never showed are undecided.
import { isObject } from "../contract/index.ts";
import { parseJson } from "../rules/caller/traffic.ts";
import { tenantOfPath } from "./roles.ts";
import type { ObservedExchange, ServiceRule, ServiceRuleJudge } from "./service-rule.ts";
import type { Tally } from "./tally.ts";

export const DELETE_TASK_RULE = {
  id: "service/deleted-lookups-gone",
  level: "MUST",
  title: "MUST NOT return, in a scan after a delete task completed, a lookup the task removed",
  requirements: ["TASK-02", "TASK-03", "TASK-04"],
  opportunity: "a page of a lookups scan of a tenant after a delete task of that tenant completed",
  notExercised: "the traffic holds no lookups scan after a completed delete task of its tenant",
} satisfies ServiceRule;

/** A task status that says the task is over and done (the status values are not shown). */
const DONE = /^(completed?|done|succeeded|success(ful)?|finished)$/i;
/** A task status that says it will not delete (anymore). */
const FAILED = /^(failed|failure|error|cancell?ed|aborted)$/i;
/** Slack for clocks between the recording's times and the service's updateDate. */
const CLOCK_SLACK_MS = 2_000;
const TASKS_PER_TENANT = 16;
const TENANTS_KEPT = 1_000;

/** What a task removes: every lookup of the tenant, those of one type, or the lookups listed. */
type Selection = { kind: "all" } | { kind: "type"; type: string } | { kind: "uris"; keys: Set<string> };

interface Task {
  seq: number;
  at: number;
  id: string | undefined;
  selection: Selection;
  /** seq of the exchange that showed it complete. */
  doneSeq: number | undefined;
}

const typeName = (type: string) => type.replace(/^.*\//, "");

function describeSelection(s: Selection): string {
  if (s.kind === "all") return "all lookups of the tenant";
  if (s.kind === "type") return `the lookups of type ${s.type}`;
  return `${s.keys.size} listed lookup${s.keys.size === 1 ? "" : "s"}`;
}

function selectionOf(body: unknown, tenant: string): Selection | undefined {
  if (!isObject(body) || typeof body.type !== "string" || body.type.toLowerCase() !== "delete")
    return undefined;
  const p = body.parameters;
  if (p === undefined || p === null || (isObject(p) && p.type === undefined && p.uris === undefined))
    return { kind: "all" };
  if (!isObject(p)) return undefined;
  // Both at once: which wins is not shown.
  if (p.type !== undefined && p.uris !== undefined) return undefined;
  if (typeof p.type === "string") return { kind: "type", type: typeName(p.type) };
  if (!Array.isArray(p.uris)) return undefined;
  const keys = new Set<string>();
  for (const uri of p.uris) {
    // <tenant_id>/<type_name>/<code>; another tenant's URI: what the task does with it is not shown.
    const parts = typeof uri === "string" ? uri.split("/") : [];
    if (parts.length === 3 && parts[0] === tenant) keys.add(`${parts[1]}/${parts[2]}`);
  }
  return { kind: "uris", keys };
}

function removes(s: Selection, type: string, code: string): boolean {
  if (s.kind === "all") return true;
  if (s.kind === "type") return s.type === type;
  return s.keys.has(`${type}/${code}`);
}

const PENDING = "scan pages after a delete task whose completion the traffic never showed";
const REMADE =
  "lookups a completed task removed, returned again with no updateDate to show they were made since";

export class DeleteTaskJudge implements ServiceRuleJudge {
  readonly rules = [DELETE_TASK_RULE];
  private readonly tasks = new Map<string, Task[]>();

  constructor(private readonly tally: (id: string) => Tally) {}

  see(x: ObservedExchange): void {
    if (x.status < 200 || x.status >= 300 || x.responseCut) return;
    const tenant = tenantOfPath(x.pathname);
    if (tenant === undefined) return;
    if (x.operation === "createTask") this.created(x, tenant);
    else if (x.operation === "getTask") this.read(x, tenant);
    else if (x.operation === "scanLookups") this.scanned(x, tenant);
  }

  private created(x: ObservedExchange, tenant: string): void {
    const selection = selectionOf(parseJson(x.body), tenant);
    if (selection === undefined) return;
    const answer = parseJson(x.responseBody);
    const id =
      isObject(answer) && (typeof answer.id === "string" || typeof answer.id === "number")
        ? String(answer.id)
        : undefined;
    const status = isObject(answer) && typeof answer.status === "string" ? answer.status : "";
    if (FAILED.test(status)) return;
    const list = this.tasks.get(tenant) ?? [];
    list.push({ seq: x.seq, at: x.at, id, selection, doneSeq: DONE.test(status) ? x.seq : undefined });
    if (list.length > TASKS_PER_TENANT) list.shift();
    this.tasks.delete(tenant);
    this.tasks.set(tenant, list);
    if (this.tasks.size > TENANTS_KEPT) this.tasks.delete(this.tasks.keys().next().value as string);
  }

  private read(x: ObservedExchange, tenant: string): void {
    const id = decodeURIComponent(x.pathname.replace(/^.*\//, ""));
    const answer = parseJson(x.responseBody);
    const status = isObject(answer) && typeof answer.status === "string" ? answer.status : "";
    const list = this.tasks.get(tenant) ?? [];
    const task = list.find((t) => t.id === id);
    if (task === undefined) return;
    if (DONE.test(status)) task.doneSeq ??= x.seq;
    else if (FAILED.test(status)) list.splice(list.indexOf(task), 1);
  }

  private scanned(x: ObservedExchange, tenant: string): void {
    const list = this.tasks.get(tenant);
    if (list === undefined || list.length === 0) return;
    const answer = parseJson(x.responseBody);
    if (!isObject(answer) || !Array.isArray(answer.values)) return;
    const done = list.filter((t) => t.doneSeq !== undefined && t.doneSeq < x.seq);
    const tally = this.tally(DELETE_TASK_RULE.id);
    if (done.length === 0) {
      tally.undecide(PENDING);
      return;
    }
    tally.opportunities += 1;
    for (const record of answer.values) {
      if (!isObject(record) || record.type === undefined || record.code === undefined) continue;
      const type = typeName(String(record.type));
      const code = String(record.code);
      const task = done.find((t) => removes(t.selection, type, code));
      if (task === undefined) continue;
      const updated = typeof record.updateDate === "number" ? record.updateDate : undefined;
      if (updated === undefined) {
        tally.undecide(REMADE);
        continue;
      }
      // Updated (or made again) after the task started: not what the task removed.
      if (updated > task.at - CLOCK_SLACK_MS) continue;
      tally.violate(
        x.seq,
        `the scan of tenant ${tenant} returned lookup ${type}/${code} (updateDate ${new Date(updated).toISOString()}), which the delete task at #${task.seq} (${describeSelection(task.selection)}) removed; the traffic showed the task complete at #${task.doneSeq}`,
      );
      return;
    }
  }
}
