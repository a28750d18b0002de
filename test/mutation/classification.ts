// Why each mutant of the reference that no check detects is left alive: the classes of docs/mutation.md,
// decided once per line of the reference (by its text, so that a rule outlives edits elsewhere in the file)
// and applied to every report by summary.ts. A survivor no rule names is "unclassified", which the summary
// counts against the score like a gap.

import ts from "typescript";

export type MutantClass =
  /** The mutant behaves as the reference does in every conformance run (faults and variants off). */
  | "equivalent"
  /** The mutant changes only what the document does not show: a correct implementation may do the same. */
  | "not shown"
  /** Observable only with credentials or data a target does not hold (the target file cannot name them). */
  | "fixture world"
  /** A module-level constant: Stryker cannot switch it on in a module already loaded, so it is not measured. */
  | "static"
  /** MUST-level behaviour no MUST check sees: a check to write. */
  | "gap";

export interface MutantView {
  file: string;
  /** The source line the mutant starts on. */
  line: string;
  /** The mutated text, as the reference has it (its first line, trimmed, when it spans several). */
  original: string;
  /** The whole mutated text where it spans several lines (summary.ts gives it), for the switch verdict. */
  fullOriginal?: string;
  mutatorName: string;
  replacement: string;
  status: string;
}

interface LineRule {
  file: string;
  /** A piece of the source line the mutant starts on. */
  text: string;
  /** Only these mutators (default: any). */
  mutators?: readonly string[];
  /** Only the mutant of this exact piece of the line (where one line's mutants differ in class). */
  original?: string;
  /** Only the mutant with this exact replacement. */
  replacement?: string;
  class: MutantClass;
  why: string;
}

/** The document's words on scrolls say nothing of how many stay open or for how long. */
const RETENTION =
  'how many scrolls stay open and for how long: the document says only "The next request passes that scrollId in the request body to obtain the next page"';

