// The delete task. These checks delete lookups the interface cannot create again, so their order is
// fixed: harmless ones first (tasks that name absent lookups), then deletion by URIs, then by type,
// then the whole tenant. index.ts puts this suite after every suite that reads lookups.

import fc from "fast-check";
import {
  type Check,
  type CheckContext,
  CheckFailure,
  defineFact,
  explore,
  fail,
  inconclusive,
  requestOf,
  runsAtDepth,
} from "../src/check/index.ts";
import { type ApiResponse, describeResponse, lookupUri, type Task } from "../src/client/index.ts";
import { lookupTypeUri } from "../src/contract/index.ts";
import { lookupScan } from "./lookup-scan.ts";
import { statusIsOk } from "./service.ts";
import { absentLookupTasks, absentLookupUri, typeName } from "./support/data-operations.ts";
import { type CheckDefinition, defineCheck } from "./support/define.ts";
import { runShares, shareGone, tenantBeforeDeletes } from "./support/deleting-shares.ts";
import { checkProperty } from "./support/property.ts";
import { judgeSuccess } from "./support/response-judges.ts";
import { failFinding, identityFinding } from "./support/scan-judges.ts";
import { distinct, nothingToJudge, readScroll } from "./support/scan-reads.ts";
import type { ScanRecordShape, ScanSubject } from "./support/scan-subject.ts";
import { scrollIdEncodingFact } from "./support/scroll-encoding.ts";
import { clientOf } from "./support/target-client.ts";

/** How long the kit waits for an asynchronous deletion, in the target's time. */
export const deletionWaitMs = 10_000;
const pollEveryMs = 200;

const otherTenantScan = (tenant: string): ScanSubject => ({
  ...lookupScan,
  name: `the lookups scan of ${tenant}`,
  role: "otherAdmin",
  endpoint: () => ({ kind: "lookups", tenantId: tenant }),
});

/**
 * The tenant's lookups as the union of two scrolls with different page sizes: a scan that loses or repeats
 * records at page boundaries is the scan checks' finding, and must not make a deletion look wrong here.
 */
async function unionRead(ctx: CheckContext, subject: ScanSubject): Promise<ScanRecordShape[]> {
  const first = (await readScroll(ctx, subject, { limit: 100 })).records;
  const second = (await readScroll(ctx, subject, { limit: 99 })).records;
  return distinct(subject, [...first, ...second]);
}

/**
 * The tenant's lookups after a deletion, read as cheaply as the answer allows: one scroll, and only when it
 * disagrees with what should be there a second one with another page size joins it (so a scan that loses
 * records at page boundaries, the scan checks' finding, does not make the deletion look wrong).
 */
async function settledRead(
  ctx: CheckContext,
  subject: ScanSubject,
  expected: readonly string[],
  first?: ScanRecordShape[],
): Promise<ScanRecordShape[]> {
  const records = distinct(subject, first ?? (await readScroll(ctx, subject, { limit: 100 })).records);
  const want = new Set(expected);
  if (records.length === want.size && records.every((r) => want.has(subject.identity(r)))) return records;
  return distinct(subject, [...records, ...(await readScroll(ctx, subject, { limit: 99 })).records]);
}

async function lookupsOf(ctx: CheckContext): Promise<ScanRecordShape[]> {
  return unionRead(ctx, lookupScan);
}

/** Whether credentials.otherAdmin can read the other tenant: what the target file says, not a rule of the
 *  interface. Where it cannot, the other tenant is left unjudged (and the log says why) rather than the
 *  target failed for its file's description. */
async function readOtherTenant(
  ctx: CheckContext,
  read: (subject: ScanSubject) => Promise<ScanRecordShape[]>,
): Promise<string[] | undefined> {
  const other = ctx.target.otherTenant;
  if (!other || !ctx.target.credentials.otherAdmin) return undefined;
  try {
    return (await read(otherTenantScan(other))).map(lookupScan.identity).sort();
  } catch (error) {
    if (!(error instanceof CheckFailure)) throw error;
    ctx.log.info(
      `the otherAdmin client cannot read tenant ${other} (${error.message}); the other tenant is left ` +
        "unjudged: credentials.otherAdmin must be a client with ROLE_ADMIN_TENANT_ of otherTenant",
    );
    return undefined;
  }
}

/** The other tenant's lookups before a check's first deletion (later deletions start from what the
 *  previous one left there); undefined when the target gives no way to read them. */
