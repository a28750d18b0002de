// The check factories about a scan's filter: equals() yields exactly the matching records, a type name matches
// a type URI (the kit's reading), and the kit's filter grammar.
import fc from "fast-check";
import { type Check, type CheckContext, fail } from "../../src/check/index.ts";
import { describeResponse } from "../../src/client/index.ts";
import { typeName } from "./data-operations.ts";
import { checkProperty } from "./property.ts";
import { judgeCaseFilter } from "./scan-case-judges.ts";
import { exploreSpace, noteScroll } from "./scan-explorer.ts";
import { failFilterFinding, failFinding, fieldMatches, identityFinding } from "./scan-judges.ts";
import { limitArb } from "./scan-limits.ts";
import { readScroll, referenceRead } from "./scan-reads.ts";
import { type Ids, type ScanRecordShape, type ScanSubject, subjectReadCheck } from "./scan-subject.ts";
import { clientOf } from "./target-client.ts";

/**
 * equals(field,'value') with a value a record holds yields exactly the records whose field holds that very
 * value. The value is sent as stored (a lookup type as its full URI): that is the one reading the document
 * fixes. Whether equals ignores case is not shown, so records whose field differs from the value in case
 * only may come too; whether a type name matches a type URI is the SHOULD check filterTypeNameCheck.
 */
export function filterCheck(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    const all = await referenceRead(ctx, subject);
    await checkProperty(
      ctx,
      fc.asyncProperty(
        fc.constantFrom(...subject.filterFields),
        fc.nat(all.length - 1),
        // limit 1 would make a scan that repeats page boundaries endless: the ends and exactly-once checks
        // judge that. A filtered scroll is judged whole: the largest pages most of the time.
        fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom(100, 99) },
          { weight: 1, arbitrary: limitArb(all.length, 2) },
        ),
        async (field, index, limit) => {
          const value = all[index]?.[field];
          // Quoting inside filter values is not shown by the document: values with quotes are left out.
          fc.pre(typeof value === "string" && value !== "" && !/['"\\]/.test(value));
          await judgeFilter(ctx, subject, all, { field, value: value as string, limit, byName: false });
        },
      ),
    );
    // Filtered scrolls under a sort, at the boundaries of the space: a filter must hold whatever the order.
    await exploreSpace(ctx, subject, all, judgeCaseFilter, { filteredOnly: true });
  });
}

/**
 * The document's sample filters the lookups scan by equals(type,'<type_name>') while the type is stored as
 * rdm/lookupTypes/<type_name>: the kit's reading is that the name matches the URI (SHOULD; a target that
 * compares stored values exactly answers nothing, which the MUST check filterCheck does not hold against it).
 */
export function filterTypeNameCheck(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    const all = await referenceRead(ctx, subject);
    for (const field of subject.typeFields) {
      const names = [...new Set(all.map((r) => r[field]).filter((v): v is string => typeof v === "string"))]
        .map(typeName)
        .filter((name) => name !== "" && !/['"\\]/.test(name))
        .sort();
      for (const name of names.slice(0, 3))
        await judgeFilter(ctx, subject, all, { field, value: name, limit: 100, byName: true });
    }
  });
}

async function judgeFilter(
  ctx: CheckContext,
  subject: ScanSubject,
  all: ScanRecordShape[],
  query: { field: string; value: string; limit: number; byName: boolean },
): Promise<void> {
  const { field, value, limit, byName } = query;
  const filter = `equals(${field},'${value}')`;
  const { result, records } = await readScroll(ctx, subject, { filter, limit }, all.length);
  noteScroll(ctx, subject, { filter, limit }, result);
  const got = new Set(records.map(subject.identity));
  const exact = all
    .filter((r) => fieldMatches(r, field, value, { ignoreCase: false, byName }))
    .map(subject.identity);
  const missing = exact.filter((id) => !got.has(id));
  // Each answered record is judged by its own field, so a record the reference read lost does not count
  // against the filter.
  const extra = records
    .filter((r) => !fieldMatches(r, field, value, { ignoreCase: true, byName }))
    .map(subject.identity);
  failFilterFinding(subject, result, {
    context: `${subject.name} filter=${filter}`,
    wanted: `exactly the ${exact.length} records whose ${field} is ${byName ? `of type ${value}` : value}`,
    field,
    missing,
    extra,
  });
}

/** The filter grammar of the kit: startsWith, not, and/or, exists/missing; an unknown operator is a 400 naming it. */
export function filterGrammarCheck(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    const all = await referenceRead(ctx, subject);
    const field =
      subject.filterFields.find((f) => !subject.typeFields.includes(f)) ?? subject.filterFields[0] ?? "";
    const sample = all
      .map((r) => r[field])
      .find((v): v is string => typeof v === "string" && /^[\w -]+$/.test(v));
    if (sample === undefined) return;
    const prefix = sample.slice(0, 1);
    const lower = (v: unknown) => (typeof v === "string" ? v.toLowerCase() : undefined);
    const cases: [string, (r: ScanRecordShape) => boolean][] = [
      [`startsWith(${field},'${prefix}')`, (r) => lower(r[field])?.startsWith(prefix.toLowerCase()) === true],
      [`not equals(${field},'${sample}')`, (r) => lower(r[field]) !== sample.toLowerCase()],
      [
        `equals(${field},'${sample}') or startsWith(${field},'${prefix}')`,
        (r) => lower(r[field])?.startsWith(prefix.toLowerCase()) === true,
      ],
      [`exists(${field}) and equals(${field},'${sample}')`, (r) => lower(r[field]) === sample.toLowerCase()],
      [`missing(${field})`, (r) => r[field] === undefined],
    ];
    for (const [filter, predicate] of cases) {
      const { result, records } = await readScroll(ctx, subject, { filter }, all.length);
      const expected = all.filter(predicate).map(subject.identity);
      failFinding(
        identityFinding(expected, records.map(subject.identity), { repeats: "ignore" }),
        `${subject.name} filter=${filter}`,
        result.pages[0]?.response.request,
      );
    }
    const response = await clientOf(ctx).scanFirst(await ctx.token(subject.role), subject.endpoint(ctx), {
      filter: `lckitUnknownOp(${field},'x')`,
    });
    if (response.status !== 400 || !response.text.includes("lckitUnknownOp"))
      fail(`expected 400 naming the unknown operator lckitUnknownOp, got ${describeResponse(response)}`);
  });
}
