// The explorer's destructive alphabet: delete tasks by URIs and by lookup type (one the tenant holds, or
// none of its lookups), each followed by reads of what is left, judged against the model that applies the
// document's task rules to the lookups read whole at the start. The task may run asynchronously: reads
// poll with a bound and a deletion that never shows is undecided, never a pass. Reads after the tasks: the
// whole tenant, one type by its URI and by its name (the document's sample filter), the statistics and
// blocked values of the types no task touched, the other tenant, and the whole tenant again once time has
// passed (a removed lookup stays removed). The explorer deletes only its share of the tenant's lookups
// (deleting-shares.ts), so its verdict does not depend on which deleting check ran before it.
import fc from "fast-check";
import type { CredentialRole } from "../../src/check/index.ts";
import { type ApiResponse, lookupUri, type ScanQuery } from "../../src/client/index.ts";
import { lookupTypeUri } from "../../src/contract/index.ts";
import { absentLookupType, typeName } from "./data-operations.ts";
import {
  blockedIdentity,
  endpointOf,
  filterText,
  identityOf,
  type Observed,
  type Rec,
  readPage,
  wholeBlocked,
} from "./data-oracle.ts";
import type { Shares } from "./deleting-shares.ts";
import type { AcrossScroll } from "./explorer-across.ts";
import {
  type Budget,
  type ExplorerReal,
  exchange,
  judged,
  step,
  stepFail,
  stepUndecided,
} from "./explorer-steps.ts";
import { scrollEncodingFor } from "./scroll-encoding.ts";

export interface DeleteModel {
  observed: Observed;
  /** The deleting checks' shares of the tenant's lookups: the explorer lists only its own. */
  shares: Shares;
  /** The tenant's lookups as the document's task rules leave them. */
  remaining: Rec[];
  /** The lookups the tasks removed, by identity: no read may list one again, however late. */
  removed: Map<string, Rec>;
  /** Lookup types a task removed lookups of (their statistics and blocked values are not judged). */
  touched: Set<string>;
  /** When the first task was accepted, on the target's clock. */
  firstTaskAt?: number;
  /** Tasks sent whose effect reads have not shown yet: what each removes. */
  pending: { what: string; gone: Set<string>; types: Set<string>; response: ApiResponse<unknown> }[];
  budget: Budget;
  /** Another tenant the target file names with its admin, and its lookups read before any task: a task
   *  touches only its own tenant (TASK-05), so every one of them stays. */
  other?: { tenant: string; lookups: Set<string> };
  /** Scrolls opened before the sequence's tasks, read to their end after them (explorer-across.ts). */
  across?: AcrossScroll[];
}

type DeleteCommand = fc.AsyncCommand<DeleteModel, ExplorerReal>;

/** How long a task may take to show, in the target's time, and the first pause between polls. */
const SETTLE_MS = 10_000;
const FIRST_POLL_MS = 200;
/** Pages of one whole read of what is left (the tenant's lookups at 100 a page) and, with another tenant,
 *  of its lookups, for the budget. */
const pagesOf = (m: Readonly<DeleteModel>) =>
  Math.ceil(m.remaining.length / 100) + 1 + (m.other ? Math.ceil(m.other.lookups.size / 100) + 1 : 0);
/** Clients that may delete: ROLE_ADMIN_TENANT and ROLE_RDM_EDIT. */
const DELETING_ROLES = ["admin", "editor"] as const satisfies readonly CredentialRole[];

const typeOf = (lookup: Rec) => typeName(String(lookup.type));

/** The types a by-type task may remove: the explorer's share (the tenant's smallest type, where it holds
 *  three or more), while the tenant still holds lookups of it. */
function deletableTypes(m: Readonly<DeleteModel>): string[] {
  const type = m.shares.explorerType;
  return type !== undefined && m.remaining.some((l) => typeOf(l) === type) ? [type] : [];
}

/** The tenant's lookups the explorer's URI tasks may list: its share of those still there. */
const ownLookups = (m: Readonly<DeleteModel>) =>
  m.remaining.filter((l) => m.shares.uriShareOf(l) === "explorer");