async function otherTenantBefore(ctx: CheckContext): Promise<string[] | undefined> {
  const seen = ctx.facts.get(otherTenantSeen);
  if (seen !== undefined) return seen.lookups;
  const before = await readOtherTenant(ctx, (subject) => unionRead(ctx, subject));
  ctx.facts.set(otherTenantSeen, { lookups: before });
  return before;
}

/** The tenant's lookups as the deleting check last read them whole (after a deletion of its own): its next
 *  deletion starts from there instead of reading again. A check's own: each starts without (forgetReads). */
const lookupsSeen = defineFact<ScanRecordShape[] | undefined>(
  "delete-task/lookups-seen",
  "the tenant's lookups as the running delete-task check last read them (each such check starts without)",
);

/** The other tenant's lookups as the deleting check last read them (after a deletion of its own; lookups
 *  undefined: the target gives no way to read them). A check's own, like lookupsSeen. */
const otherTenantSeen = defineFact<{ lookups: string[] | undefined } | undefined>(
  "delete-task/other-tenant-seen",
  "the other tenant's lookups as the running delete-task check last read them (each such check starts without)",
);

/** The facts of a check that deletes and judges what is left: the scroll id encoding, and its own reads. */
const DELETING_FACTS = [scrollIdEncodingFact, lookupsSeen, otherTenantSeen, tenantBeforeDeletes];

/** A deleting check starts from the tenants as they are, not as an earlier check last read them. */
function forgetReads(ctx: CheckContext): void {
  ctx.facts.set(lookupsSeen, undefined);
  ctx.facts.set(otherTenantSeen, undefined);
}

async function otherTenantUntouched(
  ctx: CheckContext,
  before: string[] | undefined,
  what: string,
  request?: { method: string; url: string },
): Promise<void> {
  if (before === undefined) return;
  const after = await readOtherTenant(ctx, (subject) => settledRead(ctx, subject, before));
  ctx.facts.set(otherTenantSeen, { lookups: after });
  failFinding(
    identityFinding(before, after ?? [], { repeats: "ignore" }),
    `tenant ${ctx.target.otherTenant} after ${what} in ${ctx.target.tenant}`,
    request,
  );
}

/** Polls the lookups scan (one scroll per poll) until none of `gone` is left or the wait is over; then
 *  answers the tenant's lookups (see settledRead). */
async function awaitDeletion(
  ctx: CheckContext,
  gone: ReadonlySet<string>,
  expected: readonly string[],
  what: string,
): Promise<ScanRecordShape[]> {
  const started = ctx.clock.now();
  for (;;) {
    const records = (await readScroll(ctx, lookupScan, { limit: 100 })).records;
    // The poll that saw the task done is the first read of the tenant's lookups.
    if (!records.some((r) => gone.has(lookupScan.identity(r)))) {
      const after = await settledRead(ctx, lookupScan, expected, records);
      ctx.facts.set(lookupsSeen, after);
      return after;
    }
    if (ctx.clock.now() - started >= deletionWaitMs)
      fail(
        `${what}: not done ${deletionWaitMs / 1000} s after the task was accepted (polled the lookups scan)`,
        {
          expected: `the listed lookups gone within ${deletionWaitMs / 1000} s`,
          actual: `still there: ${[...gone].filter((id) => records.some((r) => lookupScan.identity(r) === id)).join(", ")}`,
        },
      );
    await ctx.clock.sleep(pollEveryMs);
  }
}

/** Fails unless a task request succeeded (2xx, and JSON where it has a body), with its answer as data. */
function ensureAccepted(response: ApiResponse<Task>, what: string): void {
  const problem = judgeSuccess(response, what);
  if (problem !== undefined)
    fail(problem, {
      expected: "a 2xx answer",
      actual: `${response.status} ${response.text.slice(0, 200)}`,
      request: requestOf(response.request.method, response.request.url),
    });
}

/** The detail of a failure about one answer: what was expected, what came, and the request. */
function answerDetail(response: ApiResponse<unknown>, expected: string) {
  return {
    expected,
    actual: `${response.status} ${response.text.slice(0, 200)}`,
    request: requestOf(response.request.method, response.request.url),
  };
}

function uriOf(ctx: CheckContext, record: ScanRecordShape): string {
  return lookupUri(ctx.target.tenant, typeName(String(record.type)), String(record.code));
}

