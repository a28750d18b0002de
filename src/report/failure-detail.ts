// A failure's structured detail (expected, actual, request, record, field, pages) as labelled rows: written
// once here so json, junit, markdown and html name the same things the same way.
import type { Exchange } from "../check/index.ts";
import { citation } from "../result/evidence.ts";
import type { CheckResult } from "../result/model.ts";

export interface DetailRow {
  label: "expected" | "actual" | "request" | "record" | "field" | "pages";
  value: string;
}

/** The rows of a check's failure detail, in reading order; the stack of a broken check is not one of them
 *  (each renderer shows it apart, folded). Empty when the check gave no detail. */
export function detailRows(check: CheckResult): DetailRow[] {
  const d = check.details;
  if (d === undefined) return [];
  const rows: DetailRow[] = [];
  if (d.expected !== undefined) rows.push({ label: "expected", value: d.expected });
  if (d.actual !== undefined) rows.push({ label: "actual", value: d.actual });
  if (d.request !== undefined)
    rows.push({ label: "request", value: `${d.request.method} ${d.request.path}` });
  if (d.record !== undefined) rows.push({ label: "record", value: d.record });
  if (d.field !== undefined) rows.push({ label: "field", value: d.field });
  if (d.pages !== undefined && d.pages.length > 0) rows.push({ label: "pages", value: pagesText(d.pages) });
  return rows;
}

/** "page 3 and page 7": how a reader says where a record of a scan was seen. */
export function pagesText(pages: readonly number[]): string {
  const named = pages.map((p) => `page ${p}`);
  return named.length <= 1 ? named.join("") : `${named.slice(0, -1).join(", ")} and ${named.at(-1)}`;
}

/** Why an exchange of the evidence matters to the failure's detail, in words; undefined when it does not. */
export function citedBecause(check: CheckResult, x: Exchange): string | undefined {
  const d = check.details;
  if (d === undefined) return undefined;
  switch (citation(d, x)) {
    case "record":
      return `its answer holds the record ${d.record}`;
    case "request":
      return "the request this failure is about";
    default:
      return undefined;
  }
}