/** Every lookup type of the tenant read at the start, held or emptied since: reads after a task go there. */
const everyType = (m: Readonly<DeleteModel>) => [...new Set(m.observed.lookups.map(typeOf))].sort();

/** Notes what a task removes in the model. */
function applyTask(m: DeleteModel, r: ExplorerReal, gone: readonly Rec[]): void {
  m.firstTaskAt ??= r.ctx.clock.now();
  const ids = new Set(gone.map((l) => identityOf("lookups", l)));
  m.remaining = m.remaining.filter((l) => !ids.has(identityOf("lookups", l)));
  for (const lookup of gone) {
    m.removed.set(identityOf("lookups", lookup), lookup);
    m.touched.add(typeOf(lookup));
  }
}

async function sendTask(
  r: ExplorerReal,
  role: CredentialRole,
  parameters: { type?: string; uris?: string[] },
): Promise<ApiResponse<unknown>> {
  const auth = await r.ctx.token(role);
  const response = await exchange(r, "delete task", () =>
    r.client.deleteTask(auth, r.ctx.target.tenant, parameters),
  );
  judged(r, "TASK-01", "a delete task is accepted");
  if (!response.ok)
    stepFail(r, "TASK-01", `the delete task ${JSON.stringify(parameters)} sent as ${role} was not accepted`, {
      expected: "a 2xx answer",
      response,
    });
  return response;
}

/** One whole read of the tenant's lookups (optionally of one type), distinct records by identity; with
 *  `of`, another tenant's as its admin. */
async function readLookups(
  r: ExplorerReal,
  m: DeleteModel,
  type?: string,
  limit = 100,
  of: { tenant: string; role: CredentialRole } = { tenant: m.observed.tenant, role: "admin" },
  byName = false,
): Promise<Rec[]> {
  const endpoint = endpointOf(of.tenant, "lookups");
  const value = type === undefined ? undefined : byName ? type : lookupTypeUri(type);
  const query: ScanQuery = { limit, ...(value ? { filter: filterText({ field: "type", value }) } : {}) };
  const encoding = await scrollEncodingFor(r.ctx, of.role, endpoint);
  const auth = await r.ctx.token(of.role);
  const seen = new Map<string, Rec>();
  let response: ApiResponse<unknown> = await exchange(r, "read", () =>
    r.client.scanFirst(auth, endpoint, query),
  );
  for (let pages = 1; ; pages++) {
    const page = readPage(response);
    if (page === undefined)
      stepFail(r, "SCAN-03", "the lookups scan did not answer a page", { expected: "a scan page", response });
    for (const record of page.values) seen.set(identityOf("lookups", record), record);
    if (page.end) return [...seen.values()];
    if (pages > 200)
      stepUndecided(
        r,
        "the lookups scan still had a scrollId after 200 pages",
        ["the tenant holds more lookups than the explorer models", "the scan never ends"],
        "point the target file's tenant at a tenant of fewer lookups (the scan checks judge the end)",
      );
    const id = page.scrollId as string;
    response = await exchange(r, "read on", () => r.client.scanNext(auth, endpoint, id, encoding, query));
  }
}

/** Polls (reads of the touched types, pauses doubling) until no removed lookup is left, then reads what is
 *  left whole and judges it equal to the model's remaining lookups. */
async function settle(m: DeleteModel, r: ExplorerReal): Promise<void> {
  if (m.pending.length === 0) return;
  const gone = new Set(m.pending.flatMap((t) => [...t.gone]));
  const types = [...new Set(m.pending.flatMap((t) => [...t.types]))];
  const started = r.ctx.clock.now();
  let pause = FIRST_POLL_MS;
  for (;;) {
    let left = 0;
    for (const type of types)
      left += (await readLookups(r, m, type)).filter((l) => gone.has(identityOf("lookups", l))).length;
    if (left === 0) break;
    if (r.ctx.clock.now() - started >= SETTLE_MS)
      stepUndecided(
        r,
        `${left} lookup(s) the delete tasks remove still listed ${SETTLE_MS / 1000} s after the tasks were accepted`,
        ["the tasks run later than the kit waits", "the tasks do not remove what they name"],
        "run the check again against a target that runs delete tasks within 10 s",
      );
    await r.ctx.clock.sleep(pause);
    pause *= 2;
  }
  for (const task of m.pending)
    judged(
      r,
      task.what.includes("type") ? "TASK-03" : "TASK-04",
      "after a delete task, reads show exactly the model's lookups",
    );
  await judgeLeft(m, r, `after ${m.pending.map((t) => t.what).join("; ")}`);
  // A type a task emptied, read by its name too (the document's sample filter): an index by name the
  // task forgot shows only there.
  for (const task of m.pending)
    if (task.what.includes("type") && task.gone.size > 0)
      for (const type of task.types) await judgeByName(m, r, type);
  await judgeOtherTenant(m, r);
  m.pending = [];
}