async function deleteAndAwait(
  ctx: CheckContext,
  parameters: { type?: string; uris?: string[] } | undefined,
  gone: (record: ScanRecordShape) => boolean,
  before: ScanRecordShape[],
  what: string,
): Promise<void> {
  const otherBefore = await otherTenantBefore(ctx);
  const response = await clientOf(ctx).deleteTask(await ctx.token("admin"), ctx.target.tenant, parameters);
  explore(
    ctx,
    "parameters",
    parameters?.type !== undefined
      ? "type"
      : parameters?.uris
        ? "uris"
        : parameters
          ? "an empty object"
          : "none",
  );
  if (parameters?.type !== undefined) explore(ctx, "lookup type", typeName(parameters.type));
  ensureAccepted(response, what);
  const expected = before.filter((r) => !gone(r)).map(lookupScan.identity);
  const removed = new Set(before.filter(gone).map(lookupScan.identity));
  const after = await awaitDeletion(ctx, removed, expected, what);
  failFinding(
    identityFinding(expected, after.map(lookupScan.identity), { repeats: "ignore" }),
    `${what}: the lookups left`,
    response.request,
  );
  await otherTenantUntouched(ctx, otherBefore, what, response.request);
}

// ---------------------------------------------------------------- model: deletion by URIs
interface DeleteModel {
  remaining: ScanRecordShape[];
  /** Whether a lookup is of this check's share (deleting-shares.ts): the only ones its tasks list. */
  mine: (record: ScanRecordShape) => boolean;
  /** The tasks this run sent, in words, and the lookups each listed. */
  sent: { what: string; ids: Set<string>; request: { method: string; url: string } }[];
}
interface DeleteReal {
  ctx: CheckContext;
}

/** Sends one delete task by URIs. The run's tasks are observed together once they are done (settle). */
class DeleteUris implements fc.AsyncCommand<DeleteModel, DeleteReal> {
  constructor(
    readonly picks: number[],
    readonly withAbsentUri: boolean,
  ) {}
  check = (m: Readonly<DeleteModel>) => m.remaining.some(m.mine);
  async run(m: DeleteModel, r: DeleteReal) {
    const own = m.remaining.filter(m.mine);
    const chosen = [...new Set(this.picks.map((p) => p % own.length))].map((i) => own[i] as ScanRecordShape);
    const uris = chosen.map((record) => uriOf(r.ctx, record));
    if (this.withAbsentUri) uris.push(absentLookupUri(r.ctx.target.tenant));
    const ids = new Set(chosen.map(lookupScan.identity));
    const what = `the delete task with uris ${uris.join(", ")}`;
    const response = await clientOf(r.ctx).deleteTask(await r.ctx.token("admin"), r.ctx.target.tenant, {
      uris,
    });
    explore(r.ctx, "parameters", "uris");
    explore(r.ctx, "uris", chosen.length === 1 ? "one" : "several");
    if (this.withAbsentUri) explore(r.ctx, "uris", "an absent one beside them");
    ensureAccepted(response, what);
    m.sent.push({ what, ids, request: response.request });
    m.remaining = m.remaining.filter((record) => !ids.has(lookupScan.identity(record)));
  }
  toString = () => `deleteUris([${this.picks.join(", ")}]${this.withAbsentUri ? " + an absent uri" : ""})`;
}

/**
 * Observes the tasks of one run together, once they are done: one read of each tenant shows every listed
 * lookup gone and every other one still there (a task that removed an unlisted lookup is a missing record
 * here, whichever task of the run it was).
 */
async function settle(ctx: CheckContext, model: DeleteModel, otherBefore: string[] | undefined) {
  if (model.sent.length === 0) return;
  const listed = new Set(model.sent.flatMap((task) => [...task.ids]));
  const what =
    model.sent.length === 1
      ? (model.sent[0]?.what ?? "")
      : `the ${model.sent.length} delete tasks of this run`;
  const expected = model.remaining.map(lookupScan.identity);
  const after = await awaitDeletion(ctx, listed, expected, what);
  const finding = identityFinding(expected, after.map(lookupScan.identity), { repeats: "ignore" });
  if (finding) {
    // The record at fault names the task: a listed one still there, or an unlisted one gone.
    const record = finding.detail.record ?? "";
    const task = model.sent.find((t) => t.ids.has(record)) ?? model.sent.at(-1);
    const tasks = model.sent.map((t) => t.what).join("; ");
    fail(`after ${tasks}: the lookups left: ${finding.message}`, {
      ...finding.detail,
      ...(task ? { request: requestOf(task.request.method, task.request.url) } : {}),
    });
  }
  await otherTenantUntouched(ctx, otherBefore, what, model.sent.at(-1)?.request);
  explore(ctx, "tenant", otherBefore === undefined ? "own" : "own, another tenant's kept");
}

