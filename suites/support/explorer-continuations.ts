// The explorer's continuations beyond reading on: the query of an open scroll opened again (by the same
// client or another: several scrolls of the same query at once), and a continuation page sent in another
// token state (no Authorization header, a token never issued), which must be refused and must leave the
// scroll as it was: the next page read with the scroll's own client is still its next page. With the read
// alphabet of explorer-reads.ts and the defaults of explorer-defaults.ts, the explorer's whole read
// alphabet (readAlphabet).
import fc from "fast-check";
import type { CredentialRole } from "../../src/check/index.ts";
import type { Auth } from "../../src/client/index.ts";
import { endpointOf, identityOf, type Observed, readPage } from "./data-oracle.ts";
import {
  BlockedDefaults,
  defaultsSweep,
  type LeftOut,
  mostBlocked,
  type ScanDefault,
  ScanDefaults,
} from "./explorer-defaults.ts";
import {
  BlockedSlice,
  ContinueAs,
  ContinueElsewhere,
  MAX_OPEN,
  OFFSET_AT_END,
  OpenScan,
  type OpenScroll,
  openScroll,
  pick,
  queryDraw,
  type ReadCommand,
  type ReadModel,
  ReadOn,
  readCommands,
  sendNext,
  sideBySide,
} from "./explorer-reads.ts";
import { type ExplorerReal, judged, step, stepFail } from "./explorer-steps.ts";

/** The query of an open scroll, opened again as a drawn client: two scrolls of one query side by side. */
export class OpenSame implements ReadCommand {
  static readonly safety = "read";
  constructor(
    readonly scrollPick: number,
    readonly rolePick: number,
  ) {}
  check = (m: Readonly<ReadModel>) =>
    m.scrolls.length > 0 && m.scrolls.length < MAX_OPEN && m.budget.left > 0;
  async run(m: ReadModel, r: ExplorerReal): Promise<void> {
    const scroll = pick(m.scrolls, this.scrollPick) as OpenScroll;
    const role = pick(m.roles, this.rolePick) as CredentialRole;
    r.ctx.explore?.("scrolls of one query", role === scroll.role ? "one client" : "two clients");
    await openScroll(
      m,
      r,
      {
        kind: scroll.kind,
        ...(scroll.type ? { type: scroll.type } : {}),
        query: scroll.query,
        ...(scroll.filter ? { filter: scroll.filter } : {}),
      },
      role,
      ` (the query of scroll ${scroll.n})`,
    );
  }
  toString = () => `openSame(${this.scrollPick}, ${this.rolePick})`;
}

/** Token states a continuation page is sent in besides a valid token of a reading client. */
export type TokenState = "no token" | "never issued";

const NEVER_ISSUED = "lckit-never-issued-token";

/**
 * A continuation page of an open scroll sent without a token, or with one the target never issued: refused
 * (AUTH-01, AUTH-03), with none of the scroll's records; the scroll is left open and judged on as if the
 * refused request had not been sent (SCAN-04: a refused request takes no page of it).
 */
export class ContinueUnauthorized implements ReadCommand {
  static readonly safety = "read";
  private shown = "";
  constructor(
    readonly scrollPick: number,
    readonly state: TokenState,
  ) {}
  check = (m: Readonly<ReadModel>) => m.scrolls.length > 0 && m.budget.left > 0;
  async run(m: ReadModel, r: ExplorerReal): Promise<void> {
    const scroll = pick(m.scrolls, this.scrollPick) as OpenScroll;
    this.shown = `continue scroll ${scroll.n} with ${this.state}`;
    step(r, this.shown);
    r.ctx.explore?.("continuation", `token state: ${this.state}`);
    r.ctx.explore?.("token state", `${this.state}, on a continuation page`);
    const requirement = this.state === "no token" ? "AUTH-01" : "AUTH-03";
    const auth: Auth = this.state === "no token" ? null : { authorization: `Bearer ${NEVER_ISSUED}` };
    const endpoint = endpointOf(m.observed.tenant, scroll.kind, scroll.type);
    const response = await sendNext(
      r,
      scroll,
      scroll.role,
      endpoint,
      `scroll ${scroll.n} ${this.state}`,
      auth,
    );
    judged(r, requirement, "a continuation page without a valid token is refused");
    const page = readPage(response);
    if (response.ok || (page !== undefined && page.values.length > 0))
      stepFail(
        r,
        requirement,
        `a continuation page of scroll ${scroll.n} sent with ${this.state} was answered`,
        {
          expected: "a refusal, with none of the scroll's records",
          actual: `${response.status}${
            page
              ? `, ${page.values.length} records: ${page.values
                  .slice(0, 3)
                  .map((v) => identityOf(scroll.kind, v))
                  .join(", ")}`
              : ""
          }`,
          response,
        },
      );
  }
  toString = () => `continueUnauthorized(${this.scrollPick}, ${JSON.stringify(this.state)})`;
}

