// Scrolls across writes: a scroll opened before delete tasks and read to its end after them, of every scan
// kind (the lookups, the statistics of every type, those of one type, the lookups of one type). The document
// is silent on what an open scroll shows of a write made while it is open, so the legal answers are wide,
// but not every answer is legal (SCAN-03, SCAN-04, SCAN-05):
// - the scrollId still gives the next page after the tasks, and the scroll ends;
// - no record twice, and none the scan did not hold when the scroll opened;
// - a record the tasks removed, not shown yet, may or may not still come;
// - where the tasks changed none of the records the scroll held (a statistic of a type no task touched),
//   every one of them comes; where they changed some, a record neither removed nor shown may be skipped (a
//   cursor that is a position in the live records does that: see finishDue), and how many were is noted.

import type fc from "fast-check";
import type { CredentialRole } from "../../src/check/index.ts";
import type { ApiResponse, ScanQuery } from "../../src/client/index.ts";
import { lookupTypeUri } from "../../src/contract/index.ts";
import { typeName } from "./data-operations.ts";
import {
  endpointOf,
  filterText,
  identityOf,
  type Observed,
  type Rec,
  readPage,
  recordsOf,
  type ScanKind,
} from "./data-oracle.ts";
import type { DeleteModel } from "./explorer-deletes.ts";
import { describe, type OpenScroll, pick, readNext, takePage } from "./explorer-reads.ts";
import { type ExplorerReal, exchange, judged, step, stepFail } from "./explorer-steps.ts";

const KINDS: readonly ScanKind[] = ["lookups", "autopilot", "autopilot-type"];
/** Pages a scroll across writes spans at most: its page size is raised to keep within them. */
const MOST_PAGES = 6;
const ROLE: CredentialRole = "admin";

/** A scroll across the tasks: the answer that last came, for the failure's exchange. */
export interface AcrossScroll extends OpenScroll {
  last?: ApiResponse<unknown>;
  /** Whether a task changed the records the scroll held at its opening, and those it kept. */
  changed?: boolean;
  kept?: string[];
}

const typeOf = (lookup: Rec) => typeName(String(lookup.type));

/** The records a scan holds now, as the delete model keeps them. */
function heldNow(m: Readonly<DeleteModel>, kind: ScanKind, type?: string): Rec[] {
  if (kind === "lookups") return m.remaining;
  return recordsOf(m.observed, kind, type);
}

/** Whether a record must still come in a scroll across the tasks so far: not removed, not of a touched
 *  type's statistics. */
function stillDue(m: Readonly<DeleteModel>, kind: ScanKind, record: Rec): boolean {
  if (kind === "lookups") return !m.removed.has(identityOf(kind, record));
  return !m.touched.has(typeName(String(record.lookupType)));
}

/** The statistic types of the model (a per-type scroll names one). */
const statisticTypes = (observed: Observed) =>
  [...new Set(observed.statistics.map((r) => typeName(String(r.lookupType))))].sort();

/** A scroll opened before the tasks, its first `pagesBefore` pages read and judged; undefined where it
 *  ended on them. */
export async function openAcross(
  m: DeleteModel,
  r: ExplorerReal,
  kindPick: number,
  typePick: number,
  limit: number,
  pagesBefore: number,
): Promise<AcrossScroll | undefined> {
  // Pick 3: the lookups of a type the URI tasks draw from, filtered by its URI: the tasks remove records
  // on both sides of the position such a scroll reached.
  const byType = kindPick % (KINDS.length + 1) === KINDS.length;
  const kind = byType ? "lookups" : (KINDS[kindPick % (KINDS.length + 1)] as ScanKind);
  const ownTypes = [...new Set(m.remaining.filter((l) => m.shares.uriShareOf(l) === "explorer").map(typeOf))];
  const type = kind === "autopilot-type" ? pick(statisticTypes(m.observed), typePick) : undefined;
  const lookupType = byType ? pick(ownTypes.sort(), typePick) : undefined;
  if (byType && lookupType === undefined) return undefined;
  const filter = lookupType ? { field: "type", value: lookupTypeUri(lookupType) } : undefined;
  const records = heldNow(m, kind, type).filter((l) => lookupType === undefined || typeOf(l) === lookupType);
  if (records.length < 2) return undefined;
  const query: ScanQuery = {
    limit: Math.max(limit, Math.ceil(records.length / MOST_PAGES)),
    ...(filter ? { filter: filterText(filter) } : {}),
  };
  const n = (m.across?.length ?? 0) + 1;
  step(r, `open scroll ${n} across the tasks: ${describe(kind, type, query)}`);
  r.ctx.explore?.("scroll across delete tasks", byType ? "lookups of one type" : kind);
  const ids = new Set(records.map((record) => identityOf(kind, record)));
  const scroll: AcrossScroll = {
    n,
    kind,
    ...(type ? { type } : {}),
    role: ROLE,
    query,
    ...(filter ? { filter } : {}),
    legal: { must: ids, may: new Set(ids) },
    scrollId: "",
    seen: [],
    pageOf: new Map(),
    pages: 0,
  };
  const endpoint = endpointOf(m.observed.tenant, kind, type);
  const auth = await r.ctx.token(ROLE);
  const response = await exchange(r, `scroll ${n} page 1`, () => r.client.scanFirst(auth, endpoint, query));
  const page = readPage(response);
  if (page === undefined)
    stepFail(r, kind === "lookups" ? "SCAN-03" : "AUTOPILOT-03", `scroll ${n} did not open`, {
      expected: `a first page of ${describe(kind, type, query)}`,
      response,
    });
  scroll.last = response;
  if (takePage(r, scroll, page)) return undefined;
  scroll.scrollId = page.scrollId as string;
  // Read on to a drawn depth before the tasks: a task then removes records on both sides of the position
  // the scroll reached.
  for (let i = 1; i < pagesBefore; i++) if (await acrossPage(m, r, scroll)) return undefined;
  return scroll;
}

