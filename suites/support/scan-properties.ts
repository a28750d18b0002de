// The scan properties were split by concept (scan-subject, scan-reads, scan-judges, scan-limits,
// scan-explorer, scan-case-judges and the scan-*-checks factories); this name still answers for code
// written against it before the split. New code imports the concept's own file.
export * from "./scan-case-judges.ts";
export * from "./scan-explorer.ts";
export * from "./scan-filter-checks.ts";
export * from "./scan-judges.ts";
export * from "./scan-limit-checks.ts";
export * from "./scan-once-checks.ts";
export * from "./scan-order-checks.ts";
export * from "./scan-reads.ts";
export * from "./scan-scroll-checks.ts";
export * from "./scan-subject.ts";
