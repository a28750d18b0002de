// The explorer's documented defaults, each judged by comparing the answer without the parameter with the
// answer that names the default, in combination with the other parameters drawn or left out:
// - the autopilot scans' limit (default 100), with a filter, a sort and an order drawn or left out, on the
//   first page and on the page after it (the default holds on every page of the scroll);
// - the first scan request's body (no body, or a null body: the document allows both, so both open the
//   same scan), on every scan kind, with every query parameter drawn or left out;
// - the blocked values' offset (default 0) and limit (default 100), one or both left out while the other
//   is drawn, at drawn offsets.
// Where the document leaves the order open (no sort; ties; records without the sort field), only what it
// decides is compared: the page sizes, the sort field's values where every record holds it, and the
// records themselves where both answers end the scroll.
import type { ApiResponse, FirstPageOptions, ScanQuery } from "../../src/client/index.ts";
import {
  blockedIdentity,
  endpointOf,
  identityOf,
  legalSet,
  type Observed,
  type ReadPage,
  type Rec,
  readPage,
  recordsOf,
  type ScanKind,
} from "./data-oracle.ts";
import {
  blockedLimit,
  blockedOf,
  blockedOffset,
  describe,
  type QueryDraw,
  type ReadCommand,
  type ReadModel,
  type Resolved,
  resolve,
  STATISTIC_FILTER_FIELDS,
  statisticTypes,
} from "./explorer-reads.ts";
import { type ExplorerReal, exchange, judged, step, stepFail } from "./explorer-steps.ts";
import { scrollEncodingFor } from "./scroll-encoding.ts";

/** Which scan default a command compares. */
export type ScanDefault = "limit" | "first body";

const DEFAULT_LIMIT = 100;

/** Sort values of a page, or undefined where a record lacks the field (placed anywhere: not comparable). */
function sortValues(page: ReadPage, field: string): string[] | undefined {
  const values = page.values.map((r) => r[field]);
  return values.every((v) => typeof v === "string" || typeof v === "number" || typeof v === "boolean")
    ? values.map((v) => JSON.stringify(v))
    : undefined;
}

/** The first difference the document decides between two pages of the same query, or undefined. */
function pageDifference(
  a: ReadPage,
  b: ReadPage,
  kind: ScanKind,
  query: ScanQuery,
  whole: boolean,
): string | undefined {
  if (a.values.length !== b.values.length) return `${a.values.length} records against ${b.values.length}`;
  const sort = query.sort;
  if (sort !== undefined && query.order !== undefined) {
    const [va, vb] = [sortValues(a, sort), sortValues(b, sort)];
    if (va && vb && va.join("\n") !== vb.join("\n")) {
      const i = va.findIndex((v, k) => vb[k] !== v);
      return `record ${i + 1}'s ${sort} is ${va[i]} against ${vb[i]}`;
    }
  }
  if (!whole) return undefined;
  const ids = (p: ReadPage) => p.values.map((r) => identityOf(kind, r)).sort();
  const [ia, ib] = [ids(a), ids(b)];
  const only = ia.find((id) => !ib.includes(id)) ?? ib.find((id) => !ia.includes(id));
  return only === undefined ? undefined : `record ${only} in one answer only`;
}

/**
 * A scan default compared: the query without the parameter and the query naming its default, first page
 * and (where the first is full) the page after it, as admin. "limit": the autopilot scans' default of 100
 * (AUTOPILOT-03); "first body": no body against a null body (SCAN-01), on any scan.
 */