const faultOrVariantName = /^["'`][a-z0-9]+(-[a-z0-9]+)+["'`]$/;

/** Classes decided from the mutant alone, before the rules of lines. */
function automatic(m: MutantView): { class: MutantClass; why: string } | undefined {
  const switchCall = /(faults|variants)\.has\(/.test(m.line);
  const switched = /^\(?(!?)ctx\.(faults|variants)\.has\(/.exec(m.original);
  if (switchCall && switched && /^(false|true)$/.test(m.replacement)) {
    // Only the replacement that keeps the switch off is equivalent: `has(x)` -> false, `!has(x)` -> true.
    // The other turns it on: a fault on is a broken rule a check must see (issue 43's audit), a variant on
    // is a choice the document leaves open, which the checks must accept.
    const off = (switched[1] === "!") === (m.replacement === "true");
    if (off) return { class: "equivalent", why: "fault or variant switch: a conformance run keeps them off" };
    if (switched[2] === "faults")
      return { class: "gap", why: "turns a seeded fault on: a check must see the rule it breaks" };
    return { class: "not shown", why: "turns a variant on: a choice the document leaves open" };
  }
  if (m.mutatorName === "StringLiteral" && /\.as\(/.test(m.line))
    return { class: "equivalent", why: "the label of a refusal a variant reshapes" };
  if (m.mutatorName === "StringLiteral" && faultOrVariantName.test(m.original) && switchCall)
    return { class: "equivalent", why: "the name of a fault, a variant or a refusal a variant reshapes" };
  if (
    m.mutatorName === "StringLiteral" &&
    /(Error|badRequest|notFound|validationError)\(|^\s*["'`]/.test(m.line)
  )
    return { class: "not shown", why: "error code or text: the document shows no error body" };
  // A scan's scope (`lookups:${tenant}`, `stats:${tenant}:${type}`) is no text: it binds a scroll id to its
  // tenant's and type's path, which the document decides (issue 43's audit); its rules say so.
  if (m.mutatorName === "StringLiteral" && /`/.test(m.original) && !/^\s*(scope:|[?:] `stats:)/.test(m.line))
    return { class: "not shown", why: "error code or text: the document shows no error body" };
  return undefined;
}

export const rules: readonly LineRule[] = [
  // ---------------------------------------------------------------- auth.ts
  {
    file: "auth.ts",
    text: "if (!route)",
    class: "equivalent",
    why: "internal guard: the reference names contract operations only",
  },
  { file: "auth.ts", text: "unknown operationId", class: "equivalent", why: "internal guard" },
  {
    file: "auth.ts",
    text: 'roles.includes("ROLE_RDM_EDIT")) return "edit"',
    class: "equivalent",
    why: "every operation that is not a read is an edit in the contract",
  },
  { file: "auth.ts", text: "is granted to", class: "equivalent", why: "internal guard" },
  { file: "auth.ts", text: "function pathOf", class: "equivalent", why: "used by fault switches only" },
  {
    file: "auth.ts",
    text: "const ANONYMOUS",
    class: "equivalent",
    why: "the principal only faults answer with",
  },
  {
    file: "auth.ts",
    text: 'header === null || header.trim() === ""',
    class: "not shown",
    why: "a blank header is refused as malformed instead of missing: both are refusals, which one is not shown",
  },
  {
    file: "auth.ts",
    text: "const match = /^bearer",
    class: "not shown",
    why: "leniency of the Authorization header's parsing around a valid token: not shown",
  },
  { file: "auth.ts", text: "/\\/blockedValues$/.test", class: "equivalent", why: "fault-only code" },
  { file: "auth.ts", text: "/\\/_scan$/.test(pathOf(request))", class: "equivalent", why: "fault-only code" },
  {
    file: "auth.ts",
    text: '(request.headers.get("content-type") ?? "").includes("json")',
    class: "equivalent",
    why: "fault-only code",
  },
  { file: "auth.ts", text: "/^\\/(configuration|oauth)\\//", class: "equivalent", why: "fault-only code" },
  {
    file: "auth.ts",
    text: 'ctx.faults.has("expired-token-accepted") ||',
    class: "equivalent",
    why: "fault switches",
  },
  {
    file: "auth.ts",
    text: "(stored?.client.authorities ?? []).some",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "auth.ts",
    text: "token.expiresAt <= ctx.clock.now()",
    mutators: ["EqualityOperator"],
    class: "not shown",
    why: "the token expires at its last millisecond or the one after: within the second of rounding the document leaves open",
  },
  {
    file: "auth.ts",
    text: "tenants: customer?.tenants ?? []",
    class: "equivalent",
    why: "every stored client has its customer",
  },
  {
    file: "auth.ts",
    text: "authorities: stored?.client.authorities ?? []",
    class: "equivalent",
    why: "a known token has its client",
  },
  { file: "auth.ts", text: "export const TENANT_ADMIN_PREFIX", class: "static", why: "module constant" },
  {
    file: "auth.ts",
    text: 'const rdm = has("ROLE_RDM") || has("ROLE_RDM_EDIT")',
    class: "fixture world",
    why: "needs a client with the tenant on its list and no RDM role: no target credential is one",
  },
  {
    file: "auth.ts",
    text: 'has("ROLE_RDM") && ctx.faults.has("viewer-allowed-to-delete")',
    class: "equivalent",
    why: "fault switch",
  },
  { file: "auth.ts", text: 'access === "read"', class: "not shown", why: "the text of a 403" },
  { file: "auth.ts", text: "may not ${access", class: "not shown", why: "the text of a 403" },
  // ---------------------------------------------------------------- blocked-values.ts
  // The explorer's fault (issue 43): conditions joined to its switch.
  {
    file: "blocked-values.ts",
    text: 'url.searchParams.has("offset")',
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "blocked-values.ts",
    text: ": unboundedAfterOffset",
    replacement: "false",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "blocked-values.ts",
    text: "clamp = false",
    class: "equivalent",
    why: "every caller passes it or has no maximum to clamp to",
  },
  {
    file: "blocked-values.ts",
    text: "/^\\d{1,15}$/.test(raw)",
    class: "not shown",
    why: "which malformed offsets and limits are refused: not shown",
  },
  {
    file: "blocked-values.ts",
    text: "if (clamp && value > max)",
    class: "equivalent",
    why: "clamping is the variant limit-above-max-clamped",
  },
  {
    file: "blocked-values.ts",
    text: "max === Number.MAX_SAFE_INTEGER",
    class: "not shown",
    why: "the text of a 400",
  },
  {
    file: "blocked-values.ts",
    text: "total > 0 && offset >= total",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "blocked-values.ts",
    text: "return Math.max(0, total - limit)",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "blocked-values.ts",
    text: "return offset - (offset % limit)",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "blocked-values.ts",
    text: "[...(ctx.state.blockedValues.get(tenant)?.values() ?? [])]",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "blocked-values.ts",
    text: "(ctx.state.blockedValues.get(tenant)?.get(type) ?? [])",
    class: "equivalent",
    why: "every tenant has its map; a type without values reads as none either way",
  },
  {
    file: "blocked-values.ts",
    text: "values.slice(start, start + limit).map(present)",
    class: "equivalent",
    why: "record presenters are variants",
  },
  {
    file: "blocked-values.ts",
    text: 'ctx.faults.has("blocked-value-field-wrong-type")',
    class: "equivalent",
    why: "fault-only code",
  },
  { file: "blocked-values.ts", text: "page.map((v) => ({", class: "equivalent", why: "fault-only code" },
  {
    file: "blocked-values.ts",
    text: 'recordPresenter(ctx, "blocked-value")',
    class: "equivalent",
    why: "record presenters are variants",
  },
  {
    file: "blocked-values.ts",
    text: 'ctx.faults.has("viewer-read-refused") ? "edit"',
    class: "equivalent",
    why: "fault-only code",
  },
  // ---------------------------------------------------------------- autopilot-scan.ts: the scopes (issue 43's
  // audit), as lookup-scan.ts's; the other rules of the file follow with scan-query.ts's.
  {
    file: "autopilot-scan.ts",
    text: "? `stats:$",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "autopilot-scan.ts",
    text: "`stats:$",
    class: "gap",
    why: "AUTOPILOT-02, AUTH-ROLES-04: a scroll id continued on another type's or tenant's path answers the first one's statistics",
  },
  // ---------------------------------------------------------------- lookup-scan.ts (requireTenant now lives in
  // tenant-access.ts, which is not mutated: its rules stay for when it is)
  {
    file: "tenant-access.ts",
    text: "export function requireTenant",
    class: "equivalent",
    why: "authorization refuses an unknown tenant first (it is on no client's list)",
  },
  {
    file: "tenant-access.ts",
    text: "if (!ctx.state.tenants.has(tenant))",
    class: "equivalent",
    why: "authorization refuses an unknown tenant first",
  },
  // Issue 43's audit: `lookups:${tenant}` -> `` lets a scroll id of one tenant continue on another tenant's
  // path, answering the first tenant's lookups there (AUTH-ROLES-04: "the tenant must be in the user's
  // tenant list"); explore/reads continues scrolls on the other tenant's path (fault
  // scroll-id-continues-on-any-path).
  {
    file: "lookup-scan.ts",
    text: "scope: `lookups:$",
    class: "gap",
    why: "AUTH-ROLES-04: a scroll id continued on another tenant's path answers the first tenant's lookups",
  },
  {
    file: "lookup-scan.ts",
    text: "inIdentityOrder() ?? []",
    class: "equivalent",
    why: "every tenant has its lookups",
  },
  {
    file: "lookup-scan.ts",
    text: "lookup-record-field-wrong-type",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "lookup-scan.ts",
    text: "updateDate: new Date(l.updateDate)",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "lookup-scan.ts",
    text: 'recordPresenter(ctx, "lookup")',
    class: "equivalent",
    why: "record presenters are variants",
  },
  // ---------------------------------------------------------------- scan.ts
  {
    file: "scan.ts",
    text: "function refuseEncoding",
    class: "equivalent",
    why: "reached by variants and faults only",
  },
  {
    file: "scan.ts",
    text: "await readText(request)).trim()",
    class: "not shown",
    why: "the encoding of the scroll id in the body (SCAN-08: not shown)",
  },
  {
    file: "scan.ts",
    text: 'request.headers.get("content-type") ?? ""',
    class: "not shown",
    why: "the encoding of the scroll id in the body",
  },
  {
    file: "scan.ts",
    text: "const looksJson",
    class: "not shown",
    why: "the encoding of the scroll id in the body",
  },
  {
    file: "scan.ts",
    text: '!type.includes("json") && !looksJson',
    class: "not shown",
    why: "the encoding of the scroll id in the body",
  },
  { file: "scan.ts", text: "if (stringOnly)", class: "equivalent", why: "variant-only code" },
  { file: "scan.ts", text: "if (objectOnly)", class: "equivalent", why: "variant-only code" },
  {
    file: "scan.ts",
    text: 'typeof body === "object" && !Array.isArray(body)',
    class: "not shown",
    why: "what a body of another shape gets: not shown",
  },
  {
    file: "scan.ts",
    text: "if (id === undefined || id === null) return undefined",
    class: "not shown",
    why: "the encoding of the scroll id in the body",
  },
  {
    file: "scan.ts",
    text: 'if (typeof id === "string") return id',
    class: "not shown",
    why: "what a scroll id of another type gets: not shown",
  },
  {
    file: "scan.ts",
    text: "query.filter &&",
    class: "equivalent",
    why: "without a filter the filter stays undefined either way",
  },
  {
    file: "scan.ts",
    text: "!(query.sort !== undefined && ctx.faults.has",
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "scan.ts",
    text: "const field = query.sort !== undefined && !ctx.faults",
    class: "equivalent",
    why: "without a sort the field stays undefined either way",
  },
  {
    file: "scan.ts",
    text: "const perPage = field !== undefined && spec.sortEachPage",
    class: "equivalent",
    why: "sortEachPage is set by a fault only",
  },
  {
    file: "scan.ts",
    text: "...(field === undefined || perPage ? {} : { field })",
    class: "equivalent",
    why: "the view is sorted by orderAsChosen as well",
  },
  {
    file: "scan.ts",
    text: "firstPage: query.limit + 1",
    class: "equivalent",
    why: "a hint of how much to order eagerly; the rest is ordered on demand",
  },
  {
    file: "scan.ts",
    text: "if (field === undefined) return faultyPaging",
    class: "equivalent",
    why: "paging faults are off, and an unsorted view is served in order either way",
  },
  {
    file: "scan.ts",
    text: "if (perPage) return sortedEachPage",
    class: "equivalent",
    why: "sortEachPage is set by a fault only",
  },
  {
    file: "scan.ts",
    text: "return faultyPaging(ctx, chosen, query.limit, filter !== undefined, field)",
    class: "equivalent",
    why: "the flag matters to paging faults only",
  },
  {
    file: "scan.ts",
    text: 'sortField !== undefined && ctx.faults.has("scan-keyset-loses-ties")',
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "scan.ts",
    text: "sortField !== undefined && filtered && ctx.faults.has",
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "scan.ts",
    text: 'if (filtered && ctx.faults.has("scan-filtered-full-last-page-repeated"))',
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "scan.ts",
    text: 'ctx.faults.has("scan-repeats-record-at-page-boundary")) start',
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "scan.ts",
    text: 'ctx.faults.has("scan-loses-record-at-page-boundary")) start',
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "scan.ts",
    text: 'ctx.faults.has("scan-exceeds-limit") ? scroll.limit + 1',
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "scan.ts",
    text: "const wasAtEnd",
    class: "equivalent",
    why: "read by the end-of-results variants only",
  },
  { file: "scan.ts", text: "const emptyFirst", class: "equivalent", why: "variant-only code" },
  {
    file: "scan.ts",
    text: "if (emptyFirst && values.length > 0 && !wasAtEnd)",
    class: "equivalent",
    why: "variant-only code",
  },
  {
    file: "scan.ts",
    text: "return jsonResponse(200, { scrollId: scroll.id, values });",
    class: "equivalent",
    why: "variant- or fault-only code",
  },
  {
    file: "scan.ts",
    text: 'v.has("end-empty-page-with-scroll-id") && scroll.endAnswers',
    class: "equivalent",
    why: "variant-only code",
  },
  { file: "scan.ts", text: "scroll.endAnswers++", class: "equivalent", why: "variant-only code" },
  {
    file: "scan.ts",
    text: "return jsonResponse(200, { scrollId: scroll.id, values: [] })",
    class: "equivalent",
    why: "variant- or fault-only code",
  },
  { file: "scan.ts", text: 'v.has("end-scroll-id-null")', class: "equivalent", why: "variant-only code" },
  { file: "scan.ts", text: "function cyclicPage", class: "equivalent", why: "fault-only code" },
  {
    file: "scan.ts",
    text: "if (!first && scroll.position >= scroll.length) {",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "scan.ts",
    text: "const values = slice(scroll, scroll.position, scroll.position + scroll.limit)",
    class: "equivalent",
    why: "fault-only code",
  },
  { file: "scan.ts", text: "scroll.position += values.length", class: "equivalent", why: "fault-only code" },
  {
    file: "scan.ts",
    text: "const known = scrollId === undefined ? undefined",
    class: "equivalent",
    why: "taking an undefined id finds nothing either way",
  },
  {
    file: "scan.ts",
    text: '(!known && ctx.faults.has("unknown-scroll-id-restarts"))',
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "scan.ts",
    text: 'spec.scope.startsWith("lookups:")',
    class: "equivalent",
    why: "the flag matters to variants only",
  },
  {
    file: "scan.ts",
    text: "return page(ctx, scroll, true, spec.present)",
    class: "equivalent",
    why: "the first-page flag matters to faults and variants only",
  },
  {
    file: "scan.ts",
    text: "return page(ctx, scroll, false, spec.present)",
    class: "equivalent",
    why: "the first-page flag matters to faults and variants only",
  },
  { file: "scan.ts", text: "scrollId.length > 80", class: "not shown", why: "the text of a 400" },
  {
    file: "scan.ts",
    text: 'ctx.variants.has("scroll-id-raw-text-only")) return text === "null"',
    class: "equivalent",
    why: "variant-only code",
  },
  // objectOnly is a variant switch (off): dropping it with the fault is still the reference.
  {
    file: "scan.ts",
    text: 'ctx.faults.has("raw-scroll-id-refused") || objectOnly',
    original: 'ctx.faults.has("raw-scroll-id-refused") || objectOnly',
    replacement: "false",
    class: "equivalent",
    why: "fault and variant switches, both off in a conformance run",
  },
  {
    file: "scan.ts",
    text: 'ctx.faults.has("raw-scroll-id-refused") || objectOnly',
    original: 'ctx.faults.has("raw-scroll-id-refused") || objectOnly',
    replacement: 'ctx.faults.has("raw-scroll-id-refused") && objectOnly',
    class: "equivalent",
    why: "fault and variant switches, both off in a conformance run",
  },
  {
    file: "scan.ts",
    text: 'ctx.faults.has("raw-scroll-id-refused") || objectOnly',
    class: "equivalent",
    why: "fault- or variant-only code",
  },
  { file: "scan.ts", text: "throw refuseEncoding(", class: "equivalent", why: "fault- or variant-only code" },
  {
    file: "scan.ts",
    text: 'ctx.faults.has("first-page-null-body-refused")) {',
    class: "equivalent",
    why: "fault-only code",
  },
  // Fault-only code of the explorer's fault (issue 43): the null first body's probe.
  { file: "scan.ts", text: "? request.clone() : undefined", class: "equivalent", why: "fault-only code" },
  {
    file: "scan.ts",
    text: "const nullFirst = probe !== undefined",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "scan.ts",
    text: "nullFirst ? new URL(new URL(request.url).pathname",
    replacement: "false",
    class: "equivalent",
    why: "fault-only code",
  },
  // ---------------------------------------------------------------- scroll.ts
  {
    file: "scroll.ts",
    text: "export const SCROLL_IDLE_MS",
    class: "static",
    why: "module constant (and scroll expiry is not shown)",
  },
  {
    file: "scroll.ts",
    text: "get size()",
    class: "equivalent",
    why: "read by the serve command's status only",
  },
  {
    file: "scroll.ts",
    text: "get retainedEntries()",
    class: "equivalent",
    why: "read by the serve command's status only",
  },
  {
    file: "scroll.ts",
    text: "get retainedBytes()",
    class: "equivalent",
    why: "read by the serve command's status only",
  },
  {
    file: "scroll.ts",
    text: "return this.entries * 4",
    class: "equivalent",
    why: "read by the serve command's status only",
  },
  {
    file: "scroll.ts",
    text: "this.open.size >= MAX_OPEN_SCROLLS ||",
    class: "not shown",
    why: RETENTION,
  },
  {
    file: "scroll.ts",
    text: "for (const [oldest, scroll] of this.open)",
    class: "not shown",
    why: RETENTION,
  },
  // Issue 43's audit: how many scrolls stay open is not shown, but a mutant that makes opening a scan close
  // the other open scrolls (all, or all with an index of their own: filtered or sorted) breaks "The next
  // request passes that scrollId in the request body to obtain the next page" (SCAN-03) for scans read
  // side by side; explore/reads keeps up to four open (fault scan-opening-closes-other-scrolls).
  {
    file: "scroll.ts",
    text: "const tooMany",
    replacement: "true",
    class: "gap",
    why: "SCAN-03: opening a scan closes every other open scroll",
  },
  {
    file: "scroll.ts",
    text: "const tooMany",
    replacement: "this.open.size < MAX_OPEN_SCROLLS",
    class: "gap",
    why: "SCAN-03: opening a scan closes every other open scroll",
  },
  { file: "scroll.ts", text: "const tooMany", class: "not shown", why: RETENTION },
  {
    file: "scroll.ts",
    text: "const tooBig",
    replacement: "true",
    class: "gap",
    why: "SCAN-03: opening a scan closes the other open scrolls that hold an index (filtered or sorted)",
  },
  {
    file: "scroll.ts",
    text: "const tooBig",
    replacement: "this.entries + cost <= this.maxEntries",
    class: "gap",
    why: "SCAN-03: opening a scan closes the other open scrolls that hold an index (filtered or sorted)",
  },
  { file: "scroll.ts", text: "const tooBig", class: "not shown", why: RETENTION },
  {
    file: "scroll.ts",
    text: "if (!tooMany && !tooBig) break",
    mutators: ["ConditionalExpression"],
    replacement: "false",
    class: "gap",
    why: "SCAN-03: opening a scan closes the other open scrolls that hold an index (filtered or sorted)",
  },
  {
    file: "scroll.ts",
    text: "if (!tooMany && !tooBig) break",
    mutators: ["BooleanLiteral"],
    class: "gap",
    why: "SCAN-03: opening a scan closes the other open scrolls that hold an index (filtered or sorted)",
  },
  {
    file: "scroll.ts",
    text: "if (!tooMany && !tooBig) break",
    class: "not shown",
    why: RETENTION,
  },
  {
    file: "scroll.ts",
    text: "if (tooMany || scroll.view.ownEntries > 0)",
    class: "not shown",
    why: RETENTION,
  },
  { file: "scroll.ts", text: "this.entries += cost", class: "not shown", why: RETENTION },
  {
    file: "scroll.ts",
    text: "this.entries -= scroll.view.ownEntries",
    class: "not shown",
    why: RETENTION,
  },
  // Issue 43's audit: every mutant of this line either continues a scroll id on another scan's path (its
  // records answered on another type's or tenant's path: AUTOPILOT-02, AUTH-ROLES-04) or makes every
  // continuation unknown (SCAN-03); explore/reads sees both (fault scroll-id-continues-on-any-path).
  {
    file: "scroll.ts",
    text: "if (!scroll || scroll.scope !== scope) return undefined",
    class: "gap",
    why: "AUTOPILOT-02, AUTH-ROLES-04: a scroll id continued on another scan's path; or SCAN-03: no continuation",
  },
  {
    file: "scroll.ts",
    text: "now - scroll.lastUsedAt >= SCROLL_IDLE_MS",
    class: "not shown",
    why: "scroll expiry: not shown",
  },
  {
    file: "scroll.ts",
    text: "now - scroll.lastUsedAt < SCROLL_IDLE_MS",
    class: "not shown",
    why: "scroll expiry: not shown",
  },
  {
    file: "scroll.ts",
    text: "close(id: string): void",
    class: "not shown",
    why: "what a finished scroll's id gets afterwards: not shown",
  },
  {
    file: "scroll.ts",
    text: "if (!scroll) return;",
    class: "not shown",
    why: "what a finished scroll's id gets afterwards: not shown",
  },
  {
    file: "scroll.ts",
    text: "list(now: number)",
    class: "equivalent",
    why: "read by the serve command's status only",
  },
  {
    file: "scroll.ts",
    text: "return [...this.open.values()].map",
    class: "equivalent",
    why: "read by the serve command's status only",
  },
  { file: "scroll.ts", text: "clear(): void", class: "equivalent", why: "used by the sandbox's reset only" },
  { file: "scroll.ts", text: "closeIndexed(): void", class: "equivalent", why: "fault-only code" },
  {
    file: "scroll.ts",
    text: "if (scroll.view.ownEntries > 0) this.close(id)",
    class: "equivalent",
    why: "fault-only code",
  },
  { file: "scroll.ts", text: "private closeIdleFirst", class: "not shown", why: "scroll expiry: not shown" },
  {
    file: "scroll.ts",
    text: "for (const [id, scroll] of this.open)",
    class: "not shown",
    why: "scroll expiry: not shown",
  },
  { file: "scroll.ts", text: "sweep(now: number)", class: "not shown", why: "scroll expiry: not shown" },
  {
    file: "scroll.ts",
    text: "if (now - scroll.lastUsedAt >= SCROLL_IDLE_MS) this.close(id)",
    class: "not shown",
    why: "scroll expiry: not shown",
  },
  // ---------------------------------------------------------------- token-quota.ts
  {
    file: "token-quota.ts",
    text: 'return { kind: "issued", token:',
    mutators: ["StringLiteral"],
    class: "equivalent",
    why: 'the token endpoint tells a refusal by kind "refused"; any other kind is an issue',
  },
  {
    file: "token-quota.ts",
    text: "ctx.state.tokensByClient.get(clientId) ?? []",
    class: "equivalent",
    why: "a default list of nothing usable reads as none",
  },
  {
    file: "token-quota.ts",
    text: "list.filter((t) => t.expiresAt > now)",
    class: "not shown",
    why: "a token counts at its last millisecond or not: within the second of rounding the document leaves open",
  },
  {
    file: "token-quota.ts",
    text: "if (active.length !== list.length)",
    class: "equivalent",
    why: "pruning the list changes no answer",
  },
  {
    file: "token-quota.ts",
    text: "for (let i = list.length - 1; i >= 0; i--)",
    class: "fixture world",
    why: "differs only for a client whose very first token is its only one: a target's quota client held tokens before any check",
  },
  {
    file: "token-quota.ts",
    text: 'if ((token.expiresAt > now || keptPastExpiry) && token.value !== "") return token',
    mutators: ["EqualityOperator"],
    replacement: "token.expiresAt >= now",
    class: "not shown",
    why: 'a token valid at its last millisecond or not: "Token validity is set per client with accessTokenValidity (seconds)", no finer',
  },
  // Issue 43: `token.expiresAt > now` -> true (an expired token returned again with multi-token support
  // off) is no longer classed "not shown": the document says the token is expired, and token-quota/model's
  // walk switches off, lets every token expire and asks (fault expired-token-returned-again).
  // `stale` is the fault's switch: `stale && short` -> true, or `stale || short`, returns expired tokens again
  // with the fault off (TOKEN-STATE-04), as the mutant of the next line does.
  {
    file: "token-quota.ts",
    text: "const keptPastExpiry = stale && token.expiresAt - token.issuedAt",
    original: "stale && token.expiresAt - token.issuedAt < DEFAULT_VALIDITY_SECONDS * 1000",
    mutators: ["ConditionalExpression", "LogicalOperator"],
    replacement: "true",
    class: "gap",
    why: "TOKEN-STATE-04: with multi-token support off an expired token is returned again",
  },
  {
    file: "token-quota.ts",
    text: "const keptPastExpiry = stale && token.expiresAt - token.issuedAt",
    mutators: ["LogicalOperator"],
    class: "gap",
    why: "TOKEN-STATE-04: with multi-token support off an expired short-lived token is returned again",
  },
  {
    file: "token-quota.ts",
    text: "const keptPastExpiry = stale && token.expiresAt - token.issuedAt",
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "token-quota.ts",
    text: 'if ((token.expiresAt > now || keptPastExpiry) && token.value !== "") return token',
    mutators: ["StringLiteral"],
    class: "equivalent",
    why: "slots without a value are made by a fault only",
  },
  {
    file: "token-quota.ts",
    text: 'if ((token.expiresAt > now || keptPastExpiry) && token.value !== "") return token',
    original: 'token.value !== ""',
    replacement: "true",
    class: "equivalent",
    why: "slots without a value are made by a fault only",
  },
  { file: "token-quota.ts", text: "function phantom", class: "equivalent", why: "fault-only code" },
  {
    file: "token-quota.ts",
    text: "const seconds = stored.client.accessTokenValidity ?? DEFAULT_VALIDITY_SECONDS",
    class: "equivalent",
    why: "fault-only code",
  },
  { file: "token-quota.ts", text: "const token = {", class: "equivalent", why: "fault-only code" },
  { file: "token-quota.ts", text: 'value: "",', class: "equivalent", why: "fault-only code" },
  {
    file: "token-quota.ts",
    text: "expiresAt: now + seconds * 1000,",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "token-quota.ts",
    text: "ctx.state.tokensByClient.get(token.clientId)?.push(token)",
    class: "equivalent",
    why: "fault-only code",
  },
  { file: "token-quota.ts", text: "function renewEarliest", class: "equivalent", why: "fault-only code" },
  { file: "token-quota.ts", text: "(min, t) => (t.value", class: "equivalent", why: "fault-only code" },
  { file: "token-quota.ts", text: "if (earliest)", class: "equivalent", why: "fault-only code" },
  { file: "token-quota.ts", text: "earliest.expiresAt = now", class: "equivalent", why: "fault-only code" },
  {
    file: "token-quota.ts",
    text: "expiresAt: now + seconds * 1000 - early",
    class: "equivalent",
    why: "early is 0 without the fault",
  },
  {
    file: "token-quota.ts",
    text: "ctx.state.customers.get(stored.customerId)?.multitokenConfig",
    class: "equivalent",
    why: "every stored client has its customer",
  },
  {
    file: "token-quota.ts",
    text: 'ctx.faults.has("multitoken-stays-on-after-off")) {',
    class: "equivalent",
    why: "fault-only code",
  },
  { file: "token-quota.ts", text: "const cache = cachedConfig", class: "equivalent", why: "fault-only code" },
  { file: "token-quota.ts", text: "if (written) cache.set", class: "equivalent", why: "fault-only code" },
  {
    file: "token-quota.ts",
    text: "configured = written ?? cache.get",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "token-quota.ts",
    text: "    configured &&",
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "token-quota.ts",
    text: "configured.clientCredentialsMultiTokenConfig?.maxActiveTokensAllowed === undefined",
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "token-quota.ts",
    text: 'current && ctx.faults.has("reissued-token-not-stored")',
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "token-quota.ts",
    text: "value: randomBase64Url(24) } }",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "token-quota.ts",
    text: 'ctx.faults.has("same-token-with-multitoken-on")',
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "token-quota.ts",
    text: 'if (current) return { kind: "issued", token: current }',
    class: "equivalent",
    why: "fault-only code",
  },
  // Issue 43: `?.` -> `.` on `multitoken.clientCredentialsMultiTokenConfig?.maxActiveTokensAllowed` is no
  // longer classed "equivalent": multitokenConfig {} is accepted and stored, and token-quota/model's empty
  // multitokenConfig step asks for a token under it (fault empty-multitoken-config-breaks-tokens).
  {
    file: "token-quota.ts",
    text: 'ctx.faults.has("empty-multitoken-config-breaks-tokens") &&',
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "token-quota.ts",
    text: "!multitoken.clientCredentialsMultiTokenConfig",
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "token-quota.ts",
    text: "multitokenConfig.clientCredentialsMultiTokenConfig is undefined",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "token-quota.ts",
    text: 'ctx.faults.has("quota-off-by-one")) allowed',
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "token-quota.ts",
    text: 'ctx.faults.has("quota-refused-early")) allowed',
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "token-quota.ts",
    text: "const soonest = counted.reduce",
    class: "not shown",
    why: "Retry-After: not shown",
  },
  {
    file: "token-quota.ts",
    text: "retryAfterSeconds: Math.max(1",
    class: "not shown",
    why: "Retry-After: not shown",
  },
  // ---------------------------------------------------------------- customer-config.ts: the roles the
  // configuration endpoints need and the refusal of malformed bodies are not shown (AUTH-ROLES-05, SHOULD).
  {
    file: "customer-config.ts",
    text: "const QUOTA_FIELD",
    class: "static",
    why: "module constant (the field an error names)",
  },
  {
    file: "customer-config.ts",
    text: 'return value !== null && typeof value === "object"',
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: "function checkStrings",
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: "if (!Array.isArray(value))",
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: "value.forEach((item, i) => {",
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: 'typeof item !== "string" || (nonEmpty && item === "")',
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: "tenants.some((t) => isTenantAdmin(principal, t))",
    class: "not shown",
    why: "the roles the configuration endpoints need: not shown",
  },
  {
    file: "customer-config.ts",
    text: "const onList = tenants.some",
    class: "not shown",
    why: "the roles the configuration endpoints need: not shown",
  },
  {
    file: "customer-config.ts",
    text: 'onList && ctx.faults.has("configuration-open-to-viewer")',
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "customer-config.ts",
    text: "may not configure customer",
    class: "not shown",
    why: "the text of a 403",
  },
  {
    file: "customer-config.ts",
    text: "function requireAdministers",
    class: "not shown",
    why: "the roles the configuration endpoints need: not shown",
  },
  {
    file: "customer-config.ts",
    text: "if (principal.anonymous) return;",
    class: "equivalent",
    why: "the anonymous principal comes from faults only",
  },
  {
    file: "customer-config.ts",
    text: "const foreign = [...new Set(tenants)]",
    class: "not shown",
    why: "the roles the configuration endpoints need: not shown",
  },
  {
    file: "customer-config.ts",
    text: "if (foreign.length === 0) return;",
    class: "not shown",
    why: "the roles the configuration endpoints need: not shown",
  },
  { file: "customer-config.ts", text: "foreign.map((t) =>", class: "not shown", why: "the text of a 403" },
  {
    file: "customer-config.ts",
    text: 'administeredBy(principal.authorities).join(", ") || "no tenant"',
    class: "not shown",
    why: "the text of a 403",
  },
  {
    file: "customer-config.ts",
    text: "if (!Array.isArray(authorities)) return [];",
    class: "not shown",
    why: "the roles the configuration endpoints need: not shown",
  },
  {
    file: "customer-config.ts",
    text: "return authorities",
    class: "not shown",
    why: "the roles the configuration endpoints need: not shown",
  },
  {
    file: "customer-config.ts",
    text: ".filter((a): a is string =>",
    class: "not shown",
    why: "the roles the configuration endpoints need: not shown",
  },
  {
    file: "customer-config.ts",
    text: ".map((a) => a.slice(TENANT_ADMIN_PREFIX.length))",
    class: "not shown",
    why: "the roles the configuration endpoints need: not shown",
  },
  {
    file: "customer-config.ts",
    text: "body.id !== undefined && body.id !== customerId",
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: "if (body.tenants !== undefined) {",
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: 'checkStrings("tenants", body.tenants, true)',
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: "if (!ctx.state.tenants.has(tenant)) {",
    class: "not shown",
    why: "what an unknown tenant in a customer gets: not shown",
  },
  { file: "customer-config.ts", text: "known tenants:", class: "not shown", why: "error text" },
  {
    file: "customer-config.ts",
    text: "body.externalProviderConfig !== undefined",
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: "body.description !== undefined",
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: "body.caseSensitiveLoginEnabled !== undefined",
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: "body.applicationClients !== undefined",
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: "body.customerSpecificRoles !== undefined",
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: 'checkStrings("customerSpecificRoles"',
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: "if (mt === undefined || mt === null) return;",
    class: "not shown",
    why: "what a null or malformed multitokenConfig gets: not shown",
  },
  {
    file: "customer-config.ts",
    text: 'if (!isObject(mt)) throw validationError("multitokenConfig"',
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: "if (cc === undefined || cc === null) return;",
    class: "not shown",
    why: "what a null or malformed multitokenConfig gets: not shown",
  },
  {
    file: "customer-config.ts",
    text: "if (!isObject(cc)) {",
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: 'ctx.faults.has("quota-201-accepted") ||',
    class: "equivalent",
    why: "fault switches",
  },
  {
    file: "customer-config.ts",
    text: '(method === "POST" && ctx.faults.has("quota-201-accepted-by-post"))',
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "customer-config.ts",
    text: "const limit = over ? MAX_ACTIVE_TOKENS_LIMIT + 1",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "customer-config.ts",
    text: 'typeof max !== "number" || !Number.isInteger(max)',
    mutators: ["ConditionalExpression", "LogicalOperator"],
    class: "not shown",
    why: "what a quota of another type gets: not shown (the bounds 1 and 200 are detected)",
  },
  {
    file: "customer-config.ts",
    text: "const rdbms = (customer.tenants ?? [])",
    class: "equivalent",
    why: "every stored customer has its tenants",
  },
  {
    file: "customer-config.ts",
    text: 'ctx.state.tenants.get(t)?.authMigrationMode === "rdbms"',
    class: "equivalent",
    why: "every tenant of a customer exists",
  },
  {
    file: "customer-config.ts",
    text: "multi-token support needs Cassandra-based authorization",
    class: "not shown",
    why: "error text",
  },
  {
    file: "customer-config.ts",
    text: "if (stored) requireAdmin(",
    class: "not shown",
    why: "the roles the configuration endpoints need: not shown",
  },
  {
    file: "customer-config.ts",
    text: "if (!isObject(body))",
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: "expected a Customer object, got",
    class: "not shown",
    why: "error text",
  },
  {
    file: "customer-config.ts",
    text: 'merge && body.id !== undefined && ctx.faults.has("customer-post-with-id-refused")',
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "customer-config.ts",
    text: '    method === "POST" &&',
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "customer-config.ts",
    text: "stored?.multitokenConfig &&",
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "customer-config.ts",
    text: "if (next.multitokenConfig === null) delete next.multitokenConfig",
    class: "equivalent",
    why: "a null multitokenConfig reads as none at the token endpoint",
  },
  {
    file: "customer-config.ts",
    text: "if (!stored) requireAdmin(",
    class: "not shown",
    why: "the roles the configuration endpoints need: not shown",
  },
  {
    file: "customer-config.ts",
    text: "const before = new Set(stored?.tenants ?? [])",
    class: "not shown",
    why: "who may add or remove a customer's tenants: not shown",
  },
  {
    file: "customer-config.ts",
    text: "const after = new Set(customer.tenants ?? [])",
    class: "not shown",
    why: "who may add or remove a customer's tenants: not shown",
  },
  {
    file: "customer-config.ts",
    text: "const changed = [...after]",
    class: "not shown",
    why: "who may add or remove a customer's tenants: not shown",
  },
  {
    file: "customer-config.ts",
    text: 'ctx.variants.has("customer-answer-no-body")',
    class: "equivalent",
    why: "variant-only code",
  },
  {
    file: "customer-config.ts",
    text: 'ctx.faults.has("customer-post-answers-201") ? 201 : 200',
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "customer-config.ts",
    text: "const at = (field: string) =>",
    class: "not shown",
    why: "the field an error names",
  },
  {
    file: "customer-config.ts",
    text: "if (!isObject(raw)) throw validationError(",
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: 'if (typeof id !== "string" || id === "")',
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: "if (seen.has(id)) throw validationError",
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: "if (owner && owner.customerId !== customerId) {",
    class: "not shown",
    why: "what a client of another customer in the body gets: not shown",
  },
  {
    file: "customer-config.ts",
    text: 'for (const field of ["scope", "authorities"',
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: "if (raw[field] !== undefined) checkStrings",
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: "raw.clientSecret !== undefined && (typeof raw.clientSecret",
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: 'at("clientSecret"),',
    class: "not shown",
    why: "the field an error names",
  },
  {
    file: "customer-config.ts",
    text: "if (raw.clientSecret === undefined && !owner) {",
    class: "not shown",
    why: "what a new client without a secret gets: not shown",
  },
  {
    file: "customer-config.ts",
    text: "] as const) {",
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: 'value !== undefined && (typeof value !== "number"',
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: "const base: Client = owner?.client ?? {",
    class: "not shown",
    why: "the defaults of a new client: not shown",
  },
  {
    file: "customer-config.ts",
    text: 'clientSecret: "",',
    class: "not shown",
    why: "the defaults of a new client: not shown",
  },
  {
    file: "customer-config.ts",
    text: "    scope: [],",
    class: "not shown",
    why: "the defaults of a new client: not shown",
  },
  {
    file: "customer-config.ts",
    text: "    authorities: [],",
    class: "not shown",
    why: "the defaults of a new client: not shown",
  },
  {
    file: "customer-config.ts",
    text: "    resourceIds: [],",
    class: "not shown",
    why: "the defaults of a new client: not shown",
  },
  {
    file: "customer-config.ts",
    text: 'authorizedGrantTypes: ["client_credentials"],',
    class: "not shown",
    why: "the defaults of a new client: not shown",
  },
  {
    file: "customer-config.ts",
    text: "    redirectUri: [],",
    class: "not shown",
    why: "the defaults of a new client: not shown",
  },
  {
    file: "customer-config.ts",
    text: 'ctx.faults.has("clients-answer-with-secrets")',
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "customer-config.ts",
    text: 'ctx.faults.has("clients-answer-validity-as-string")',
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "customer-config.ts",
    text: "accessTokenValidity: String(rest.accessTokenValidity)",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "customer-config.ts",
    text: 'ctx.faults.has("put-merges") || ctx.variants',
    class: "equivalent",
    why: "fault and variant switches",
  },
  {
    file: "customer-config.ts",
    text: 'c.req.param("customerId"), "POST", true)',
    class: "equivalent",
    why: "the method matters to fault switches only",
  },
  {
    file: "customer-config.ts",
    text: '!customer && ctx.faults.has("unknown-customer-clients-created")',
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "customer-config.ts",
    text: "customer = { id: customerId, tenants: [...principal.tenants] }",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "customer-config.ts",
    text: "requireAdmin(ctx, principal, customerId, customer.tenants ?? [])",
    class: "equivalent",
    why: "every stored customer has its tenants",
  },
  {
    file: "customer-config.ts",
    text: 'ctx.faults.has("admin-config-refused") && !principal.anonymous',
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "customer-config.ts",
    text: "if (!Array.isArray(body)) {",
    class: "not shown",
    why: "which malformed bodies are refused: not shown",
  },
  {
    file: "customer-config.ts",
    text: "expected an array of Client objects",
    class: "not shown",
    why: "error text",
  },
  {
    file: "customer-config.ts",
    text: "const had = new Set(administeredBy(",
    class: "not shown",
    why: "who may grant tenant admin roles to a client: not shown",
  },
  {
    file: "customer-config.ts",
    text: "return administeredBy(client.authorities).filter",
    class: "not shown",
    why: "who may grant tenant admin roles to a client: not shown",
  },
  {
    file: "customer-config.ts",
    text: "const known = new Set(customer.applicationClients ?? [])",
    class: "not shown",
    why: "how a new client joins applicationClients: not shown",
  },
  {
    file: "customer-config.ts",
    text: "const added = clients.map",
    class: "not shown",
    why: "how a new client joins applicationClients: not shown",
  },
  {
    file: "customer-config.ts",
    text: "if (added.length > 0) {",
    class: "not shown",
    why: "how a new client joins applicationClients: not shown",
  },
  {
    file: "customer-config.ts",
    text: "applicationClients: [...known, ...added]",
    class: "not shown",
    why: "how a new client joins applicationClients: not shown",
  },
  {
    file: "customer-config.ts",
    text: 'ctx.variants.has("clients-answer-no-body")',
    class: "equivalent",
    why: "variant-only code",
  },
  // ---------------------------------------------------------------- delete-task.ts
  // The explorer's fault (issue 43): conditions joined to its switch.
  {
    file: "delete-task.ts",
    text: "parameters.type === undefined &&",
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "delete-task.ts",
    text: "parameters.uris === undefined &&",
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "delete-task.ts",
    text: "typeof (request as { parameters?: unknown } | null)?.parameters",
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "delete-task.ts",
    text: "selection.keys = new Set();",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "delete-task.ts",
    text: "anyTenant = false,",
    class: "equivalent",
    why: "the defaults matter to faults and variants only",
  },
  {
    file: "delete-task.ts",
    text: "skipForeign = false,",
    class: "equivalent",
    why: "the defaults matter to faults and variants only",
  },
  {
    file: "delete-task.ts",
    text: "followForeign = false,",
    class: "equivalent",
    why: "the defaults matter to faults and variants only",
  },
  {
    file: "delete-task.ts",
    text: "if (body === undefined) {",
    class: "not shown",
    why: "which malformed task requests are refused: not shown",
  },
  {
    file: "delete-task.ts",
    text: 'body === null || typeof body !== "object" || Array.isArray(body)',
    class: "not shown",
    why: "which malformed task requests are refused: not shown",
  },
  {
    file: "delete-task.ts",
    text: "if (raw === undefined || raw === null) return",
    mutators: ["ConditionalExpression"],
    class: "not shown",
    why: "what parameters: null gets (absent parameters are detected)",
  },
  {
    file: "delete-task.ts",
    text: 'if (typeof raw !== "object" || Array.isArray(raw)) {',
    class: "not shown",
    why: "which malformed task requests are refused: not shown",
  },
  {
    file: "delete-task.ts",
    text: "if (params.type !== undefined && params.type !== null) {",
    class: "not shown",
    why: "what parameters.type: null gets: not shown",
  },
  {
    file: "delete-task.ts",
    text: 'typeof params.type !== "string" ||',
    class: "not shown",
    why: "which malformed task requests are refused: not shown",
  },
  {
    file: "delete-task.ts",
    text: 'lookupTypeName(params.type) === "" ||',
    class: "not shown",
    why: "which malformed task requests are refused: not shown",
  },
  {
    file: "delete-task.ts",
    text: "    ) {",
    class: "not shown",
    why: "which malformed task requests are refused: not shown",
  },
  {
    file: "delete-task.ts",
    text: "if (params.uris !== undefined && params.uris !== null) {",
    class: "not shown",
    why: "what parameters.uris: null gets: not shown",
  },
  {
    file: "delete-task.ts",
    text: "if (!Array.isArray(params.uris)) {",
    class: "not shown",
    why: "which malformed task requests are refused: not shown",
  },
  {
    file: "delete-task.ts",
    text: "if (params.uris.length > MAX_URIS) {",
    class: "not shown",
    why: "a cap on the URIs of a task: not shown",
  },
  {
    file: "delete-task.ts",
    text: 'if (typeof uri !== "string")',
    class: "not shown",
    why: "which malformed task requests are refused: not shown",
  },
  {
    file: "delete-task.ts",
    text: "const second = first < 0 ? -1",
    class: "not shown",
    why: "which malformed URIs are refused: not shown",
  },
  {
    file: "delete-task.ts",
    text: "if (first <= 0 || second <= first + 1",
    class: "not shown",
    why: "which malformed URIs are refused: not shown",
  },
  {
    file: "delete-task.ts",
    text: "uriTenant !== tenant && skipForeign && !anyTenant",
    class: "equivalent",
    why: "a condition joined to a variant switch",
  },
  {
    file: "delete-task.ts",
    text: "uriTenant !== tenant && followForeign",
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "delete-task.ts",
    text: "selection.foreign ??= new Map()",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "delete-task.ts",
    text: "const keys = selection.foreign.get(uriTenant)",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "delete-task.ts",
    text: "keys.add(lookupKey(lookupTypeUri(uri.slice(first + 1, second)), uri.slice(second + 1)));",
    class: "equivalent",
    why: "fault-only code (the line of the task's own tenant is detected)",
  },
  {
    file: "delete-task.ts",
    text: 'task.status = "RUNNING"',
    class: "not shown",
    why: "a task's status values: not shown",
  },
  {
    file: "delete-task.ts",
    text: 'selection.type !== undefined && ctx.faults.has("delete-by-type-removes-other-types")',
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "delete-task.ts",
    text: "effective = { ...selection, type: undefined }",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "delete-task.ts",
    text: "? [...ctx.state.lookups.keys()]",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "delete-task.ts",
    text: "if (!table) continue;",
    class: "equivalent",
    why: "every tenant has its lookups",
  },
  {
    file: "delete-task.ts",
    text: 'effective.type !== undefined && ctx.faults.has("delete-by-type-first-page-only")',
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "delete-task.ts",
    text: "doomed = doomed.slice(0, 100)",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "delete-task.ts",
    text: 'effective.keys !== undefined && doomed[0] && ctx.faults.has("delete-by-uris-removes-more")',
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "delete-task.ts",
    text: "const extra = table.inIdentityOrder()",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "delete-task.ts",
    text: "if (extra) doomed.push(extra)",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "delete-task.ts",
    text: "for (const [tenant, keys] of selection.foreign ?? [])",
    class: "not shown",
    why: "the loop of a fault; with a broken default the task's status never reads COMPLETED (task answers: not shown)",
  },
  {
    file: "delete-task.ts",
    text: "for (const lookup of table?.inIdentityOrder() ?? [])",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "delete-task.ts",
    text: "if (keys.has(lookupKey(lookup.type, lookup.code))) table?.delete(lookup)",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "delete-task.ts",
    text: "const pendingOf = (ctx",
    class: "equivalent",
    why: "variant-only code (delete-task-delayed)",
  },
  { file: "delete-task.ts", text: "  if (!list) {", class: "equivalent", why: "variant-only code" },
  { file: "delete-task.ts", text: "list = [];", class: "equivalent", why: "variant-only code" },
  {
    file: "delete-task.ts",
    text: "export function runDueTasks",
    class: "equivalent",
    why: "variant-only code",
  },
  {
    file: "delete-task.ts",
    text: "if (!list || list.length === 0) return;",
    class: "equivalent",
    why: "variant-only code",
  },
  { file: "delete-task.ts", text: "const due = list.filter", class: "equivalent", why: "variant-only code" },
  {
    file: "delete-task.ts",
    text: "if (due.length === 0) return;",
    class: "equivalent",
    why: "variant-only code",
  },
  {
    file: "delete-task.ts",
    text: "list.filter((t) => t.dueAt > now)",
    class: "equivalent",
    why: "variant-only code",
  },
  {
    file: "delete-task.ts",
    text: "if (!(viewerByType || tenantByUrisOnly || adminOnlyByType))",
    class: "equivalent",
    why: "fault switches",
  },
  { file: "delete-task.ts", text: "  try {", class: "equivalent", why: "fault-only code" },
  { file: "delete-task.ts", text: "} catch (error) {", class: "equivalent", why: "fault-only code" },
  {
    file: "delete-task.ts",
    text: "const parameters = (body as",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "delete-task.ts",
    text: "viewerByType || tenantByUrisOnly",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "delete-task.ts",
    text: "? !Array.isArray(parameters?.uris)",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "delete-task.ts",
    text: ': typeof parameters?.type === "string"',
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "delete-task.ts",
    text: "unreadable !== undefined || !faultyForm",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "delete-task.ts",
    text: '? authorize(ctx, request, tenant, accessOf("createTask"))',
    class: "equivalent",
    why: "fault-only code",
  },
  { file: "delete-task.ts", text: ": faultyTaskAuthorization(", class: "equivalent", why: "fault-only code" },
  {
    file: "delete-task.ts",
    text: "if (unreadable !== undefined) throw unreadable",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "delete-task.ts",
    text: "return { principal, readBody: async () => body }",
    class: "equivalent",
    why: "fault-only code",
  },
  { file: "delete-task.ts", text: "): Principal {", class: "equivalent", why: "fault-only code" },
  {
    file: "delete-task.ts",
    text: 'if (fault.viewerByType) return authorize(ctx, request, tenant, "read")',
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "delete-task.ts",
    text: "if (fault.tenantByUrisOnly)",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "delete-task.ts",
    text: "authenticate(ctx, request).tenants[0] ?? tenant",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "delete-task.ts",
    text: 'const principal = authorize(ctx, request, tenant, accessOf("createTask"))',
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "delete-task.ts",
    text: "if (!isTenantAdmin(principal, tenant))",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "delete-task.ts",
    text: 'parameters.type === undefined && ctx.faults.has("delete-task-without-type-refused")',
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "delete-task.ts",
    text: 'status: "NOT_STARTED"',
    class: "not shown",
    why: "a task's status values: not shown",
  },
  {
    file: "delete-task.ts",
    text: 'ctx.variants.has("delete-task-delayed")',
    class: "equivalent",
    why: "variant-only code",
  },
  { file: "delete-task.ts", text: "pendingOf(ctx).push({", class: "equivalent", why: "variant-only code" },
  {
    file: "delete-task.ts",
    text: "dueAt: task.createdTime + DELAYED_TASK_MS",
    class: "equivalent",
    why: "variant-only code",
  },
  {
    file: "delete-task.ts",
    text: "run: () => run(ctx, task, selection)",
    class: "equivalent",
    why: "variant-only code",
  },
  { file: "delete-task.ts", text: ".unref?.()", class: "equivalent", why: "unref exists on Node's timers" },
  {
    file: "delete-task.ts",
    text: 'ctx.variants.has("delete-task-204")',
    class: "equivalent",
    why: "variant-only code",
  },
  {
    file: "delete-task.ts",
    text: 'ctx.variants.has("no-task-status-endpoint")',
    class: "equivalent",
    why: "variant-only code",
  },
  {
    file: "delete-task.ts",
    text: "if (!task || task.tenantId !== tenant) {",
    class: "not shown",
    why: "the task status endpoint: not shown",
  },
  {
    file: "delete-task.ts",
    text: 'ctx.faults.has("task-status-created-time-as-string")',
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "delete-task.ts",
    text: "createdTime: new Date(task.createdTime).toISOString()",
    class: "equivalent",
    why: "fault-only code",
  },
  // ---------------------------------------------------------------- token-endpoint.ts: the document shows
  // no token request (path, form, client authentication, answer headers): the kit's assumptions, not rules.
  {
    file: "token-endpoint.ts",
    text: "const NO_STORE",
    class: "static",
    why: "module constant (and cache headers are not shown)",
  },
  {
    file: "token-endpoint.ts",
    text: "return text.replace(/\\+/g",
    class: "not shown",
    why: "the token request's encoding: not shown",
  },
  {
    file: "token-endpoint.ts",
    text: "    try {",
    class: "not shown",
    why: "the token request's encoding: not shown",
  },
  {
    file: "token-endpoint.ts",
    text: "    } catch {",
    class: "not shown",
    why: "the token request's encoding: not shown",
  },
  {
    file: "token-endpoint.ts",
    text: "/^basic\\s/i.test(header)",
    class: "not shown",
    why: "client authentication at the token endpoint: not shown",
  },
  {
    file: "token-endpoint.ts",
    text: 'if (formSecret !== null && ctx.variants.has("client-auth-one-method")) {',
    class: "not shown",
    why: "client authentication at the token endpoint: not shown",
  },
  {
    file: "token-endpoint.ts",
    text: "decodeBase64Text(header.replace",
    class: "not shown",
    why: "client authentication at the token endpoint: not shown",
  },
  {
    file: "token-endpoint.ts",
    text: "if (colon < 0) {",
    class: "not shown",
    why: "client authentication at the token endpoint: not shown",
  },
  {
    file: "token-endpoint.ts",
    text: '"www-authenticate": \'Basic realm="oauth"\'',
    class: "not shown",
    why: "the challenge of a refused token request: not shown",
  },
  {
    file: "token-endpoint.ts",
    text: "        {",
    class: "not shown",
    why: "the headers of a refused token request: not shown",
  },
  // -> true (or ||) refuses every token request, HTTP Basic ones too: no client gets a token.
  {
    file: "token-endpoint.ts",
    text: 'formSecret !== null && ctx.variants.has("client-auth-basic-only")',
    mutators: ["ConditionalExpression", "LogicalOperator"],
    original: 'formSecret !== null && ctx.variants.has("client-auth-basic-only")',
    class: "gap",
    why: "every token request refused (TOKEN-QUOTA-01: tokens are issued for client_credentials)",
  },
  {
    file: "token-endpoint.ts",
    text: 'formSecret !== null && ctx.variants.has("client-auth-basic-only")',
    class: "equivalent",
    why: "variant-only code",
  },
  {
    file: "token-endpoint.ts",
    text: "if (formId === null || formSecret === null) {",
    class: "not shown",
    why: "client authentication at the token endpoint: not shown",
  },
  {
    file: "token-endpoint.ts",
    text: "return { clientId: formId, clientSecret: formSecret, basic: false }",
    class: "not shown",
    why: "the challenge of a refused token request: not shown",
  },
  {
    file: "token-endpoint.ts",
    text: "function rateLimit",
    class: "equivalent",
    why: "variant-only code (token-rate-limit)",
  },
  {
    file: "token-endpoint.ts",
    text: "const byClient = recentRequests",
    class: "equivalent",
    why: "variant-only code",
  },
  {
    file: "token-endpoint.ts",
    text: "const recent = (byClient.get(clientId)",
    class: "equivalent",
    why: "variant-only code",
  },
  {
    file: "token-endpoint.ts",
    text: "if (recent.length >= RATE_LIMIT_PER_SECOND)",
    class: "equivalent",
    why: "variant-only code",
  },
  {
    file: "token-endpoint.ts",
    text: '{ "retry-after": "1" }',
    class: "equivalent",
    why: "variant-only code",
  },
  {
    file: "token-endpoint.ts",
    text: 'request.headers.get("content-type") ?? ""',
    class: "not shown",
    why: "the token request's content type: not shown",
  },
  {
    file: "token-endpoint.ts",
    text: 'text.trim() !== "" && !type.toLowerCase()',
    class: "not shown",
    why: "the token request's content type: not shown",
  },
  {
    file: "token-endpoint.ts",
    text: "expected a body of type application/x-www-form-urlencoded",
    class: "not shown",
    why: "error text",
  },
  {
    file: "token-endpoint.ts",
    text: 'ctx.faults.has("grant-in-query-refused") || ctx.variants',
    class: "equivalent",
    why: "fault and variant switches",
  },
  {
    file: "token-endpoint.ts",
    text: 'authorizedGrantTypes.includes("client_credentials")',
    class: "fixture world",
    why: "needs a client without client_credentials among its grant types: no target credential is one",
  },
  {
    file: "token-endpoint.ts",
    text: 'ctx.faults.has("token-error-not-json")',
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "token-endpoint.ts",
    text: 'return new Response("Request declined"',
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "token-endpoint.ts",
    text: '"text/plain; charset=UTF-8", ...NO_STORE',
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "token-endpoint.ts",
    text: '{ ...NO_STORE, "retry-after"',
    class: "not shown",
    why: "the headers of a quota refusal: not shown",
  },
  {
    file: "token-endpoint.ts",
    text: 'scope: stored.client.scope.join(" ")',
    class: "not shown",
    why: "the scope field of a token answer: not shown",
  },
  {
    file: "token-endpoint.ts",
    text: 'ctx.variants.has("token-answer-minimal")',
    class: "equivalent",
    why: "variant-only code",
  },
  {
    file: "token-endpoint.ts",
    text: 'answer.token_type = "Bearer"',
    class: "equivalent",
    why: "variant-only code",
  },
  // ---------------------------------------------------------------- scan-query.ts (issue 43): the
  // document gives limit a default and a maximum (100) for the autopilot scans, sort a field name and order
  // asc or desc; the bounds of the lookups scan's limit, the permitted sort fields, refusals of bad input and
  // the grammar beyond equals are not shown.
  // The explorer's fault (issue 43): conditions joined to its switch.
  {
    file: "scan-query.ts",
    text: "rawLimit === null &&",
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "scan-query.ts",
    text: "!boundless &&",
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "scan-query.ts",
    text: 'params.get("sort") &&',
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  { file: "scan-query.ts", text: "limit = 50;", class: "equivalent", why: "fault-only code" },
  {
    file: "scan-query.ts",
    text: "const LIMITED_SORT_FIELDS",
    class: "equivalent",
    why: "the sortable fields of the sort-fields-limited variant, off in a conformance run",
  },
  {
    file: "scan-query.ts",
    text: "boundless = false,",
    class: "equivalent",
    why: "the one caller (scan.ts) always passes boundless",
  },
  {
    file: "scan-query.ts",
    text: 'ctx.faults.has("limit-over-100-accepted-silently") ||',
    class: "equivalent",
    why: "a condition joined to a fault switch",
  },
  {
    file: "scan-query.ts",
    text: '(boundless && ctx.variants.has("lookup-scan-limit-unbounded"))',
    mutators: ["LogicalOperator"],
    class: "not shown",
    why: "the lookups scan takes any positive limit (the lookup-scan-limit-unbounded variant): its bounds are not shown; the autopilot bound stays",
  },
  {
    file: "scan-query.ts",
    text: '(boundless && ctx.variants.has("lookup-scan-limit-unbounded"))',
    class: "equivalent",
    why: "a condition joined to a variant switch",
  },
  {
    file: "scan-query.ts",
    text: "limit = /^\\d{1,15}$/.test(rawLimit)",
    class: "not shown",
    why: "which malformed limits (+5, 1.5, -0) are refused: not shown",
  },
  {
    file: "scan-query.ts",
    text: 'if (limit > max && ctx.variants.has("limit-above-max-clamped"))',
    mutators: ["LogicalOperator"],
    class: "not shown",
    why: "a limit above the maximum clamped instead of refused (the variant limit-above-max-clamped): not shown",
  },
  {
    file: "scan-query.ts",
    text: 'if (limit > max && ctx.variants.has("limit-above-max-clamped"))',
    original: 'limit > max && ctx.variants.has("limit-above-max-clamped")',
    replacement: "true",
    class: "gap",
    why: "every page as long as the maximum whatever limit asks (LOOKUP-SCAN-03, AUTOPILOT-03)",
  },
  {
    file: "scan-query.ts",
    text: 'if (limit > max && ctx.variants.has("limit-above-max-clamped"))',
    class: "equivalent",
    why: "a condition joined to a variant switch",
  },
  {
    file: "scan-query.ts",
    text: "if (!(limit >= 1 && limit <= max))",
    class: "not shown",
    why: "limit=0 accepted: the document gives limit a default and a maximum, no minimum",
  },
  // `boundless && variants.has("short-pages")` -> true serves autopilot pages of 25 whatever limit asks: the
  // document makes limit the autopilot page size (default 100), so it is no longer left unclassified: fault
  // autopilot-scan-short-pages and autopilot-scan/default-limit catch it.
  {
    file: "scan-query.ts",
    text: 'if (boundless && ctx.variants.has("short-pages")) limit = Math.min(limit, SHORT_PAGE)',
    mutators: ["LogicalOperator"],
    class: "not shown",
    why: "short pages on the lookups scan (the short-pages variant): the bounds of its limit are not shown",
  },
  {
    file: "scan-query.ts",
    text: 'if (boundless && ctx.variants.has("short-pages")) limit = Math.min(limit, SHORT_PAGE)',
    replacement: "false",
    class: "equivalent",
    why: "a condition joined to a variant switch",
  },
  {
    file: "scan-query.ts",
    text: 'if (boundless && ctx.variants.has("short-pages")) limit = Math.min(limit, SHORT_PAGE)',
    mutators: ["MethodExpression"],
    class: "equivalent",
    why: "variant-only code",
  },
  {
    file: "scan-query.ts",
    text: 'let order: "asc" | "desc" = "asc"',
    class: "equivalent",
    why: "only desc reverses: any other default reads as asc",
  },
  {
    file: "scan-query.ts",
    text: 'if (lower !== "asc" && lower !== "desc")',
    class: "not shown",
    why: "the refusal of an order other than asc or desc: not shown",
  },
  {
    file: "scan-query.ts",
    text: 'if (rawSort !== null && rawSort !== "")',
    class: "not shown",
    why: "an absent sort read as a sort by a field no record has (identity order either way), or sort= refused: not shown",
  },
  {
    file: "scan-query.ts",
    text: "if (!/^[A-Za-z_$][\\w$-]*$/.test(rawSort))",
    class: "not shown",
    why: '"the permitted sort field names: not shown"',
  },
  {
    file: "scan-query.ts",
    text: 'if (ctx.variants.has("sort-fields-limited") && !LIMITED_SORT_FIELDS.includes(rawSort))',
    mutators: ["LogicalOperator"],
    class: "not shown",
    why: 'only four fields sort (as the sort-fields-limited variant): "the permitted sort field names: not shown"',
  },
  {
    file: "scan-query.ts",
    text: 'if (ctx.variants.has("sort-fields-limited") && !LIMITED_SORT_FIELDS.includes(rawSort))',
    original: 'ctx.variants.has("sort-fields-limited") && !LIMITED_SORT_FIELDS.includes(rawSort)',
    replacement: "true",
    class: "gap",
    why: "every sort refused, code too, which the document's lookup scan sample sorts by (SCAN-06)",
  },
  {
    file: "scan-query.ts",
    text: 'if (ctx.variants.has("sort-fields-limited") && !LIMITED_SORT_FIELDS.includes(rawSort))',
    class: "equivalent",
    why: "variant-only code",
  },
  {
    file: "scan-query.ts",
    text: "const options: FilterOptions = {",
    class: "not shown",
    why: "equals on a lookup type by its other form (URI or name) stops matching: LOOKUP-SCAN-05 is the kit's SHOULD (variant equals-exact-stored-value)",
  },
  {
    file: "scan-query.ts",
    text: '...(ctx.variants.has("equals-exact-stored-value") ? { typePaths: [] } : {})',
    class: "equivalent",
    why: "variant-only code",
  },
  {
    file: "scan-query.ts",
    text: 'rawFilter !== null && rawFilter.trim() !== ""',
    class: "not shown",
    why: "the refusal of an empty or blank filter: not shown",
  },
  // ---------------------------------------------------------------- autopilot-scan.ts (issue 43)
  {
    file: "autopilot-scan.ts",
    text: "centroidMatch: String(s.centroidMatch)",
    class: "equivalent",
    why: "fault-only code",
  },
  {
    file: "autopilot-scan.ts",
    text: "records: () => served(ctx, ctx.state.statistics.get(tenant) ?? [])",
    class: "equivalent",
    why: "every known tenant has its list (state.ts) and an unknown one is refused first",
  },
  {
    file: "autopilot-scan.ts",
    text: 'filterOptions: { typePaths: ["lookupType"] }',
    class: "not shown",
    why: "equals(lookupType,'rdm/lookupTypes/<name>') stops matching a statistic that holds the name: exact equality is SCAN-07, the other form the kit's choice",
  },
  {
    file: "autopilot-scan.ts",
    text: 'present: recordPresenter(ctx, "statistic")',
    class: "equivalent",
    why: "the presenter of the record-field variants, off in a conformance run",
  },
  // ---------------------------------------------------------------- scan-order.ts (issue 43): each class
  // below was measured by replaying the mutant's view against the reference's on random record sets (ties,
  // records without the field, one or several value types, filters, both orders, first pages of 2 to 31).
  // "equivalent": the same records in the same order every time; "not shown": only the place of records
  // without the sort field, the order of ties, or of values of different types (no field of the document
  // holds two types) differ, every record still once; "gap": on records of one type the first page (picked
  // by selection) and the later pages (the full order) disagree, so a record repeats or is lost at the
  // first page boundary (SCAN-04) or page 1 is out of order (SCAN-06).
  // Since the run, the exactly-once checks open with sorted scrolls at limits of 1 to 3 whose first boundary
  // falls in tied values (smallLimitCases in suites/support/scan-space.ts), proven by the fault
  // scan-first-page-ties-reversed. Replayed one by one (each mutant, the four scan checks every-record-once
  // and order-respected alone, seed 7), they now fail on the gaps of lines 48 (a === b), 56 (b === undefined
  // -> true, b !== undefined), 57 (-1 -> +1), 92, 98 (all three) and 101, and on 210's swap(i, (i + 1) >> 1):
  // those lines name no rule any more and stay unclassified until the next run shows them detected. Still
  // gaps: 56's a === undefined -> false, 58, the heap's 210, 217 and 219, and 227/229 (page 1 in heap order).
  {
    file: "scan-order.ts",
    text: "if (!Object.hasOwn(record, field)) return undefined",
    class: "equivalent",
    why: "a missing or inherited field reads as no scalar either way",
  },
  {
    file: "scan-order.ts",
    text: 'return typeof value === "string" || typeof value === "number" || typeof value === "boolean"',
    class: "not shown",
    why: "a sort by a field holding objects (sourceFrequency): its order, and whether it is permitted, not shown",
  },
  {
    file: "scan-order.ts",
    text: "const TYPE_RANK",
    class: "not shown",
    why: "the order of values of different types: no field of the document holds two",
  },
  {
    file: "scan-order.ts",
    text: "if (ta !== tb) return (TYPE_RANK[ta] ?? 3) - (TYPE_RANK[tb] ?? 3)",
    class: "not shown",
    why: "the order of values of different types: no field of the document holds two",
  },
  {
    file: "scan-order.ts",
    text: "return a < b ? -1 : 1",
    class: "equivalent",
    why: "reached for different values only",
  },
  {
    file: "scan-order.ts",
    text: "if (a === undefined) return b === undefined ? p - q : 1",
    mutators: ["ArithmeticOperator"],
    class: "not shown",
    why: "the order among records without the sort field: not shown (each still once)",
  },
  {
    file: "scan-order.ts",
    text: "if (a === undefined) return b === undefined ? p - q : 1",
    original: "b === undefined",
    replacement: "false",
    class: "not shown",
    why: "the order among records without the sort field: not shown (each still once)",
  },
  {
    file: "scan-order.ts",
    text: "if (a === undefined) return b === undefined ? p - q : 1",
    original: "a === undefined",
    class: "gap",
    why: "SCAN-04: records without the field enter the first page's selection out of place; it disagrees with the later pages",
  },
  {
    file: "scan-order.ts",
    text: "if (b === undefined) return -1",
    mutators: ["ConditionalExpression"],
    class: "equivalent",
    why: "the comparison that follows places a record without the field after the same way",
  },
  {
    file: "scan-order.ts",
    text: "return compareKeys(a, b) || p - q",
    class: "gap",
    why: "SCAN-04: ties are selected for the first page in another order than the later pages serve them",
  },
  {
    file: "scan-order.ts",
    text: "let numeric = true",
    class: "equivalent",
    why: "which of three sorts giving one order runs",
  },
  {
    file: "scan-order.ts",
    text: "let textual = true",
    class: "equivalent",
    why: "which of three sorts giving one order runs",
  },
  {
    file: "scan-order.ts",
    text: "if (key === undefined) missing.push(i)",
    class: "equivalent",
    why: "the mixed comparison puts keyless records last in identity order, as the missing list does",
  },
  {
    file: "scan-order.ts",
    text: 'if (typeof key !== "number" || Number.isNaN(key)) numeric = false',
    class: "equivalent",
    why: "which of three sorts giving one order runs",
  },
  {
    file: "scan-order.ts",
    text: 'if (typeof key !== "string") textual = false',
    class: "not shown",
    why: "keys of several types compared as text: their order is not shown; keys of one type sort the same",
  },
  {
    file: "scan-order.ts",
    text: "for (let j = 0; j < order.length; j++) order[j] = j",
    class: "equivalent",
    why: "a write past the end of a typed array is ignored",
  },
  {
    file: "scan-order.ts",
    text: "if (numeric) {",
    class: "equivalent",
    why: "the general comparison orders numbers the same",
  },
  {
    file: "scan-order.ts",
    text: "} else if (textual) {",
    class: "not shown",
    why: "keys of several types compared as text: their order is not shown; keys of one type sort the same",
  },
  {
    file: "scan-order.ts",
    text: "return x < y ? -1 : x > y ? 1 : a - b",
    original: "x < y",
    class: "equivalent",
    why: "V8's typed-array sort asks the comparator in an order where the result is the same (measured)",
  },
  {
    file: "scan-order.ts",
    text: "for (let j = 0; j < order.length; j++) sorted[j] = present[order[j] as number] as number",
    class: "equivalent",
    why: "the extra write lands where the missing records' loop writes next, or past the end (ignored)",
  },
  {
    file: "scan-order.ts",
    text: "for (let j = 0; j < missing.length; j++) sorted[present.length + j]",
    class: "equivalent",
    why: "a write past the end of a typed array is ignored",
  },
  {
    file: "scan-order.ts",
    text: "function keptOrder(",
    class: "equivalent",
    why: "the cache of full orders: time and memory, never the order served",
  },
  {
    file: "scan-order.ts",
    text: "if (kept && order) {",
    class: "equivalent",
    why: "the cache of full orders: time and memory, never the order served",
  },
  {
    file: "scan-order.ts",
    text: "if (found) return found",
    class: "equivalent",
    why: "the cache of full orders: time and memory, never the order served",
  },
  {
    file: "scan-order.ts",
    text: "if (!kept) {",
    class: "equivalent",
    why: "the cache of full orders: time and memory, never the order served",
  },
  {
    file: "scan-order.ts",
    text: "for (const o of kept.values()) entries += o.length",
    class: "equivalent",
    why: "the eviction of kept orders (above 4,000,000 positions): memory, never the order served",
  },
  {
    file: "scan-order.ts",
    text: "for (const [name, o] of kept) {",
    class: "equivalent",
    why: "the eviction of kept orders (above 4,000,000 positions): memory, never the order served",
  },
  {
    file: "scan-order.ts",
    text: "if (entries <= maxEntries || name === field) break",
    class: "equivalent",
    why: "the eviction of kept orders (above 4,000,000 positions): memory, never the order served",
  },
  {
    file: "scan-order.ts",
    text: "entries -= o.length",
    class: "equivalent",
    why: "the eviction of kept orders (above 4,000,000 positions): memory, never the order served",
  },
  {
    file: "scan-order.ts",
    text: "serve(keys[i], positions[i] as number, keys[j], positions[j] as number) > 0",
    class: "equivalent",
    why: "two positions never compare equal",
  },
  {
    file: "scan-order.ts",
    text: "for (let n = 0; n < total && count > 0; n++)",
    class: "equivalent",
    why: "a first page selected short or not at all is read from the full order",
  },
  {
    file: "scan-order.ts",
    text: "if (positions.length < count) {",
    class: "equivalent",
    why: "a selection of more or fewer records is still a true prefix; the rest is read from the full order",
  },
  {
    file: "scan-order.ts",
    text: "for (let i = positions.length - 1; i > 0 && worse(i, (i - 1) >> 1); i = (i - 1) >> 1)",
    class: "gap",
    why: "SCAN-04: a broken heap keeps the wrong records for the first page; it disagrees with the later pages",
  },
  {
    file: "scan-order.ts",
    text: "} else if (serve(key, p, keys[0], positions[0] as number) < 0) {",
    class: "equivalent",
    why: "two positions never compare equal",
  },
  {
    file: "scan-order.ts",
    text: "const r = l + 1",
    class: "gap",
    why: "SCAN-04: a broken heap keeps the wrong records for the first page; it disagrees with the later pages",
  },
  {
    file: "scan-order.ts",
    text: "if (l < positions.length && worse(l, top)) top = l",
    class: "gap",
    why: "SCAN-04: a broken heap keeps the wrong records for the first page; it disagrees with the later pages",
  },
  {
    file: "scan-order.ts",
    text: "if (r < positions.length && worse(r, top)) top = r",
    class: "equivalent",
    why: "the slot past the heap is never the worse (measured)",
  },
  {
    file: "scan-order.ts",
    text: "  const order = positions",
    class: "gap",
    why: "SCAN-06/SCAN-04: the first page is served in heap order, or as the wrong records",
  },
  {
    file: "scan-order.ts",
    text: ".sort((i, j) => serve(keys[i], positions[i] as number, keys[j], positions[j] as number))",
    class: "gap",
    why: "SCAN-06: the first page is served in heap order",
  },
  {
    file: "scan-order.ts",
    text: "Math.min(firstPage, total)",
    class: "equivalent",
    why: "a selection of every record is the full order",
  },
  {
    file: "scan-order.ts",
    text: "at: (i) => (head && i < head.length ?",
    class: "equivalent",
    why: "the first page read from the full order is the same page",
  },
  {
    file: "scan-order.ts",
    text: "function orderSoon(",
    class: "equivalent",
    why: "builds the full order ahead of need: time only",
  },
  {
    file: "scan-order.ts",
    text: "if (fields?.has(field)) return",
    class: "equivalent",
    why: "builds the full order ahead of need: time only",
  },
  {
    file: "scan-order.ts",
    text: "if (!fields) {",
    class: "equivalent",
    why: "builds the full order ahead of need: time only",
  },
  {
    file: "scan-order.ts",
    text: "setImmediate(() => {",
    class: "equivalent",
    why: "builds the full order ahead of need: time only",
  },
  {
    file: "scan-order.ts",
    text: "if (field === undefined) {",
    class: "equivalent",
    why: "no sort served as a sort by a field no record has: identity order either way",
  },
  {
    file: "scan-order.ts",
    text: "keptOrder(base, field) ?? (order.firstPage * 16 >= base.length",
    class: "equivalent",
    why: "selection for the first page or a full sort: the same records in the same order",
  },
  {
    file: "scan-order.ts",
    text: "if (found) {",
    class: "equivalent",
    why: "selection for the first page or a full sort: the same records in the same order",
  },
  // filter.ts, issue 43's audit: "may be absent from a record" (Scan rules, 4) makes a record without the
  // field one an equals on it must not match (SCAN-07); explore/reads draws equals on candidateLookupCode,
  // candidateValue, mappedAt, mappedBy and dcrId (fault filter-equals-matches-missing-field).
  {
    file: "filter.ts",
    text: ": leaves.some(test)",
    class: "gap",
    why: "SCAN-07: a record that lacks the field matches every equals(field,'v')",
  },
  {
    file: "filter.ts",
    text: "return (record) => {",
    mutators: ["BlockStatement"],
    class: "gap",
    why: "SCAN-07: no record matches any filter",
  },
  // The fault's flag is off: the conjunction stays false, unless the mutant drops or turns the flag.
  {
    file: "filter.ts",
    text: 'leaves.length === 0 && op === "equals" && this.options.missingFieldMatchesEquals === true',
    original: "this.options.missingFieldMatchesEquals === true",
    mutators: ["ConditionalExpression", "EqualityOperator"],
    class: "gap",
    why: "SCAN-07: a record that lacks the field matches every equals(field,'v')",
  },
  {
    file: "filter.ts",
    text: 'leaves.length === 0 && op === "equals" && this.options.missingFieldMatchesEquals === true',
    original: 'leaves.length === 0 && op === "equals" && this.options.missingFieldMatchesEquals === true',
    mutators: ["ConditionalExpression"],
    replacement: "true",
    class: "gap",
    why: "SCAN-07: every record matches every filter",
  },
  {
    file: "filter.ts",
    text: 'leaves.length === 0 && op === "equals" && this.options.missingFieldMatchesEquals === true',
    original: 'leaves.length === 0 && op === "equals" && this.options.missingFieldMatchesEquals === true',
    mutators: ["LogicalOperator"],
    class: "gap",
    why: "SCAN-07: a record that lacks the field matches every equals(field,'v')",
  },
  // `=== true` -> `=== false`: the flag is false, not absent, so this turns the fault on (measured: killed).
  {
    file: "filter.ts",
    text: 'leaves.length === 0 && op === "equals" && this.options.missingFieldMatchesEquals === true',
    mutators: ["BooleanLiteral"],
    class: "gap",
    why: "SCAN-07: a record that lacks the field matches every equals(field,'v')",
  },
  {
    file: "filter.ts",
    text: 'leaves.length === 0 && op === "equals" && this.options.missingFieldMatchesEquals === true',
    class: "equivalent",
    why: "a condition joined to the flag of the fault filter-equals-matches-missing-field, off",
  },
  { file: "filter.ts", text: "? true", class: "equivalent", why: "reached with the fault's flag on only" },
  // ---------------------------------------------------------------- filter.ts: the document shows
  // equals(field,'value') only; the MUST checks judge exactly that (every other mutant of it is detected).
  {
    file: "filter.ts",
    text: "",
    class: "not shown",
    why: "the filter grammar beyond equals(field,'value'), its refusals and its case rules: not shown",
  },
];

// ---------------------------------------------------------------- conditions beside a switch
// A condition that holds a fault or variant switch is equivalent only if, with every switch off (as in a
// conformance run), the mutant has the reference's value whatever the other parts of the condition hold.
// `sortField !== undefined && faults.has(x)` -> true turns the fault on for every scan; `faults.has(x) &&
// a && b` -> `faults.has(x) && a || b` does too where b holds: neither is equivalent (issue 43's audit).

type Condition =
  | { kind: "atom"; text: string }
  | { kind: "not"; of: Condition }
  | { kind: "and" | "or"; left: Condition; right: Condition };

const SWITCH = /^ctx\.(faults|variants)\.has\(["'`][^"'`]*["'`]\)$/;

function conditionOf(text: string): Condition | undefined {
  const file = ts.createSourceFile("c.ts", `(${text});`, ts.ScriptTarget.Latest, false);
  const statement = file.statements[0];
  if (file.statements.length !== 1 || !statement || !ts.isExpressionStatement(statement)) return undefined;
  if ((file as unknown as { parseDiagnostics: unknown[] }).parseDiagnostics.length > 0) return undefined;
  const walk = (node: ts.Expression): Condition => {
    if (ts.isParenthesizedExpression(node)) return walk(node.expression);
    if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.ExclamationToken)
      return { kind: "not", of: walk(node.operand) };
    if (ts.isBinaryExpression(node)) {
      const op = node.operatorToken.kind;
      if (op === ts.SyntaxKind.AmpersandAmpersandToken || op === ts.SyntaxKind.BarBarToken)
        return {
          kind: op === ts.SyntaxKind.AmpersandAmpersandToken ? "and" : "or",
          left: walk(node.left),
          right: walk(node.right),
        };
    }
    return { kind: "atom", text: node.getText(file).replace(/\s+/g, " ") };
  };
  return walk(statement.expression);
}

function atomsOf(c: Condition, into: Set<string>): Set<string> {
  if (c.kind === "atom") into.add(c.text);
  else if (c.kind === "not") atomsOf(c.of, into);
  else {
    atomsOf(c.left, into);
    atomsOf(c.right, into);
  }
  return into;
}

function truthOf(c: Condition, at: ReadonlyMap<string, boolean>): boolean {
  if (c.kind === "atom") return at.get(c.text) ?? c.text === "true";
  if (c.kind === "not") return !truthOf(c.of, at);
  return c.kind === "and"
    ? truthOf(c.left, at) && truthOf(c.right, at)
    : truthOf(c.left, at) || truthOf(c.right, at);
}

/** "same": the mutant keeps the condition's value with every switch off; "fault" or "variant": it does not,
 *  on a condition holding a fault switch (or variant switches only); "fault on" or "variant on": it does
 *  not, on a condition of switches only (a fault or a variant turned on); undefined: not such a mutant. */
export function switchVerdict(
  m: MutantView,
): "same" | "fault on" | "fault" | "variant on" | "variant" | undefined {
  if (!["ConditionalExpression", "LogicalOperator", "BooleanLiteral"].includes(m.mutatorName))
    return undefined;
  const text = m.fullOriginal ?? m.original;
  if (!/\.(faults|variants)\.has\(/.test(text)) return undefined;
  const before = conditionOf(text);
  const after = conditionOf(m.replacement);
  if (!before || !after) return undefined;
  const atoms = atomsOf(before, atomsOf(after, new Set()));
  const switches = [...atoms].filter((a) => SWITCH.test(a));
  if (switches.length === 0) return undefined;
  const free = [...atoms].filter((a) => !SWITCH.test(a) && a !== "true" && a !== "false");
  if (free.length > 8) return undefined;
  for (let bits = 0; bits < 1 << free.length; bits++) {
    const at = new Map<string, boolean>(switches.map((s) => [s, false]));
    for (const [i, a] of free.entries()) at.set(a, (bits & (1 << i)) !== 0);
    if (truthOf(before, at) === truthOf(after, at)) continue;
    if (!switches.some((s) => s.startsWith("ctx.faults.")))
      return free.length === 0 ? "variant on" : "variant";
    return free.length === 0 ? "fault on" : "fault";
  }
  return "same";
}

/** The class of a mutant no check detected, and why. */
export function classify(m: MutantView): { class: MutantClass | "unclassified"; why: string } {
  const verdict = switchVerdict(m);
  if (verdict === "same")
    return {
      class: "equivalent",
      why: "with faults and variants off the condition keeps its value, whatever the rest of it holds",
    };
  if (verdict === "fault on")
    return { class: "gap", why: "turns a seeded fault on: a check must see the rule it breaks" };
  const auto = verdict === undefined ? automatic(m) : undefined;
  if (auto) return auto;
  const file = m.file.replace(/^.*\//, "");
  const rule = rules.find(
    (r) =>
      r.file === file &&
      m.line.includes(r.text) &&
      (r.mutators === undefined || r.mutators.includes(m.mutatorName)) &&
      (r.original === undefined || r.original === m.original) &&
      (r.replacement === undefined || r.replacement === m.replacement),
  );
  // A rule of the whole line may not call equivalent a mutant that changes a condition beside a fault
  // switch (it turns the fault on, or breaks what the condition guards): only a rule naming that very
  // mutant (its original or replacement) may, where the other parts are known to hold in a conformance run.
  const named = rule !== undefined && (rule.original !== undefined || rule.replacement !== undefined);
  if (verdict === "fault" && (!rule || (rule.class === "equivalent" && !named)))
    return {
      class: "gap",
      why: "turns a seeded fault on, or changes the condition beside it: a check must see the rule it breaks",
    };
  if (verdict === "variant on")
    return { class: "not shown", why: "turns a variant on: a choice the document leaves open" };
  // Beside a variant switch the mutant may also apply the variant where it was never meant to (short pages
  // on the autopilot scans): a rule must say which.
  if (verdict === "variant" && (!rule || (rule.class === "equivalent" && !named)))
    return { class: "unclassified", why: "changes a condition beside a variant switch: needs a rule" };
  return rule ? { class: rule.class, why: rule.why } : { class: "unclassified", why: "" };
}