/** Reads the tenant whole and judges it equal to the model's remaining lookups. */
async function judgeLeft(m: DeleteModel, r: ExplorerReal, when: string): Promise<void> {
  const after = await readLookups(r, m);
  const want = new Set(m.remaining.map((l) => identityOf("lookups", l)));
  const have = new Set(after.map((l) => identityOf("lookups", l)));
  const missing = [...want].filter((id) => !have.has(id));
  const extra = [...have].filter((id) => !want.has(id));
  if (missing.length > 0 || extra.length > 0) {
    const record = (missing[0] ?? extra[0]) as string;
    const task = m.pending.find((t) => t.gone.has(record)) ?? m.pending.at(-1);
    const removed = m.removed.get(record);
    const byType = task
      ? task.what.includes("type")
      : removed !== undefined && typeOf(removed) === m.shares.explorerType;
    stepFail(r, byType ? "TASK-03" : "TASK-04", `${when}: the lookups left differ from the model's`, {
      expected: `the ${want.size} lookups the tasks leave`,
      actual: [
        missing.length > 0 ? `gone but not named: ${missing.slice(0, 5).join(", ")}` : "",
        extra.length > 0 ? `still there: ${extra.slice(0, 5).join(", ")}` : "",
      ]
        .filter(Boolean)
        .join("; "),
      record,
      ...(task ? { response: task.response } : {}),
    });
  }
}

/** After the tasks: the other tenant still holds every lookup it held before any task (TASK-05). Lookups
 *  it gained are not judged: someone else may write there. */
async function judgeOtherTenant(m: DeleteModel, r: ExplorerReal): Promise<void> {
  if (!m.other) return;
  const { tenant, lookups } = m.other;
  const have = new Set(
    (await readLookups(r, m, undefined, 100, { tenant, role: "otherAdmin" })).map((l) =>
      identityOf("lookups", l),
    ),
  );
  judged(r, "TASK-05", "after a delete task, another tenant's lookups stay");
  const lost = [...lookups].filter((id) => !have.has(id));
  if (lost.length > 0)
    stepFail(
      r,
      "TASK-05",
      `after ${m.pending.map((t) => t.what).join("; ")} sent to ${m.observed.tenant}: tenant ${tenant} lost lookups`,
      {
        expected: `the ${lookups.size} lookups tenant ${tenant} held before any task`,
        actual: `gone from ${tenant}: ${lost.slice(0, 5).join(", ")}${lost.length > 5 ? ` and ${lost.length - 5} more` : ""}`,
        record: lost[0] as string,
        ...(m.pending.at(-1) ? { response: m.pending.at(-1)?.response } : {}),
      },
    );
}

/** The other tenant the target file names with its admin, and its lookups before any task; undefined
 *  without one. Read like the model's first reads (not counted in the sequences' budget). */
export async function observeOtherTenant(
  r: ExplorerReal,
  m: DeleteModel,
): Promise<DeleteModel["other"] | undefined> {
  const tenant = r.ctx.target.otherTenant;
  if (tenant === undefined || r.ctx.target.credentials.otherAdmin === undefined) return undefined;
  const lookups = await readLookups(r, m, undefined, 100, { tenant, role: "otherAdmin" });
  return { tenant, lookups: new Set(lookups.map((l) => identityOf("lookups", l))) };
}

