// The delete task. These checks delete lookups the interface cannot create again, so their order is
// fixed: harmless ones first (tasks that name absent lookups), then deletion by URIs, then by type,
// then the whole tenant. index.ts puts this suite after every suite that reads lookups.
import fc from "fast-check";
import { type Check, type CheckContext, CheckFailure, fail, skip } from "../src/check/index.ts";
import { describeResponse, lookupUri, type Task } from "../src/client/index.ts";
import { lookupScan } from "./lookup-scan.ts";
import { absentLookupUri, typeName } from "./support/data-operations.ts";
import { defineCheck } from "./support/define.ts";
import { checkProperty } from "./support/property.ts";
import { ensure, judgeSuccess } from "./support/response-judges.ts";
import {
  distinct,
  identityProblem,
  readScroll,
  type ScanRecordShape,
  type ScanSubject,
} from "./support/scan-properties.ts";
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

async function lookupsOf(ctx: CheckContext): Promise<ScanRecordShape[]> {
  return unionRead(ctx, lookupScan);
}

/** The other tenant's lookups, when the target names one with admin credentials; else undefined. */
async function otherTenantLookups(ctx: CheckContext): Promise<string[] | undefined> {
  const other = ctx.target.otherTenant;
  if (!other || !ctx.target.credentials.otherAdmin) return undefined;
  return (await unionRead(ctx, otherTenantScan(other))).map(lookupScan.identity).sort();
}

/** The other tenant's lookups before a deletion. That credentials.otherAdmin can read otherTenant is what
 *  the target file says, not a rule of the interface: where it cannot, the check leaves the other tenant
 *  unjudged (and says why in its log) rather than failing the target for its file's description. */
async function otherTenantBefore(ctx: CheckContext): Promise<string[] | undefined> {
  // What the previous deletion of this check found there afterwards is what is there before this one.
  if (otherTenantSeen.has(ctx)) return otherTenantSeen.get(ctx);
  try {
    return await otherTenantLookups(ctx);
  } catch (error) {
    if (!(error instanceof CheckFailure)) throw error;
    ctx.log.info(
      `the otherAdmin client cannot read tenant ${ctx.target.otherTenant} (${error.message}); the other tenant ` +
        "is left unjudged: credentials.otherAdmin must be a client with ROLE_ADMIN_TENANT_ of otherTenant",
    );
    return undefined;
  }
}

/** The tenant's lookups as a check last read them whole (after a deletion of its own). */
const lookupsSeen = new WeakMap<CheckContext, ScanRecordShape[]>();

/** The other tenant's lookups as a check last read them (after a deletion of its own). */
const otherTenantSeen = new WeakMap<CheckContext, string[] | undefined>();

async function otherTenantUntouched(ctx: CheckContext, before: string[] | undefined): Promise<void> {
  if (before === undefined) return;
  const after = await otherTenantLookups(ctx);
  otherTenantSeen.set(ctx, after);
  ensure(
    identityProblem(before, after ?? [], { repeats: "ignore" }),
    `tenant ${ctx.target.otherTenant} after a delete task in ${ctx.target.tenant}`,
  );
}

/** Polls the lookups scan (one scroll per poll) until `done` holds or the wait is over; then answers the
 *  union read of the tenant's lookups. */
async function awaitDeletion(
  ctx: CheckContext,
  done: (ids: Set<string>) => boolean,
  what: string,
): Promise<ScanRecordShape[]> {
  const started = ctx.clock.now();
  for (;;) {
    const records = (await readScroll(ctx, lookupScan, { limit: 100 })).records;
    // The poll that saw the task done is the first half of the union read: only the second is sent.
    if (done(new Set(records.map(lookupScan.identity)))) {
      const after = distinct(lookupScan, [
        ...records,
        ...(await readScroll(ctx, lookupScan, { limit: 99 })).records,
      ]);
      lookupsSeen.set(ctx, after);
      return after;
    }
    if (ctx.clock.now() - started >= deletionWaitMs)
      fail(
        `${what}: not done ${deletionWaitMs / 1000} s after the task was accepted (polled the lookups scan)`,
      );
    await ctx.clock.sleep(pollEveryMs);
  }
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
  ensure(judgeSuccess(response, what));
  const expected = before.filter((r) => !gone(r)).map(lookupScan.identity);
  const removed = new Set(before.filter(gone).map(lookupScan.identity));
  const after = await awaitDeletion(ctx, (ids) => [...removed].every((id) => !ids.has(id)), what);
  ensure(
    identityProblem(expected, after.map(lookupScan.identity), { repeats: "ignore" }),
    `${what}: the lookups left`,
  );
  await otherTenantUntouched(ctx, otherBefore);
}