export class ScanDefaults implements ReadCommand {
  static readonly safety = "read";
  private shown = "";
  constructor(
    readonly which: ScanDefault,
    readonly kindPick: number,
    readonly typePick: number,
    readonly draw: QueryDraw,
    readonly second: boolean,
  ) {}
  check = (m: Readonly<ReadModel>) => m.budget.left > (this.second ? 3 : 1);
  async run(m: ReadModel, r: ExplorerReal): Promise<void> {
    // The limit's default is the autopilot scans' (lookups: not shown); the body's is every scan's.
    const kindPick = this.which === "limit" ? 1 + (this.kindPick % 2) : this.kindPick;
    const draw: QueryDraw = { ...this.draw };
    if (this.which === "limit") delete draw.limit;
    const resolved = resolve(m.observed, kindPick, this.typePick, draw);
    const { kind, type, query } = resolved;
    const requirement = this.which === "limit" ? "AUTOPILOT-03" : "SCAN-01";
    const [plain, named]: [ScanQuery, ScanQuery] =
      this.which === "limit" ? [query, { ...query, limit: DEFAULT_LIMIT }] : [query, query];
    const [plainBody, namedBody]: [FirstPageOptions, FirstPageOptions] =
      this.which === "limit" ? [{}, {}] : [{ firstBody: "none" }, { firstBody: "null" }];
    const against = this.which === "limit" ? "limit=100" : "a null first body";
    this.shown = `default ${this.which} of ${describe(kind, type, query)} against ${against}`;
    step(r, this.shown);
    r.ctx.explore?.(
      "default",
      this.which === "limit" ? "limit of an autopilot scan" : "first body of a scan",
    );
    r.ctx.explore?.(
      "default with",
      ["filter", "sort", "order"].filter((p) => p in query).join(", ") || "no other parameter",
    );
    const endpoint = endpointOf(m.observed.tenant, kind, type);
    const auth = await r.ctx.token("admin");
    const first = async (q: ScanQuery, body: FirstPageOptions, what: string) =>
      exchange(r, what, () => r.client.scanFirst(auth, endpoint, q, body));
    const a = await first(plain, plainBody, this.which === "limit" ? "without limit" : "no body");
    const b = await first(named, namedBody, against);
    const [pa, pb] = [readPage(a), readPage(b)];
    // Both refused alike: a parameter combination the target refuses (an undocumented sort field) says
    // nothing of the default; one refused and not the other does.
    if (pa === undefined && pb === undefined && a.status === b.status) return;
    if (pa === undefined || pb === undefined)
      stepFail(r, requirement, `${describe(kind, type, query)}: one answer is a page, the other not`, {
        expected: `the same answer without the parameter and with ${against}`,
        actual: `${a.status} against ${b.status}`,
        response: pa === undefined ? a : b,
      });
    judged(r, requirement, "a documented default equals its value");
    // Where both answers end the scroll, each holds every record of the query: the same ones.
    this.compare(r, requirement, resolved, [pa, pb], pa.end && pb.end, against, a);
    if (!this.second || pa.end || pb.end || r.budget.left < 2) return;
    // The page after a full first page: the default holds on every page of the scroll.
    const encoding = await scrollEncodingFor(r.ctx, "admin", endpoint);
    const next = async (p: ReadPage, q: ScanQuery, what: string) =>
      exchange(r, what, () => r.client.scanNext(auth, endpoint, p.scrollId as string, encoding, q));
    const a2 = await next(pa, plain, "page 2, first without");
    const b2 = await next(pb, named, `page 2, first with ${against}`);
    const [qa, qb] = [readPage(a2), readPage(b2)];
    if (qa === undefined || qb === undefined)
      stepFail(r, "SCAN-03", `${describe(kind, type, query)}: the second page did not come`, {
        expected: "the next page of both scrolls",
        response: qa === undefined ? a2 : b2,
      });
    judged(r, requirement, "a documented default holds on the next page");
    this.compare(r, requirement, resolved, [qa, qb], false, against, a2);
  }
  private compare(
    r: ExplorerReal,
    requirement: string,
    { kind, type, query }: Resolved,
    [a, b]: [ReadPage, ReadPage],
    whole: boolean,
    against: string,
    response: ApiResponse<unknown>,
  ): void {
    const difference = pageDifference(a, b, kind, query, whole);
    const tooMany = this.which === "limit" && a.values.length > DEFAULT_LIMIT;
    if (difference !== undefined || tooMany)
      stepFail(
        r,
        requirement,
        `${describe(kind, type, query)} answers otherwise without the parameter than with ${against}`,
        {
          expected: `the same page (${this.which === "limit" ? "the default limit is 100" : "no body and a null body both open the scan"})`,
          actual: difference ?? `${a.values.length} records without limit`,
          response,
        },
      );
  }
  toString = () =>
    `scanDefaults(${JSON.stringify(this.which)}, ${this.kindPick}, ${this.typePick}, ${JSON.stringify(this.draw)}, ${this.second})`;
}

/** What a blocked values command leaves out: the offset, the limit, or both. */
export type LeftOut = "offset" | "limit" | "both";

/**
 * Blocked values with the offset, the limit or both left out, the other drawn: the answer equals the one
 * naming the defaults (offset 0, limit 100), value for value (BLOCKED-02, BLOCKED-03).
 */