export class DeleteUris implements DeleteCommand {
  static readonly safety = "destructive";
  private shown = "";
  constructor(
    readonly picks: number[],
    readonly rolePick: number,
    /** Whether to list lookups whose identity the other tenant holds too, where there are such: a task
     *  that reaches into another tenant shows only there. */
    readonly twins = false,
  ) {}
  check = (m: Readonly<DeleteModel>) => ownLookups(m).length > 0 && m.budget.left > 3 * pagesOf(m);
  async run(m: DeleteModel, r: ExplorerReal): Promise<void> {
    const mine = ownLookups(m);
    const twins = mine.filter((l) => m.other?.lookups.has(identityOf("lookups", l)) === true);
    const own = this.twins && twins.length > 0 ? twins : mine;
    if (own === twins) r.ctx.explore?.("delete task", "uris the other tenant holds too");
    const chosen = [...new Set(this.picks.map((p) => p % own.length))].map((i) => own[i] as Rec);
    const uris = chosen.map((l) => lookupUri(m.observed.tenant, typeOf(l), String(l.code)));
    const role = DELETING_ROLES[this.rolePick % DELETING_ROLES.length] as CredentialRole;
    this.shown = `delete uris ${uris.join(", ")} as ${role}`;
    step(r, this.shown);
    r.ctx.explore?.("delete task", chosen.length === 1 ? "uris: one" : "uris: several");
    r.ctx.explore?.("role", role);
    const response = await sendTask(r, role, { uris });
    const gone = new Set(chosen.map((l) => identityOf("lookups", l)));
    applyTask(m, r, chosen);
    m.pending.push({
      what: `the task with uris ${uris.join(", ")}`,
      gone,
      types: new Set(chosen.map(typeOf)),
      response,
    });
    await settle(m, r);
  }
  toString = () => `deleteUris([${this.picks.join(", ")}], ${this.rolePick}, ${this.twins})`;
}

export class DeleteType implements DeleteCommand {
  static readonly safety = "destructive";
  private shown = "";
  constructor(readonly typePick: number) {}
  check = (m: Readonly<DeleteModel>) => m.budget.left > 3 * pagesOf(m);
  async run(m: DeleteModel, r: ExplorerReal): Promise<void> {
    // One more choice than the deletable types: a type the tenant holds no lookup of (nothing goes).
    const types = deletableTypes(m);
    const type = types[this.typePick % (types.length + 1)] ?? typeName(absentLookupType);
    this.shown = `delete type ${lookupTypeUri(type)}`;
    step(r, this.shown);
    r.ctx.explore?.(
      "delete task",
      types.includes(type) ? "type: one the tenant holds" : "type: none of its lookups",
    );
    const response = await sendTask(r, "admin", { type: lookupTypeUri(type) });
    const doomed = m.remaining.filter((l) => typeOf(l) === type);
    const gone = new Set(doomed.map((l) => identityOf("lookups", l)));
    applyTask(m, r, doomed);
    m.pending.push({
      what: `the task with type ${lookupTypeUri(type)}`,
      gone,
      types: new Set(gone.size > 0 ? [type] : []),
      response,
    });
    await settle(m, r);
  }
  toString = () => `deleteType(${this.typePick})`;
}

/** A read of one type's lookups to the end at a drawn page size: exactly what the model keeps of it. */
export class ReadType implements DeleteCommand {
  static readonly safety = "read";
  private shown = "";
  constructor(
    readonly typePick: number,
    readonly limit: number,
  ) {}
  check = (m: Readonly<DeleteModel>) => m.observed.lookups.length > 0 && m.budget.left > pagesOf(m) * 2;
  async run(m: DeleteModel, r: ExplorerReal): Promise<void> {
    const types = everyType(m);
    const type = types[this.typePick % types.length] as string;
    const want = m.remaining.filter((l) => typeOf(l) === type).map((l) => identityOf("lookups", l));
    // Small pages only where they stay within a dozen.
    const limit = Math.max(this.limit, Math.ceil(want.length / 12));
    this.shown = `read type ${type} at limit ${limit}`;
    step(r, this.shown);
    r.ctx.explore?.("read after delete", `type, limit ${limit}`);
    const have = new Set((await readLookups(r, m, type, limit)).map((l) => identityOf("lookups", l)));
    judged(r, "TASK-04", "after a delete task, reads show exactly the model's lookups");
    const missing = want.filter((id) => !have.has(id));
    const extra = [...have].filter((id) => !want.includes(id));
    if (missing.length > 0 || extra.length > 0)
      stepFail(
        r,
        missing.length > 0 ? "SCAN-07" : "TASK-04",
        `the lookups of ${type} read at limit ${limit} differ from the model's`,
        {
          expected: `the ${want.length} lookups of ${type} left`,
          actual: `${missing.length > 0 ? `missing ${missing.slice(0, 5).join(", ")} ` : ""}${extra.length > 0 ? `unexpected ${extra.slice(0, 5).join(", ")}` : ""}`,
          record: (missing[0] ?? extra[0]) as string,
        },
      );
  }
  toString = () => `readType(${this.typePick}, ${this.limit})`;
}