// ---------------------------------------------------------------- model: deletion by URIs
interface DeleteModel {
  remaining: ScanRecordShape[];
}
interface DeleteReal {
  ctx: CheckContext;
}

class DeleteUris implements fc.AsyncCommand<DeleteModel, DeleteReal> {
  constructor(
    readonly picks: number[],
    readonly withAbsentUri: boolean,
  ) {}
  check = (m: Readonly<DeleteModel>) => m.remaining.length > 0;
  async run(m: DeleteModel, r: DeleteReal) {
    const chosen = [...new Set(this.picks.map((p) => p % m.remaining.length))].map(
      (i) => m.remaining[i] as ScanRecordShape,
    );
    const uris = chosen.map((record) => uriOf(r.ctx, record));
    if (this.withAbsentUri) uris.push(absentLookupUri(r.ctx.target.tenant));
    const ids = new Set(chosen.map(lookupScan.identity));
    await deleteAndAwait(
      r.ctx,
      { uris },
      (record) => ids.has(lookupScan.identity(record)),
      m.remaining,
      `delete task with uris ${uris.join(", ")}`,
    );
    m.remaining = m.remaining.filter((record) => !ids.has(lookupScan.identity(record)));
  }
  toString = () => `deleteUris([${this.picks.join(", ")}]${this.withAbsentUri ? " + an absent uri" : ""})`;
}