// ---------------------------------------------------------------- URIs naming another tenant's lookup

/** Where a lookup is to be looked for: in this tenant (admin) or in the other one (otherAdmin). */
interface Place {
  tenant: string;
  role: "admin" | "otherAdmin";
}

/** Whether the lookup of `identity` is in the place's tenant: one scroll filtered by its code, judged by
 *  identity, so a filter that answers more than asked (or ignores case) changes nothing here. */
async function holds(
  ctx: CheckContext,
  place: Place,
  identity: string,
  code: string,
  confirm = false,
): Promise<boolean> {
  const subject: ScanSubject = {
    ...lookupScan,
    name: `the lookups scan of ${place.tenant}`,
    role: place.role,
    endpoint: () => ({ kind: "lookups", tenantId: place.tenant }),
  };
  const { records } = await readScroll(ctx, subject, { filter: `equals(code,'${code}')`, limit: 100 });
  if (records.some((r) => lookupScan.identity(r) === identity)) return true;
  // Before a deletion is held against the target: the tenant read whole, so that a filtered scan that
  // loses records (the scan checks' finding) is not taken for one.
  if (!confirm) return false;
  return (await readScroll(ctx, subject, { limit: 100 })).records.some(
    (r) => lookupScan.identity(r) === identity,
  );
}

/**
 * Waits until an accepted task has run: its listed lookup of this tenant (`marker`) is gone, or the task
 * status (the kit's extension, where the target has it) is final, or the wait is over. A task that fails
 * as a whole for the foreign URI is one way to refuse it, so a marker that stays is no finding here.
 */
async function awaitTaskRun(
  ctx: CheckContext,
  response: ApiResponse<Task>,
  marker: ScanRecordShape,
  what: string,
): Promise<void> {
  const client = clientOf(ctx);
  const markerId = lookupScan.identity(marker);
  const taskId = (response.body as Task | undefined)?.id;
  const started = ctx.clock.now();
  const here: Place = { tenant: ctx.target.tenant, role: "admin" };
  while (await holds(ctx, here, markerId, String(marker.code))) {
    if (typeof taskId === "string") {
      const status = await client.taskStatus(await ctx.token("admin"), ctx.target.tenant, taskId);
      const value = (status.body as Task | undefined)?.status;
      if (status.ok && (value === "COMPLETED" || value === "FAILED")) return;
    }
    if (ctx.clock.now() - started >= deletionWaitMs) {
      ctx.log.info(
        `${what}: ${markerId} is still there ${deletionWaitMs / 1000} s after the task was accepted`,
      );
      return;
    }
    await ctx.clock.sleep(pollEveryMs);
  }
}

/**
 * A task of this tenant whose URI names a lookup of another tenant, e.g. globex/Country/AT sent to
 * /tasks/acme, or a path that resolves there (acme/../globex/Country/AT). The document's URIs carry their
 * tenant and a task removes "the listed lookups" of "the tenant": acme's own Country/AT is not listed, so
 * it must stay whatever the target does with the URI (refuse the task, or ignore the URI). The other
 * tenant's Country/AT must stay too where the target file says the admin client holds nothing of that
 * tenant (a tenant not on the caller's list); where the admin may administer it, deleting the lookup the URI
 * names is one reading of "removes the listed lookups", which the kit does not hold against the target.
 * Each task also lists one lookup of this tenant: once that one is gone the task has run, so a target that
 * accepts the task is judged after it ran, and one that refuses it at once.
 */