/**
 * What must still come in a scroll across the tasks. Where no task changed the records the scroll held at
 * its opening, every one of them (SCAN-04, as without writes). Where a task did, the document is silent on
 * what an open scroll shows of it: a cursor that is a position in the live records (an offset) skips records
 * after a removal before it, and an independent correct implementation does just that. So a record neither
 * removed nor shown is not required there; how many did not come is noted (never a silent pass), and the
 * rest still holds: no record twice, none the scan did not hold at the opening, a next page for the scrollId,
 * an end.
 */
function finishDue(m: Readonly<DeleteModel>, scroll: AcrossScroll): void {
  const held = recordsOf(m.observed, scroll.kind, scroll.type).filter((record) =>
    scroll.legal.may.has(identityOf(scroll.kind, record)),
  );
  scroll.changed = held.some((record) => !stillDue(m, scroll.kind, record));
  scroll.kept = held
    .filter((record) => stillDue(m, scroll.kind, record))
    .map((r) => identityOf(scroll.kind, r));
  scroll.legal = {
    must: scroll.changed ? new Set() : new Set(scroll.kept),
    may: scroll.legal.may,
  };
}

/** Reads a scroll opened before the tasks to its end and judges it against what the tasks leave due. */
export async function finishAcross(m: DeleteModel, r: ExplorerReal, scroll: AcrossScroll): Promise<void> {
  step(r, `read scroll ${scroll.n} to the end after the tasks`);
  for (let i = 0; i < MOST_PAGES * 3; i++) if (await acrossPage(m, r, scroll)) return;
  stepFail(
    r,
    "SCAN-05",
    `scroll ${scroll.n}, opened before the delete tasks, did not end after ${scroll.pages} pages`,
    {
      expected: `the end within ${MOST_PAGES * 3} pages`,
    },
  );
}

/** One page of a scroll across the tasks, judged as it comes (whole, against what is due, where it ends);
 *  whether it ended the scroll. */
async function acrossPage(m: DeleteModel, r: ExplorerReal, scroll: AcrossScroll): Promise<boolean> {
  // What must still come, should this page end the scroll.
  finishDue(m, scroll);
  const { ended, response } = await readNext(
    r,
    m.observed.tenant,
    scroll,
    "a scroll opened before a delete task continues after it",
    "opened before delete tasks",
  );
  scroll.last = response;
  if (ended && !scroll.changed)
    judged(r, "SCAN-04", "a scroll across delete tasks that changed none of its records holds every one");
  if (ended && scroll.changed) {
    const missed = (scroll.kept ?? []).filter((id) => !scroll.pageOf.has(id)).length;
    judged(r, "SCAN-04", "a scroll across delete tasks holds no record twice and none it did not hold");
    r.ctx.explore?.(
      "scroll across delete tasks",
      `${scroll.kind}: ${missed} record(s) neither removed nor shown did not come (not shown: not judged)`,
    );
  }
  return ended;
}

/** A page of a scroll opened before the tasks, read between them. */
export class AcrossPage implements fc.AsyncCommand<DeleteModel, ExplorerReal> {
  static readonly safety = "read";
  constructor(readonly scrollPick: number) {}
  check = (m: Readonly<DeleteModel>) => (m.across?.length ?? 0) > 0 && m.budget.left > 8;
  async run(m: DeleteModel, r: ExplorerReal): Promise<void> {
    const scroll = pick(m.across ?? [], this.scrollPick) as AcrossScroll;
    step(r, `read scroll ${scroll.n} one page between the tasks`);
    r.ctx.explore?.("scroll across delete tasks", "a page between tasks");
    // Ended between the tasks: judged against what is due so far.
    if (await acrossPage(m, r, scroll)) m.across = (m.across ?? []).filter((s) => s !== scroll);
  }
  toString = () => `acrossPage(${this.scrollPick})`;
}