/**
 * A read of one type by its name, equals(type,'<type_name>'), the document's sample filter, to the end: a
 * type the tenant still holds or one a task emptied. The document's stored form is the URI, and whether the
 * name matches it is not shown (the kit's SHOULD, lookup-scan/filter-type-name): an answer of every kept
 * lookup of the type, some, or none is legal. A lookup a task removed is not: the task removed it.
 */
export class ReadTypeByName implements DeleteCommand {
  static readonly safety = "read";
  constructor(readonly typePick: number) {}
  check = (m: Readonly<DeleteModel>) => m.observed.lookups.length > 0 && m.budget.left > pagesOf(m) * 2;
  async run(m: DeleteModel, r: ExplorerReal): Promise<void> {
    const types = everyType(m);
    const type = types[this.typePick % types.length] as string;
    step(r, `read type by name ${type}`);
    r.ctx.explore?.(
      "read after delete",
      m.remaining.some((l) => typeOf(l) === type) ? "type by name, held" : "type by name, emptied",
    );
    await judgeByName(m, r, type);
  }
  toString = () => `readTypeByName(${this.typePick})`;
}

/** Reads one type by its name to the end and judges that it lists no lookup a task removed (see
 *  ReadTypeByName for what is legal). */
async function judgeByName(m: DeleteModel, r: ExplorerReal, type: string): Promise<void> {
  const listed = await readLookups(r, m, type, 100, undefined, true);
  judged(r, "TASK-04", "after a delete task, no read lists a removed lookup");
  const back = listed.map((l) => identityOf("lookups", l)).filter((id) => m.removed.has(id));
  if (back.length > 0) {
    const removed = m.removed.get(back[0] as string) as Rec;
    const byType = typeOf(removed) === m.shares.explorerType;
    stepFail(
      r,
      byType ? "TASK-03" : "TASK-04",
      `the lookups scan filtered by ${filterText({ field: "type", value: type })} lists ${back.length} lookup(s) a delete task removed`,
      {
        expected: `none of the lookups the tasks removed (the name matching the type or not: ${m.remaining.filter((l) => typeOf(l) === type).length} kept lookups of ${type}, or none)`,
        actual: `removed but listed: ${back.slice(0, 5).join(", ")}`,
        record: back[0] as string,
      },
    );
  }
}

/** Settles what a sequence left pending (each command settles its own: nothing is left but by a bug), then
 *  judges what no task of the sequence touched. */
export async function settleAndJudge(m: DeleteModel, r: ExplorerReal): Promise<void> {
  await settle(m, r);
  if (m.removed.size > 0 && m.budget.left > 12) await judgeUntouched(m, r);
}

/**
 * A task removes lookups ("the lookups of that lookup type only", "the listed lookups"): the statistics and
 * blocked values of the types no task touched are still listed. Those of a touched type are not judged (the
 * document does not say whether a lookup's removal takes its statistics along), nor records added since.
 */