async function foreignUrisDeleteNothing(ctx: CheckContext): Promise<void> {
  const tenant = ctx.target.tenant;
  const other = ctx.target.otherTenant ?? `${tenant}-lckit-other`;
  const plain = (r: ScanRecordShape) =>
    typeof r.code === "string" && /^[\w.-]+$/.test(r.code) && typeof r.type === "string";
  // The tenant read whole: the deleting checks' shares are drawn from it (deleting-shares.ts).
  const present = distinct(lookupScan, (await readScroll(ctx, lookupScan, { limit: 100 })).records);
  const shares = runShares(ctx, present);
  const mine = (r: ScanRecordShape) => shares.uriShareOf(r) === "foreign-uris";
  const own = present.filter((r) => plain(r) && mine(r));
  // The other tenant's lookups, where the target gives a way to read them: a victim both tenants hold shows
  // a task that resolved the URI in either tenant.
  const theirs = new Set(
    (await readOtherTenant(
      ctx,
      async (subject) => (await readScroll(ctx, subject, { limit: 100 })).records,
    )) ?? [],
  );
  // Who sends the foreign URIs: the admin (both forms), and the editor (ROLE_RDM_EDIT: "the tenant must be
  // in the user's tenant list") where the target file names one.
  const cases: { role: "admin" | "editor"; resolving: boolean }[] = [
    { role: "admin", resolving: false },
    { role: "admin", resolving: true },
    ...(ctx.target.credentials.editor ? [{ role: "editor" as const, resolving: false }] : []),
  ];
  // The victim (the lookup the foreign URI names) is of the share too: one both tenants hold where there is
  // one (both sides judged), else one of the other tenant (its side judged), else one of this tenant (this
  // side judged). It is taken from the end of the share and the markers from its start, so that a task
  // which removes a neighbour of its listed marker is not mistaken for one that followed the foreign URI.
  const plainId = /^[\w.-]+\/[\w.-]+$/;
  const theirsInShare = [...theirs].filter((id) => {
    const [type, code] = id.split("/");
    return plainId.test(id) && shares.uriShareOf({ type, code }) === "foreign-uris";
  });
  const both = own.findLast((r) => theirs.has(lookupScan.identity(r)));
  const last = own.at(-1);
  const victimId =
    (both && lookupScan.identity(both)) ?? theirsInShare.sort().at(-1) ?? (last && lookupScan.identity(last));
  const markers = own.filter((r) => lookupScan.identity(r) !== victimId).slice(0, cases.length);
  if (victimId === undefined || markers.length < cases.length) {
    if (present.some(plain))
      shareGone(ctx, "delete-task/foreign-uris-delete-nothing", "its third of the URIs");
    inconclusive({
      saw: `tenant ${tenant} has fewer than ${cases.length + 1} lookups with plain codes`,
      readings: [
        "a task naming another tenant's URI deletes nothing",
        "it deletes a lookup of either tenant",
      ],
      decideBy: `certify with lookups of three types or more, with plain codes, in tenant ${tenant}`,
    });
  }
  const id = victimId;
  const [type, code] = id.split("/") as [string, string];
  const ownHolds = own.some((r) => lookupScan.identity(r) === id);
  let otherHolds = theirs.has(id);
  const here: Place = { tenant, role: "admin" };
  const there: Place = { tenant: other, role: "otherAdmin" };
  for (const [index, { role, resolving }] of cases.entries()) {
    const marker = markers[index] as ScanRecordShape;
    // A path that resolves to the other tenant's lookup once "." segments are applied.
    const foreign = resolving ? `${tenant}/../${other}/${type}/${code}` : `${other}/${type}/${code}`;
    const uris = [foreign, uriOf(ctx, marker)];
    const what = `the delete task of tenant ${tenant} with uris ${uris.join(", ")} sent as ${role}`;
    const response = await clientOf(ctx).deleteTask(await ctx.token(role), tenant, { uris });
    explore(ctx, "parameters", "uris");
    explore(ctx, "tenant", resolving ? "a URI resolving to another tenant" : "another tenant's URI");
    explore(ctx, "role", role);
    if (response.ok) await awaitTaskRun(ctx, response, marker, what);
    const answered = `answered ${response.status}`;
    if (ownHolds && !(await holds(ctx, here, id, code, true)))
      fail(
        `${what} (${answered}) deleted ${id} of tenant ${tenant}, which it does not list (${foreign} names a lookup of tenant ${other})`,
        {
          expected: `${id} of tenant ${tenant} stays (not listed)`,
          actual: `${id} of tenant ${tenant} deleted`,
          record: id,
          field: "parameters.uris",
          request: requestOf(response.request.method, response.request.url),
        },
      );
    if (otherHolds && !(await holds(ctx, there, id, code, true))) {
      if (ctx.target.otherTenantLackedBy?.includes(role) !== true) {
        ctx.log.info(
          `${what} deleted ${id} of tenant ${other}; the target file does not say the ${role} client lacks ` +
            `${other} (otherTenantLackedBy), so deleting the lookup the URI names is not held against the target`,
        );
        otherHolds = false;
        continue;
      }
      fail(
        `${what} (${answered}) deleted ${id} of tenant ${other}, a tenant the ${role} client holds nothing of`,
        {
          expected: `${id} of tenant ${other} stays`,
          actual: `${id} of tenant ${other} deleted`,
          record: id,
          field: "parameters.uris",
          request: requestOf(response.request.method, response.request.url),
        },
      );
    }
  }
}