export class BlockedDefaults implements ReadCommand {
  static readonly safety = "read";
  private shown = "";
  constructor(
    readonly typePick: number,
    readonly leftOut: LeftOut,
    readonly offsetPick: number,
    readonly limitPick: number,
  ) {}
  check = (m: Readonly<ReadModel>) => m.observed.types.length > 0 && m.budget.left > 1;
  async run(m: ReadModel, r: ExplorerReal): Promise<void> {
    const { type, all } = blockedOf(m, this.typePick);
    const drawnOffset = this.leftOut === "limit" ? blockedOffset(this.offsetPick, all.length) : undefined;
    const drawnLimit = this.leftOut === "offset" ? blockedLimit(this.limitPick) : undefined;
    const plain = {
      ...(drawnOffset === undefined ? {} : { offset: drawnOffset }),
      ...(drawnLimit === undefined ? {} : { limit: drawnLimit }),
    };
    const named = { offset: drawnOffset ?? 0, limit: drawnLimit ?? 100 };
    const show = (q: { offset?: number; limit?: number }) =>
      `offset=${q.offset ?? "(none)"} limit=${q.limit ?? "(none)"}`;
    this.shown = `blocked values of ${type} ${show(plain)} against ${show(named)}`;
    step(r, this.shown);
    r.ctx.explore?.(
      "default",
      `blocked values ${this.leftOut === "both" ? "offset and limit" : this.leftOut}`,
    );
    const requirements =
      this.leftOut === "offset"
        ? ["BLOCKED-02"]
        : this.leftOut === "limit"
          ? ["BLOCKED-03"]
          : ["BLOCKED-02", "BLOCKED-03"];
    const auth = await r.ctx.token("admin");
    const send = (q: { offset?: number; limit?: number }, what: string) =>
      exchange(r, what, () => r.client.blockedValues(auth, m.observed.tenant, type, q));
    const a = await send(plain, `without ${this.leftOut === "both" ? "offset and limit" : this.leftOut}`);
    const b = await send(named, "with the defaults named");
    for (const id of requirements) judged(r, id, "a documented default equals its value");
    const list = (response: ApiResponse<unknown>) =>
      response.ok && Array.isArray(response.body) ? (response.body as Rec[]).map(blockedIdentity) : undefined;
    const [la, lb] = [list(a), list(b)];
    // Refused alike (an offset past the end, a limit above 100, where the target refuses them): the same
    // answer.
    if (la === undefined && lb === undefined && a.status === b.status) return;
    const same = la !== undefined && lb !== undefined && la.join("\n") === lb.join("\n");
    if (!same) {
      const at = la && lb ? la.findIndex((id, i) => lb[i] !== id) : -1;
      stepFail(
        r,
        requirements[0] as string,
        `blocked values of ${type}: ${show(plain)} answers otherwise than ${show(named)}`,
        {
          expected: `the same values (offset defaults to 0, limit to 100)`,
          actual:
            la && lb
              ? `${la.length} values against ${lb.length}${at >= 0 ? `; position ${at}: ${la[at]} against ${lb[at]}` : ""}`
              : `${a.status} against ${b.status}`,
          response: a,
        },
      );
    }
  }
  toString = () =>
    `blockedDefaults(${this.typePick}, ${JSON.stringify(this.leftOut)}, ${this.offsetPick}, ${this.limitPick})`;
}

/** The index of the largest of `items` by `size` (0 where none). */
function largest<T>(items: readonly T[], size: (item: T) => number): number {
  let best = 0;
  items.forEach((item, i) => {
    if (size(item) > size(items[best] as T)) best = i;
  });
  return best;
}

/** The index of the lookup type holding the most blocked values. */
export function mostBlocked(observed: Observed): number {
  return largest(observed.types, (t) => observed.blocked.get(t)?.length ?? 0);
}

/** The filter of the statistics scan that keeps the most records: the default limit under a filter shows
 *  only where the filter leaves more records than a smaller page would hold. */
function widestFilter(observed: Observed): NonNullable<QueryDraw["filter"]> {
  let best = { draw: { field: 0, value: 0, absent: false }, size: -1 };
  for (let field = 0; field < STATISTIC_FILTER_FIELDS; field++)
    for (let value = 0; value < observed.statistics.length; value++) {
      const draw = { field, value, absent: false };
      const { kind, filter } = resolve(observed, 1, 0, { filter: draw });
      const size = legalSet(observed, kind, undefined, filter).must.size;
      if (size > best.size) best = { draw, size };
      // Values are drawn modulo their count: past the first repeat, the rest repeat too.
      if (
        value > 0 &&
        filter?.value === resolve(observed, 1, 0, { filter: { ...draw, value: 0 } }).filter?.value
      )
        break;
    }
  return best.draw;
}

/**
 * Every documented default once, in combination with the other parameters, tried before the drawn sequences
 * (a fast-check example): the drawn ones reach a default where it shows (more records than the default
 * page, more values after the offset than the default limit) only now and then. The autopilot limit alone,
 * under sort and order, and on a per-type scan (its largest type, read on to the next page); the first body
 * on the lookups scan (filter, sort, order, limit) and the statistics (sort, order, limit); the blocked
 * values of the type holding the most, without offset (limit 10), without limit (offset 1) and without both.
 */
export function defaultsSweep(observed: Observed): ReadCommand[] {
  const types = statisticTypes(observed);
  const perType = largest(types, (t) => recordsOf(observed, "autopilot-type", t).length);
  const blocked = mostBlocked(observed);
  const sorted: QueryDraw = { sort: 0, order: "asc" };
  return [
    new ScanDefaults("limit", 0, 0, {}, true),
    new ScanDefaults("limit", 0, 0, sorted, true),
    new ScanDefaults("limit", 1, perType, { sort: 0, order: "desc" }, true),
    new ScanDefaults("limit", 0, 0, { filter: widestFilter(observed) }, true),
    new ScanDefaults(
      "first body",
      0,
      0,
      { filter: { field: 0, value: 0, absent: false }, sort: 0, order: "desc", limit: 5 },
      false,
    ),
    new ScanDefaults("first body", 1, 0, { sort: 0, order: "desc", limit: 10 }, false),
    new BlockedDefaults(blocked, "offset", 0, 4),
    new BlockedDefaults(blocked, "limit", 2, 0),
    new BlockedDefaults(blocked, "both", 0, 0),
  ];
}
