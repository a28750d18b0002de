// How the scans and the blocked-values listing present their records under the record-field variants:
// lean-records leaves out every field the contract makes optional, rich-records adds fields beyond the
// document's tables. The stored records stay whole, so filters and sorts work on them as always.
import { lookupTypeName } from "../contract/lookup-type.ts";
import { fixtureSchemas } from "../generated/fixture-schemas.ts";
import type { ReferenceContext } from "./context.ts";

export type RecordKind = "lookup" | "statistic" | "blocked-value";

/** Fields the consumer contract requires of each record (openapi/components/schemas.yaml): a lookup's two;
 *  a statistic's as the contract lists them, which its fixture schema keeps as they are (required:
 *  "as-contract" in fixture-schema.ts). */
const REQUIRED: Record<RecordKind, readonly string[] | undefined> = {
  lookup: ["type", "code"],
  statistic: (fixtureSchemas.statistics.items as { required: string[] }).required,
  // Every field of a blocked value is required: lean-records leaves them whole.
  "blocked-value": undefined,
};

function lean(kind: RecordKind, record: Record<string, unknown>): Record<string, unknown> {
  const required = REQUIRED[kind];
  if (required === undefined) return record;
  const out: Record<string, unknown> = {};
  for (const field of required) if (field in record) out[field] = record[field];
  return out;
}

/** Fields a deployment may add beyond the document's tables, derived from the record so they are stable. */
function extras(kind: RecordKind, record: Record<string, unknown>): Record<string, unknown> {
  const type = lookupTypeName(String(record.lookupType ?? record.type ?? ""));
  switch (kind) {
    case "lookup":
      return {
        uri: `${String(record.tenantId)}/${type}/${String(record.code)}`,
        createdBy: record.updatedBy ?? "rdm-loader",
        createdDate: record.updateDate ?? 0,
        labels: [],
      };
    case "statistic":
      return {
        id: `${type}:${String(record.source)}:${String(record.unmappedValue)}:${String(record.createdAt)}`,
        lookupTypeUri: `rdm/lookupTypes/${type}`,
        reviewed: false,
      };
    case "blocked-value":
      return { id: `${type}:${String(record.value)}`, reason: "blocked by a data steward" };
  }
}

/** The presenter of one kind of record under the switched-on variants, or undefined: served as stored. */
export function recordPresenter(
  ctx: Pick<ReferenceContext, "variants">,
  kind: RecordKind,
): ((record: object) => object) | undefined {
  const leanOn = ctx.variants.has("lean-records");
  const richOn = ctx.variants.has("rich-records");
  if (!leanOn && !richOn) return undefined;
  return (record) => {
    const stored = record as Record<string, unknown>;
    const kept = leanOn ? lean(kind, stored) : stored;
    // The extra fields come from the stored record, so both variants together still derive them whole.
    return richOn ? { ...kept, ...extras(kind, stored) } : kept;
  };
}