async function judgeUntouched(m: DeleteModel, r: ExplorerReal): Promise<void> {
  step(r, "read statistics and blocked values");
  r.ctx.explore?.("read after delete", "statistics and blocked values of untouched types");
  const kept = (type: unknown) => !m.touched.has(typeName(String(type)));
  const endpoint = endpointOf(m.observed.tenant, "autopilot");
  const encoding = await scrollEncodingFor(r.ctx, "admin", endpoint);
  const auth = await r.ctx.token("admin");
  const listed = new Set<string>();
  let response = await exchange(r, "statistics", () => r.client.scanFirst(auth, endpoint, { limit: 100 }));
  for (let pages = 1; pages <= 200; pages++) {
    const page = readPage(response);
    if (page === undefined) return; // not a page: the scan checks' finding, nothing for the model
    for (const record of page.values) listed.add(identityOf("autopilot", record));
    if (page.end) break;
    const id = page.scrollId as string;
    response = await exchange(r, "statistics on", () => r.client.scanNext(auth, endpoint, id, encoding, {}));
  }
  const what = `after the delete tasks of ${[...m.touched].sort().join(", ")}`;
  const rule = (): string =>
    m.removed.size > 0 && [...m.touched].includes(m.shares.explorerType ?? "") ? "TASK-03" : "TASK-04";
  judged(r, rule(), "after a delete task, statistics of untouched types stay");
  const lost = m.observed.statistics
    .filter((s) => kept(s.lookupType))
    .map((s) => identityOf("autopilot", s))
    .filter((id) => !listed.has(id));
  if (lost.length > 0)
    stepFail(r, rule(), `${what}: statistics of types no task touched are gone`, {
      expected: "every statistic of the untouched types read at the start",
      actual: `gone: ${lost.slice(0, 5).join(", ")}`,
      record: lost[0] as string,
    });
  for (const [type, values] of m.observed.blocked) {
    if (!kept(type) || values.length === 0) continue;
    r.budget.left -= Math.ceil(values.length / 100) + 1;
    r.budget.spent += Math.ceil(values.length / 100) + 1;
    const now = new Set((await wholeBlocked(r.ctx, r.client, type, { requests: 0 })).map(blockedIdentity));
    judged(r, rule(), "after a delete task, blocked values of untouched types stay");
    const gone = values.map(blockedIdentity).filter((id) => !now.has(id));
    if (gone.length > 0)
      stepFail(r, rule(), `${what}: blocked values of ${type}, a type no task touched, are gone`, {
        expected: `the ${values.length} blocked values of ${type} read at the start`,
        actual: `gone: ${gone.slice(0, 5).join(", ")}`,
        record: gone[0] as string,
      });
  }
}

/**
 * Once time has passed: the tenant read whole again still shows exactly the model's lookups. Nothing in the
 * document brings a removed lookup back ("it removes the listed lookups"), so one listed again later (a
 * cache or a replica that outlives the deletion) breaks the task's rule. The wait is planned: it starts at
 * the first accepted task, and the time the sequences took counts toward it.
 */
export async function judgeLater(m: DeleteModel, r: ExplorerReal, laterMs: number): Promise<void> {
  if (m.firstTaskAt === undefined || m.removed.size === 0) return;
  const waited = r.ctx.clock.now() - m.firstTaskAt;
  if (waited < laterMs) await r.ctx.clock.sleep(laterMs - waited);
  step(r, `read the tenant ${Math.round(Math.max(waited, laterMs) / 1000)} s after the first task`);
  r.ctx.explore?.("read after delete", `whole tenant, ${laterMs / 1000} s after the first task`);
  for (const id of new Set(["TASK-04", ...(m.touched.has(m.shares.explorerType ?? "") ? ["TASK-03"] : [])]))
    judged(r, id, "a removed lookup stays removed as time passes");
  await judgeLeft(m, r, `${laterMs / 1000} s after the first delete task`);
}

export const deleteCommands: fc.WeightedArbitrary<DeleteCommand>[] = [
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.array(fc.nat(), { minLength: 1, maxLength: 3 }), fc.nat(), fc.boolean())
      .map(([picks, role, twins]) => new DeleteUris(picks, role, twins)),
  },
  { weight: 2, arbitrary: fc.nat().map((t) => new DeleteType(t)) },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.nat(), fc.constantFrom(1, 7, 50, 100)).map(([t, l]) => new ReadType(t, l)),
  },
  { weight: 1, arbitrary: fc.nat().map((t) => new ReadTypeByName(t)) },
];