// ---------------------------------------------------------------- checks
export const deleteTaskChecks: Check[] = [
  defineCheck({
    id: "delete-task/accepted",
    title: "MUST accept a delete task of type delete with a 2xx answer",
    requirements: ["TASK-01"],
    safety: "write",
    changes: "data",
    needs: { roles: ["admin"] },
    async run(ctx) {
      const response = await clientOf(ctx).deleteTask(await ctx.token("admin"), ctx.target.tenant, {
        uris: [absentLookupUri(ctx.target.tenant)],
      });
      ensure(judgeSuccess(response, "a delete task naming an absent lookup"));
    },
  }),
  defineCheck({
    id: "delete-task/task-object",
    title: "SHOULD answer a delete task with 202 and a task object carrying id and status",
    requirements: ["TASK-06"],
    safety: "write",
    changes: "data",
    needs: { roles: ["admin"] },
    async run(ctx) {
      const response = await clientOf(ctx).deleteTask(await ctx.token("admin"), ctx.target.tenant, {
        uris: [absentLookupUri(ctx.target.tenant)],
      });
      const task = response.body as Task | undefined;
      if (
        response.status !== 202 ||
        typeof task?.id !== "string" ||
        typeof task?.status !== "string" ||
        task.type !== "delete"
      )
        fail(`expected 202 with {"id", "type": "delete", "status", ...}, got ${describeResponse(response)}`);
    },
  }),
  defineCheck({
    id: "delete-task/task-status-completes",
    title: "SHOULD report a delete task through GET /tasks/{tenantId}/{taskId} until it is COMPLETED",
    requirements: ["TASK-07", "TASK-06"],
    safety: "write",
    changes: "data",
    needs: { roles: ["admin"] },
    async run(ctx) {
      const client = clientOf(ctx);
      const created = await client.deleteTask(await ctx.token("admin"), ctx.target.tenant, {
        uris: [absentLookupUri(ctx.target.tenant)],
      });
      const id = (created.body as Task | undefined)?.id;
      if (!created.ok || typeof id !== "string")
        fail(`expected a task object with an id, got ${describeResponse(created)}`);
      const started = ctx.clock.now();
      for (;;) {
        const status = await client.taskStatus(await ctx.token("admin"), ctx.target.tenant, id);
        const value = (status.body as Task | undefined)?.status;
        if (status.status !== 200 || typeof value !== "string")
          fail(`expected 200 with the task and its status, got ${describeResponse(status)}`);
        if (value === "COMPLETED") return;
        if (value === "FAILED") fail(`the task failed: ${describeResponse(status)}`);
        if (ctx.clock.now() - started >= deletionWaitMs)
          fail(`the task is still ${value} ${deletionWaitMs / 1000} s after it was accepted`);
        await ctx.clock.sleep(pollEveryMs);
      }
    },
  }),
  defineCheck({
    id: "delete-task/invalid-requests-400",
    title: "SHOULD refuse another tenant's URIs, over 1000 URIs and a type other than delete with 400",
    requirements: ["TASK-08"],
    safety: "write",
    changes: "data",
    needs: { roles: ["admin"] },
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
        if (response.status !== 400) fail(`${what}: expected 400, got ${describeResponse(response)}`);
      }
    },
  }),
  defineCheck({
    id: "delete-task/by-uris",
    title: "MUST delete exactly the listed lookups, and only in the task's tenant",
    requirements: ["TASK-04", "TASK-05", "TASK-01", "LOOKUP-05"],
    safety: "destructive",
    changes: "data",
    needs: { roles: ["admin"] },
    async run(ctx) {
      const initial = await lookupsOf(ctx);
      lookupsSeen.set(ctx, initial);
      if (initial.length === 0)
        skip(`tenant ${ctx.target.tenant} has no lookups to delete; the check needs data there`);
      const commands = fc.commands(
        [
          fc
            .tuple(fc.array(fc.nat(10_000), { minLength: 1, maxLength: 3 }), fc.boolean())
            .map(([picks, absent]) => new DeleteUris(picks, absent)),
        ],
        { maxCommands: 3 },
      );
      await checkProperty(
        ctx,
        fc.asyncProperty(commands, async (cmds) => {
          // The tenant as the last deletion left it (read after it was done): no need to read it again.
          const model: DeleteModel = { remaining: lookupsSeen.get(ctx) ?? (await lookupsOf(ctx)) };
          await fc.asyncModelRun(() => ({ model, real: { ctx } }), cmds);
        }),
        // Each run deletes for good: no shrinking, and no more runs than needed.
        { noShrink: true, numRuns: Math.min(ctx.runs, 10) },
      );
    },
  }),
  defineCheck({
    id: "delete-task/by-type",
    title: "MUST delete exactly the lookups of parameters.type, and only in the task's tenant",
    requirements: ["TASK-03", "TASK-05"],
    safety: "destructive",
    changes: "data",
    needs: { roles: ["admin"] },
    async run(ctx) {
      const before = await lookupsOf(ctx);
      const types = [...new Set(before.map((r) => typeName(String(r.type))))].sort();
      // An empty tenant is the data's state, not a fault of the target: nothing to judge.
      if (types.length === 0)
        skip(`tenant ${ctx.target.tenant} has no lookups left to delete by type; the check needs data there`);
      // The seed picks the type; another type is always left for delete-task/all-of-tenant where there is one.
      const type = types[Math.abs(ctx.seed) % types.length] as string;
      await deleteAndAwait(
        ctx,
        { type: `rdm/lookupTypes/${type}` },
        (r) => typeName(String(r.type)) === type,
        before,
        `delete task with parameters.type rdm/lookupTypes/${type}`,
      );
    },
  }),
  defineCheck({
    id: "delete-task/all-of-tenant",
    title: "MUST delete every lookup of the tenant when the task has no parameters, and only there",
    requirements: ["TASK-02", "TASK-05"],
    safety: "destructive",
    changes: "data",
    needs: { roles: ["admin"] },
    async run(ctx) {
      const before = await lookupsOf(ctx);
      await deleteAndAwait(ctx, undefined, () => true, before, "delete task without parameters");
    },
  }),
];