// ---------------------------------------------------------------- checks

/** What a check declares whose tasks name only absent lookups: they delete nothing, so they run anyway. */
const HARMLESS_TASK_CHECK = {
  safety: "write",
  harmlessCalls: [absentLookupTasks],
  changes: "data",
  facts: [scrollIdEncodingFact],
  needs: { roles: ["admin"] },
} satisfies Partial<CheckDefinition>;

/** What a check declares that deletes lookups for good (its own reads of the tenants are facts too). */
const DELETING_CHECK = {
  safety: "destructive",
  changes: "data",
  facts: DELETING_FACTS,
  needs: { roles: ["admin"] },
} satisfies Partial<CheckDefinition>;

/** Sends a delete task naming one absent lookup of the tenant. */
async function absentLookupTask(ctx: CheckContext): Promise<ApiResponse<Task>> {
  return clientOf(ctx).deleteTask(await ctx.token("admin"), ctx.target.tenant, {
    uris: [absentLookupUri(ctx.target.tenant)],
  });
}

/**
 * A form of the delete task that removes a whole selection of the tenant's lookups: parameters.type (the
 * lookups of one type) or no parameters (all of them). From the tenant's lookups before the task, it says
 * the task's parameters, which lookups it removes, and the task in words.
 */
interface SelectionForm {
  declared: Omit<CheckDefinition, "run" | keyof typeof DELETING_CHECK>;
  select(
    ctx: CheckContext,
    before: ScanRecordShape[],
  ): { parameters: { type?: string } | undefined; gone: (record: ScanRecordShape) => boolean; what: string };
  /** What else is judged once the task is done, from the lookups it removed. */
  after?: (ctx: CheckContext, removed: ScanRecordShape[]) => Promise<void>;
}

/** After a task by type: the lookups scan filtered by the type's name, the document's sample filter
 *  (equals(type,'<type_name>')), lists none of the removed lookups. Whether the name matches the stored URI
 *  is not shown (lookup-scan/filter-type-name, SHOULD): listing nothing is legal, listing a removed one not. */
async function noneByName(ctx: CheckContext, removed: ScanRecordShape[]): Promise<void> {
  const gone = new Set(removed.map(lookupScan.identity));
  if (removed[0] === undefined) return;
  const deletedType = typeName(String(removed[0].type));
  const filter = `equals(type,'${deletedType}')`;
  const { records, result } = await readScroll(ctx, lookupScan, { filter, limit: 100 });
  const back = distinct(lookupScan, records).filter((r) => gone.has(lookupScan.identity(r)));
  explore(ctx, "read after delete", "the type by its name");
  if (back.length > 0)
    fail(
      `after the delete task of type ${lookupTypeUri(deletedType)}: the lookups scan filter=${filter} still lists ${back.length} removed lookup(s)`,
      {
        expected: "none of the removed lookups (the kept lookups of the type, or none)",
        actual: `removed but listed: ${back.slice(0, 5).map(lookupScan.identity).join(", ")}`,
        record: lookupScan.identity(back[0] as ScanRecordShape),
        ...(result.pages[0]
          ? {
              request: requestOf(
                result.pages[0].response.request.method,
                result.pages[0].response.request.url,
              ),
            }
          : {}),
      },
    );
}

