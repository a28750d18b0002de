// The caller rule of page sizes: a limit within the document's maximum where it bounds one.
import { BOUNDED_PAGES, callerRule, MAX_PAGE_SIZE, type Violation, verdict, where } from "./caller-rule.ts";

export const pageSizeWithinMaximum = callerRule({
  id: "client/page-size-within-maximum",
  requirements: ["CALLER-LIMIT-01"],
  title: `MUST ask the autopilot scans and blocked values for at most ${MAX_PAGE_SIZE} records per page`,
  opportunity: "an autopilot scan or blocked values request",
  breaks: "`limit` above 100 (the lookups scan states no maximum: not judged)",
  exercisedBy: "reading statistics or blocked values",
  judge(traffic) {
    const judged = traffic.exchanges.filter((x) => x.operation && BOUNDED_PAGES.has(x.operation));
    const violations: Violation[] = [];
    for (const x of judged) {
      const limit = new URLSearchParams(x.search).get("limit");
      if (limit !== null && Number(limit) > MAX_PAGE_SIZE)
        violations.push({
          seq: x.seq,
          message: `${where(x)} asked for limit=${limit}; the maximum is ${MAX_PAGE_SIZE}`,
        });
    }
    return verdict(
      judged.length,
      violations,
      "your client sent no autopilot scan or blocked values request (the lookups scan states no maximum and is not judged)",
    );
  },
});