/** explorer-reads' side-by-side example, with a continuation page of each open scroll sent first without a
 *  token, then with one never issued, before the scrolls are read on (the refused pages take none of theirs);
 *  then every other continuation once, whatever the seed draws: a statistics scroll opened beside what is
 *  left open, the first open scroll continued as another client, the last on another tenant's path. */
export function sideBySideExample(observed: Observed): ReadCommand[] {
  const commands = sideBySide(observed);
  if (commands.length < 2) return commands;
  return [
    ...commands.slice(0, 2),
    new ContinueUnauthorized(0, "no token"),
    new ContinueUnauthorized(1, "never issued"),
    ...commands.slice(2),
    new OpenScan(1, 0, { limit: 2 }, 0),
    new ContinueAs(0, 0),
    new ContinueElsewhere(MAX_OPEN - 1, "tenant", 0),
  ];
}

/** The sort field the lookups scan draws at index 2 ("type"): a few values shared by many lookups. */
const BY_TYPE = 2;

/**
 * The sequences tried before the drawn ones (fast-check examples): scrolls side by side with continuations
 * in other token states; every documented default once (explorer-defaults.ts); and the lookups sorted by
 * their type, whose values many records share, read to the end at 50 a page, so that page boundaries fall
 * inside runs of ties (SCAN-04: none lost or repeated there; SCAN-06: the order across pages), then the blocked
 * values at the end of their list and past it.
 */
export function readExamples(observed: Observed): ReadCommand[][] {
  const ties = [
    new OpenScan(0, 0, { sort: BY_TYPE, order: "asc", limit: 50 }, 0),
    new ReadOn(0, "end"),
    // The blocked values' offset at the end of the list and past it (nothing, or a refusal).
    new BlockedSlice(mostBlocked(observed), OFFSET_AT_END, 0),
    new BlockedSlice(mostBlocked(observed), OFFSET_AT_END + 1, 1),
  ];
  return [sideBySideExample(observed), defaultsSweep(observed), ties].filter((c) => c.length > 0);
}

/** The whole read alphabet with its weights: explorer-reads' scans and continuations, the documented
 *  defaults, a query opened again, a continuation in another token state. */
export const readAlphabet: fc.WeightedArbitrary<ReadCommand>[] = [
  ...readCommands,
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom<ScanDefault>("limit", "first body"),
        fc.nat(),
        fc.nat(),
        queryDraw,
        fc.nat({ max: 2 }).map((n) => n === 0),
      )
      .map(([which, k, t, q, second]) => new ScanDefaults(which, k, t, q, second)),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.nat(), fc.constantFrom<LeftOut>("offset", "limit", "both"), fc.nat(), fc.nat())
      .map(([t, left, o, l]) => new BlockedDefaults(t, left, o, l)),
  },
  { weight: 1, arbitrary: fc.tuple(fc.nat(), fc.nat()).map(([s, role]) => new OpenSame(s, role)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.nat(), fc.constantFrom<TokenState>("no token", "never issued"))
      .map(([s, state]) => new ContinueUnauthorized(s, state)),
  },
];
