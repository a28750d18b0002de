// The producer choices the document leaves open, one stream each: a correct consumer keeps a true view
// under every one of them. `lckit events consumer check --variants all` runs the consumer once per choice.

import type { PayloadType } from "../generate/index.ts";

export interface ProducerChoice {
  name: string;
  /** What the producer does differently, in the document's terms. */
  description: string;
  payloadType: Exclude<PayloadType, "mixed">;
  /** The objectVersion header: a number, a string of digits (as the cloud envelopes carry it), or absent
   *  (JMSEventsFilteringFields does not list it). */
  objectVersion: "number" | "string" | "absent";
  /** Legal deltas shapes: any (the generator's mix), or one of them for every message. */
  deltasShape: "any" | "message" | "collection" | "other";
  /** JMSEventsFilteringFields: every field (the property absent), or from the stream's middle on a list
   *  without attributes (the streaming configuration changed), so entity snapshots then carry none; or,
   *  with RelationEventsFilteringFields, a list without uri, so no snapshot's object names itself (the
   *  sourceObjectUri header does). */
  filteringFields: "all" | "attributes-left-out-halfway" | "uri-left-out";
  /** Large-object fallbacks carrying the object URI as the generator draws it, or only in the header. */
  fallbackUri: "any" | "header-only";
  reorderWindow: number;
  duplicates: number;
  largeObjects: number;
  /** Share of the destination's messages that are another tenant's (how destinations are configured is
   *  not shown: one queue may carry several tenants). */
  otherTenant: number;
}

const base: Omit<ProducerChoice, "name" | "description"> = {
  payloadType: "snapshot",
  objectVersion: "number",
  deltasShape: "any",
  filteringFields: "all",
  fallbackUri: "any",
  reorderWindow: 5,
  duplicates: 0.05,
  largeObjects: 0.05,
  otherTenant: 0,
};

const choice = (
  name: string,
  description: string,
  over: Partial<Omit<ProducerChoice, "name" | "description">> = {},
): ProducerChoice => ({ ...base, ...over, name, description });

/** Every producer choice, the default first. */
export const PRODUCER_CHOICES: readonly ProducerChoice[] = [
  choice(
    "snapshot",
    "payloadType snapshot, objectVersion a number, reordering within 5 places, 5 % re-sends",
  ),
  choice("deltas", "payloadType deltas, its member in every legal shape", { payloadType: "deltas" }),
  choice("deltas-message", "deltas as the delta message of the document's ENTITY_CHANGED table", {
    payloadType: "deltas",
    deltasShape: "message",
  }),
  choice("deltas-collection", "deltas as the bare collection {ovChanged, delta}", {
    payloadType: "deltas",
    deltasShape: "collection",
  }),
  choice("deltas-other", "deltas as another object (the document leaves the structure open)", {
    payloadType: "deltas",
    deltasShape: "other",
  }),
  choice("object-version-string", "objectVersion a string of digits, as Pub/Sub and SNS carry it", {
    objectVersion: "string",
  }),
  choice("object-version-absent", "no objectVersion header: JMSEventsFilteringFields does not list it", {
    objectVersion: "absent",
  }),
  choice(
    "attributes-filtered-out",
    "JMSEventsFilteringFields changed halfway to leave attributes out: entity snapshots of the second half carry none",
    { filteringFields: "attributes-left-out-halfway" },
  ),
  choice(
    "uri-filtered-out",
    "JMSEventsFilteringFields and RelationEventsFilteringFields list every field but uri: snapshot objects carry no uri, the sourceObjectUri header names the object",
    { filteringFields: "uri-left-out" },
  ),
  choice("fallback-uri-in-header", "large-object fallbacks whose URI is only in sourceObjectUri", {
    fallbackUri: "header-only",
    largeObjects: 0.15,
  }),
  choice("in-order", "every message once and in order", { reorderWindow: 0, duplicates: 0 }),
  choice("wide-reordering", "messages up to 25 places from their order", { reorderWindow: 25 }),
  choice("many-re-sends", "a quarter of the messages sent again", { duplicates: 0.25 }),
  choice(
    "shared-destination",
    "the destination also carries another tenant's messages (tenantId globex): one in nine is not the consumer's tenant's",
    { otherTenant: 0.125 },
  ),
  choice(
    "deltas-wide-reordering",
    "payloadType deltas, messages up to 25 places from their order: a later delta of an object often comes before an earlier one",
    { payloadType: "deltas", reorderWindow: 25 },
  ),
];

export const DEFAULT_CHOICE = PRODUCER_CHOICES[0] as ProducerChoice;

export function producerChoice(name: string): ProducerChoice | undefined {
  return PRODUCER_CHOICES.find((c) => c.name === name);
}