const SELECTION_FORMS: SelectionForm[] = [
  {
    declared: {
      id: "delete-task/by-type",
      title: "MUST delete exactly the lookups of parameters.type, and only in the task's tenant",
      requirements: ["TASK-03", "TASK-05"],
    },
    select(ctx, before) {
      // The type with the most lookups before the run's first deleting check (its share, see
      // deleting-shares.ts): a deletion that stops after a page or a batch shows only where the type holds
      // more than one. Other types are left for the other deleting checks and delete-task/all-of-tenant.
      const type = runShares(ctx, before).byType;
      const count = before.filter((r) => typeName(String(r.type)) === type).length;
      if (type === undefined || count === 0) shareGone(ctx, "delete-task/by-type", "the largest type");
      explore(ctx, "lookup type", `${type} (${count} lookups)`);
      return {
        parameters: { type: lookupTypeUri(type) },
        gone: (r) => typeName(String(r.type)) === type,
        what: `delete task with parameters.type ${lookupTypeUri(type)}`,
      };
    },
    after: noneByName,
  },
  {
    declared: {
      id: "delete-task/all-of-tenant",
      title:
        "MUST delete every lookup of the tenant when the task has no parameters (or parameters without type or uris, drawn by the run's seed), and only there, and still answer status OK",
      requirements: ["TASK-02", "TASK-05", "SERVICE-01", "SERVICE-02"],
      // It leaves the tenant empty: the planner runs it after every other check that reads lookups.
      emptiesTenant: true,
    },
    // Both forms the document gives "all lookups of the tenant": no parameters ("body with type delete and
    // no parameters"), and parameters without parameters.type or uris ("When the parameter is not set, all
    // lookups of the tenant are deleted"). The tenant empties once per run: the run's seed draws the form
    // (odd: no parameters; even: parameters {}), and the report's "parameters" dimension names it.
    select: (ctx) => {
      const empty = ctx.seed % 2 === 0;
      return {
        parameters: empty ? {} : undefined,
        gone: () => true,
        what: empty ? "delete task with parameters {}" : "delete task without parameters",
      };
    },
    // A tenant without lookups is data, not a fault of the service: /healthcheck and /status answer "object
    // with status (string, value OK)" whatever the tenants hold.
    async after(ctx) {
      const client = clientOf(ctx);
      const auth = await ctx.token("admin");
      const empty = `after the delete task without parameters emptied tenant ${ctx.target.tenant}`;
      statusIsOk(await client.healthcheck(auth), `GET /healthcheck ${empty}`);
      statusIsOk(await client.status(auth), `GET /status ${empty}`);
      explore(ctx, "service status", "read with the tenant empty");
    },
  },
];

const selectionCheck = (form: SelectionForm): Check =>
  defineCheck({
    ...form.declared,
    ...DELETING_CHECK,
    async run(ctx) {
      forgetReads(ctx);
      const before = await lookupsOf(ctx);
      // An empty tenant is the data's state, not a fault of the target: deleting nothing shows nothing, so
      // the rule is left unjudged.
      if (before.length === 0) nothingToJudge(ctx, lookupScan);
      const { parameters, gone, what } = form.select(ctx, before);
      await deleteAndAwait(ctx, parameters, gone, before, what);
      await form.after?.(ctx, before.filter(gone));
    },
  });

