// The streaming configuration properties that shape event messages, read from JSON or YAML and reduced
// to what the checks need. Without a configuration the checker skips every configuration-dependent rule.
import { readFile } from "node:fs/promises";
import { parse as parseYaml } from "yaml";
import type { StreamingConfiguration } from "../generated/events/streaming-config.ts";
import { eventSchemas } from "./event-schemas.ts";

/** The configuration as event-schemas/streaming-config.schema.json describes it (generated type). */
export type StreamingConfig = StreamingConfiguration;

/**
 * Allowed top-level fields of an object, plus for a dotted entry ("attributes.FirstName") whose
 * top-level field is not listed bare, the nested keys allowed under it.
 */
export interface FieldSelection {
  top: ReadonlySet<string>;
  nested: ReadonlyMap<string, ReadonlySet<string>>;
}

export interface ResolvedStreamingConfig {
  /** JMSEventsFilteringFields; undefined: all available fields. */
  entityFields?: FieldSelection;
  /** RelationEventsFilteringFields; undefined: all available fields. */
  relationFields?: FieldSelection;
  /** The document's default is snapshot. */
  payloadType: "snapshot" | "deltas";
  analyzeOvChanges?: boolean;
  largeObjectsSupport?: boolean;
  /** required when listed in JMSEventsFilteringFields, forbidden when the list leaves it out. */
  objectVersionHeader: "required" | "forbidden" | "either";
  /** referenceRelationTypes by type URI and by last segment: the end whose entity gets the companion. */
  referenceRelationTypes: ReadonlyMap<string, ReferenceEnd>;
  companionWindow: CompanionWindow;
}

/** Which end of a relationship holds the reference attribute (gets the ENTITY_CHANGED companion). */
export type ReferenceEnd = "start" | "end" | "either";

export interface CompanionWindow {
  /** Messages before or after a relationship event its companion may be. */
  messages: number;
  /** Milliseconds of event time before or after; 0: no time bound. */
  ms: number;
}

/** The documented defaults of companionWindow. */
export const defaultCompanionWindow: CompanionWindow = { messages: 1000, ms: 60_000 };

function referenceTypes(config: StreamingConfig): Map<string, ReferenceEnd> {
  const types = new Map<string, ReferenceEnd>();
  for (const item of config.referenceRelationTypes ?? []) {
    const { type, entity } = typeof item === "string" ? { type: item, entity: undefined } : item;
    types.set(type, entity ?? "either");
  }
  return types;
}

/** Fields every object may carry whatever the filtering lists say: they identify the object. */
export const alwaysTolerated: readonly string[] = ["uri", "type"];

function selection(fields: string[] | undefined): FieldSelection | undefined {
  if (fields === undefined) return undefined;
  const top = new Set<string>(alwaysTolerated);
  const nested = new Map<string, Set<string>>();
  const bare = new Set(fields.filter((field) => !field.includes(".")));
  for (const field of fields) {
    const dot = field.indexOf(".");
    if (dot < 0) {
      top.add(field);
      continue;
    }
    const head = field.slice(0, dot);
    top.add(head);
    if (bare.has(head)) continue;
    const keys = nested.get(head) ?? new Set<string>();
    keys.add(field.slice(dot + 1).split(".")[0] ?? "");
    nested.set(head, keys);
  }
  return { top, nested };
}

export function resolveStreamingConfig(config: StreamingConfig): ResolvedStreamingConfig {
  const jms = config.JMSEventsFilteringFields;
  return {
    entityFields: selection(jms?.filter((field) => field !== "objectVersion")),
    relationFields: selection(config.RelationEventsFilteringFields),
    payloadType: /^deltas?$/i.test(config.payloadType ?? "") ? "deltas" : "snapshot",
    analyzeOvChanges: config.analyzeOvChanges,
    largeObjectsSupport: config.largeObjectsSupport,
    objectVersionHeader:
      jms === undefined ? "either" : jms.includes("objectVersion") ? "required" : "forbidden",
    referenceRelationTypes: referenceTypes(config),
    companionWindow: {
      messages: config.companionWindow?.messages ?? defaultCompanionWindow.messages,
      ms:
        config.companionWindow?.seconds === undefined
          ? defaultCompanionWindow.ms
          : config.companionWindow.seconds * 1000,
    },
  };
}

/** Parses a streaming configuration (JSON or YAML) and validates it; throws a readable Error otherwise. */
export function parseStreamingConfig(text: string, name = "streaming configuration"): StreamingConfig {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (error) {
    throw new Error(
      `${name} is neither JSON nor YAML (${error instanceof Error ? error.message : String(error)}); ` +
        'give an object such as {"JMSEventsFilteringFields": ["uri", "attributes"]}',
    );
  }
  const errors = eventSchemas().streamingConfig(data);
  if (errors) {
    const details = errors
      .map((error) => `${error.instancePath || "/"} ${error.message ?? error.keyword}`)
      .join("; ");
    throw new Error(
      `${name} does not match event-schemas/streaming-config.schema.json: ${details}. Expected JMSEventsFilteringFields and RelationEventsFilteringFields as arrays of strings, payloadType snapshot or deltas, analyzeOvChanges and largeObjectsSupport as booleans, referenceRelationTypes as relation type names or {type, entity: start|end|either}, companionWindow as {messages, seconds}.`,
    );
  }
  return data as StreamingConfig;
}

export async function loadStreamingConfig(path: string): Promise<StreamingConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new Error(
      `cannot read the streaming configuration ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return parseStreamingConfig(text, path);
}
