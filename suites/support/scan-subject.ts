// A scan as its checks see it (lookups, autopilot all types, autopilot one type): its records, how one is
// identified, the fields it sorts and filters by; and the frame every read check of a scan shares. Each scan's
// suite file picks the check factories (scan-*-checks.ts) and names the requirement ids that apply to it.
import type { Check, CheckContext, CredentialRole } from "../../src/check/index.ts";
import type { ScanEndpoint } from "../../src/client/index.ts";
import { defineCheck } from "./define.ts";
import { scrollIdEncodingFact } from "./scroll-encoding.ts";

export type ScanRecordShape = Record<string, unknown>;

export interface ScanSubject {
  /** Suite name, the prefix of check ids. */
  suite: string;
  /** Words for messages: "the lookups scan". */
  name: string;
  role: CredentialRole;
  endpoint(ctx: CheckContext): ScanEndpoint;
  identity(record: ScanRecordShape): string;
  /** Top-level scalar fields a sort may name (SCAN-10: any of them). */
  sortFields: readonly string[];
  /** Sort fields the document itself uses, which a target must accept. */
  documentedSortFields: readonly string[];
  /** Fields for equals() filters, string-valued. */
  filterFields: readonly string[];
  /** Fields holding a lookup type: the SHOULD check filterTypeNameCheck filters them by type name. */
  typeFields: readonly string[];
  /** Which scan, as the exploration log names it: "lookups", "autopilot all types", "autopilot one type". */
  scan?: string;
}

export type Ids = { id: string; title: string; requirements: string[] };

/** A read check of one scan subject, with the subject's role: the frame every scan check factory shares. */
export function subjectReadCheck(subject: ScanSubject, ids: Ids, run: Check["run"]): Check {
  return defineCheck({
    ...ids,
    safety: "read",
    needs: { roles: [subject.role] },
    facts: [scrollIdEncodingFact],
    run,
  });
}