export const deleteTaskChecks: Check[] = [
  defineCheck({
    id: "delete-task/accepted",
    title: "MUST accept a delete task of type delete with a 2xx answer",
    requirements: ["TASK-01"],
    ...HARMLESS_TASK_CHECK,
    async run(ctx) {
      const response = await absentLookupTask(ctx);
      explore(ctx, "parameters", "uris");
      explore(ctx, "uris", "an absent lookup");
      ensureAccepted(response, "a delete task naming an absent lookup");
    },
  }),
  defineCheck({
    id: "delete-task/task-object",
    title: "SHOULD answer a delete task with 202 and a task object carrying id and status",
    requirements: ["TASK-06"],
    ...HARMLESS_TASK_CHECK,
    async run(ctx) {
      const response = await absentLookupTask(ctx);
      const task = response.body as Task | undefined;
      if (
        response.status !== 202 ||
        typeof task?.id !== "string" ||
        typeof task?.status !== "string" ||
        task.type !== "delete"
      )
        fail(
          `expected 202 with {"id", "type": "delete", "status", ...}, got ${describeResponse(response)}`,
          answerDetail(response, '202 with {"id", "type": "delete", "status", ...}'),
        );
    },
  }),
  defineCheck({
    id: "delete-task/task-status-completes",
    title: "SHOULD report a delete task through GET /tasks/{tenantId}/{taskId} until it is COMPLETED",
    requirements: ["TASK-07", "TASK-06"],
    ...HARMLESS_TASK_CHECK,
    async run(ctx) {
      const client = clientOf(ctx);
      const created = await absentLookupTask(ctx);
      const id = (created.body as Task | undefined)?.id;
      if (!created.ok || typeof id !== "string")
        fail(
          `expected a task object with an id, got ${describeResponse(created)}`,
          answerDetail(created, "a task object with an id"),
        );
      const started = ctx.clock.now();
      for (;;) {
        const status = await client.taskStatus(await ctx.token("admin"), ctx.target.tenant, id);
        const value = (status.body as Task | undefined)?.status;
        if (status.status !== 200 || typeof value !== "string")
          fail(
            `expected 200 with the task and its status, got ${describeResponse(status)}`,
            answerDetail(status, "200 with the task and its status"),
          );
        if (value === "COMPLETED") return;
        if (value === "FAILED")
          fail(`the task failed: ${describeResponse(status)}`, {
            ...answerDetail(status, "status COMPLETED"),
            field: "status",
            record: id,
          });
        if (ctx.clock.now() - started >= deletionWaitMs)
          fail(`the task is still ${value} ${deletionWaitMs / 1000} s after it was accepted`, {
            ...answerDetail(status, `status COMPLETED within ${deletionWaitMs / 1000} s`),
            field: "status",
            record: id,
          });
        await ctx.clock.sleep(pollEveryMs);
      }
    },
  }),
  defineCheck({
    id: "delete-task/invalid-requests-400",
    title: "SHOULD refuse another tenant's URIs, over 1000 URIs and a type other than delete with 400",
    requirements: ["TASK-08"],
    ...HARMLESS_TASK_CHECK,
    async run(ctx) {
      const tenant = ctx.target.tenant;
      const foreign = `${ctx.target.otherTenant ?? `${tenant}-other`}/LckitAbsentType/lckit-absent-code`;
      const bodies: [string, unknown][] = [
        ["a URI of another tenant", { type: "delete", parameters: { uris: [foreign] } }],
        [
          "1001 URIs",
          {
            type: "delete",
            parameters: { uris: Array.from({ length: 1001 }, (_, i) => `${absentLookupUri(tenant)}-${i}`) },
          },
        ],
        ["type lckit-unknown", { type: "lckit-unknown", parameters: { uris: [absentLookupUri(tenant)] } }],
      ];
      for (const [what, body] of bodies) {
        const response = await clientOf(ctx).createTask(await ctx.token("admin"), tenant, body);
        if (response.status !== 400)
          fail(
            `${what}: expected 400, got ${describeResponse(response)}`,
            answerDetail(response, `400 for ${what}`),
          );
      }
    },
  }),
  defineCheck({
    id: "delete-task/foreign-uris-delete-nothing",
    title:
      "MUST delete no unlisted lookup for a URI naming another tenant's lookup, and nothing of a tenant the caller lacks",
    requirements: ["TASK-04", "TASK-05", "LOOKUP-05", "AUTH-ROLES-04"],
    ...DELETING_CHECK,
    // It keeps no read of the tenants (lookupsSeen, otherTenantSeen): it asks for each lookup it judges.
    facts: [scrollIdEncodingFact, tenantBeforeDeletes],
    run: foreignUrisDeleteNothing,
  }),
  defineCheck({
    id: "delete-task/by-uris",
    title: "MUST delete exactly the listed lookups, and only in the task's tenant",
    requirements: ["TASK-04", "TASK-05", "TASK-01", "LOOKUP-05"],
    ...DELETING_CHECK,
    async run(ctx) {
      forgetReads(ctx);
      const initial = await lookupsOf(ctx);
      ctx.facts.set(lookupsSeen, initial);
      if (initial.length === 0) nothingToJudge(ctx, lookupScan);
      const shares = runShares(ctx, initial);
      const mine = (record: ScanRecordShape) => shares.uriShareOf(record) === "by-uris";
      if (!initial.some(mine)) shareGone(ctx, "delete-task/by-uris", "its third of the URIs");
      const commands = fc.commands(
        [
          fc
            .tuple(fc.array(fc.nat(10_000), { minLength: 1, maxLength: 3 }), fc.boolean())
            .map(([picks, absent]) => new DeleteUris(picks, absent)),
        ],
        { maxCommands: 5 },
      );
      await checkProperty(
        ctx,
        fc.asyncProperty(commands, async (cmds) => {
          // The tenants as the last run left them (read after its tasks were done): no need to read again.
          const model: DeleteModel = {
            remaining: ctx.facts.get(lookupsSeen) ?? (await lookupsOf(ctx)),
            mine,
            sent: [],
          };
          const otherBefore = await otherTenantBefore(ctx);
          await fc.asyncModelRun(() => ({ model, real: { ctx } }), cmds);
          await settle(ctx, model, otherBefore);
        }),
        // Each run deletes for good: no shrinking, and no more runs than needed. Each run's tasks are judged
        // by one read of each tenant: at the default depth fewer runs of more tasks each.
        { noShrink: true, numRuns: Math.min(runsAtDepth(ctx, 5), 10) },
      );
    },
  }),
  ...SELECTION_FORMS.map(selectionCheck),
];
