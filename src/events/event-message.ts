// Checks one event message on its own: JSON, headers, payload against its type's schema, the streaming
// configuration (filtering fields, payload type, large objects) and header/payload agreement.

import { describeValue, type EventProblem } from "./event-problem.ts";
import { type EventTypeInfo, eventSchemas } from "./event-schemas.ts";
import { filteringProblems, pointer } from "./filtering-fields.ts";
import { rule } from "./rules.ts";
import { problemsFromErrors } from "./schema-errors.ts";
import {
  type ResolvedStreamingConfig,
  resolveStreamingConfig,
  type StreamingConfig,
} from "./streaming-config.ts";
import type { RawMessage } from "./transport.ts";

export interface CheckOptions {
  /** The streaming configuration the stream was produced with; absent: configuration-dependent rules are skipped. */
  config?: StreamingConfig;
}

/** How the payload is built: snapshot (object), deltas, large-object fallback, or a change request's name only. */
export type PayloadKind = "snapshot" | "deltas" | "large-object" | "name-only";

/** What the stream rules need from a message (no copy of the message is kept). */
export interface MessageFacts {
  type?: string;
  uri?: string;
  objectVersion?: number;
  kind?: PayloadKind;
  /** The message as it came, for contentTextOf (no copy is made: the stream rules hash it at once). */
  body?: string;
  envelope?: boolean;
  payload?: unknown;
}

export interface InspectedMessage {
  problems: EventProblem[];
  facts: MessageFacts;
}

/** Event types whose payload may carry ovChanged. */
export const ovChangedTypes: ReadonlySet<string> = new Set(["ENTITY_CHANGED", "RELATIONSHIP_CHANGED"]);

const resolvedConfigs = new WeakMap<StreamingConfig, ResolvedStreamingConfig>();

function resolved(config: StreamingConfig | undefined): ResolvedStreamingConfig | undefined {
  if (!config) return undefined;
  let result = resolvedConfigs.get(config);
  if (!result) {
    result = resolveStreamingConfig(config);
    resolvedConfigs.set(config, result);
  }
  return result;
}

function addProblem(
  problems: EventProblem[],
  position: string,
  instancePath: string,
  ruleId: string,
  keyword: string,
  message: string,
): void {
  problems.push({ position, instancePath, rule: ruleId, keyword, message, severity: "error" });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export function payloadKindOf(info: EventTypeInfo, payload: Record<string, unknown>): PayloadKind {
  if (info.objectKind === "change-request") return "name-only";
  if ("object" in payload) return "snapshot";
  if ("deltas" in payload) return "deltas";
  return "large-object";
}

export function inspectMessage(raw: RawMessage, options: CheckOptions = {}): InspectedMessage {
  const position = raw.position;
  const problems: EventProblem[] = [];
  const facts: MessageFacts = {};

  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.body);
  } catch (error) {
    addProblem(
      problems,
      position,
      "",
      rule.json,
      "json",
      `message is not valid JSON (${error instanceof Error ? error.message : String(error)}); each message must be one JSON document (one per line in NDJSON)`,
    );
    return { problems, facts };
  }
  if (!isRecord(parsed)) {
    addProblem(
      problems,
      position,
      "",
      rule.json,
      "type",
      `expected a JSON object (a payload with type, or {"headers": {...}, "payload": {...}}), got ${describeValue(parsed)}`,
    );
    return { problems, facts };
  }

  // An NDJSON line is either a bare payload (it has type) or the envelope {"headers", "payload"}.
  let headers: unknown = raw.headers;
  let payload: unknown = parsed;
  let envelope = false;
  if (!("type" in parsed) && "payload" in parsed) {
    envelope = true;
    for (const key of Object.keys(parsed)) {
      if (key !== "headers" && key !== "payload") {
        addProblem(
          problems,
          position,
          pointer(key),
          rule.json,
          "additionalProperties",
          `unexpected member "${key}" in a message envelope; an envelope line holds only "headers" and "payload"`,
        );
      }
    }
    if (headers === undefined) headers = parsed.headers;
    payload = parsed.payload;
  }

  const schemas = eventSchemas();
  const config = resolved(options.config);

  if (headers !== undefined) {
    if (!isRecord(headers)) {
      addProblem(
        problems,
        position,
        "/headers",
        rule.headers,
        "type",
        `headers must be an object, got ${describeValue(headers)}`,
      );
      headers = undefined;
    } else {
      const headerErrors = schemas.headers(headers);
      if (headerErrors) {
        problems.push(
          ...problemsFromErrors(headerErrors, {
            position,
            prefix: "/headers",
            annotations: schemas.annotations,
            fallbackRule: rule.headers,
          }),
        );
      }
      if (config?.objectVersionHeader === "required" && !("objectVersion" in headers)) {
        addProblem(
          problems,
          position,
          "/headers",
          rule.objectVersion,
          "required",
          "header objectVersion is missing although JMSEventsFilteringFields lists objectVersion",
        );
      } else if (config?.objectVersionHeader === "forbidden" && "objectVersion" in headers) {
        addProblem(
          problems,
          position,
          "/headers/objectVersion",
          rule.objectVersion,
          "not",
          "header objectVersion is present although JMSEventsFilteringFields does not list it; it is sent only when listed",
        );
      }
    }
  }
  const headerRecord = headers as Record<string, unknown> | undefined;

  if (!isRecord(payload)) {
    addProblem(
      problems,
      position,
      "/payload",
      rule.payloadKind,
      "type",
      `payload must be a JSON object (snapshot or deltas message), got ${describeValue(payload)}`,
    );
    return { problems, facts };
  }
  const type = payload.type;
  if (typeof type !== "string") {
    addProblem(
      problems,
      position,
      type === undefined ? "/payload" : "/payload/type",
      rule.knownType,
      type === undefined ? "required" : "type",
      `payload must carry type, the event type as a string; got ${describeValue(type)}`,
    );
    return { problems, facts };
  }
  facts.type = type;
  if (schemas.unsupportedTypes.includes(type)) {
    addProblem(
      problems,
      position,
      "/payload/type",
      rule.unsupportedType,
      "unsupported",
      `event type ${type} is unsupported by the document (unsupported: ${schemas.unsupportedTypes.join(", ")}); a conforming stream never carries it`,
    );
    return { problems, facts };
  }
  const info = schemas.types.get(type);
  if (!info) {
    addProblem(
      problems,
      position,
      "/payload/type",
      rule.knownType,
      "enum",
      `unknown event type "${type}": it is in neither the document's table of event types nor its list of unsupported types; expected one of ${[...schemas.types.keys()].join(", ")}`,
    );
    return { problems, facts };
  }
  if (info.unused) {
    problems.push({
      position,
      instancePath: "/payload/type",
      rule: rule.unusedType,
      keyword: "x-unused",
      message: `event type ${type} is defined but currently unused according to the document; a conforming stream should not carry it`,
      severity: "warning",
    });
  }
  // The kind is decided by presence (object, then deltas), so only that kind's schema is run: its
  // errors are the ones that matter, and no oneOf is tried.
  const kind = payloadKindOf(info, payload);
  facts.kind = kind;
  const validate = (kind === "name-only" ? undefined : info.byKind[kind]) ?? info.validate;
  const payloadErrors = validate(payload);
  if (payloadErrors) {
    problems.push(
      ...problemsFromErrors(payloadErrors, {
        position,
        prefix: "/payload",
        annotations: schemas.annotations,
        fallbackRule: rule.knownType,
      }),
    );
  }
  const object = payload.object;
  if (config) {
    if ((kind === "snapshot" || kind === "deltas") && kind !== config.payloadType) {
      addProblem(
        problems,
        position,
        "/payload",
        rule.payloadKind,
        "payloadType",
        `a ${kind} payload, but the streaming configuration sets payloadType ${config.payloadType}${options.config?.payloadType === undefined ? " (the default)" : ""}`,
      );
    }
    if (kind === "large-object" && config.largeObjectsSupport === false) {
      addProblem(
        problems,
        position,
        "/payload",
        rule.largeObjectConfig,
        "largeObjectsSupport",
        "a large-object fallback (no object, exceededQueueSizeLimit true), but the streaming configuration sets largeObjectsSupport false",
      );
    }
    if (
      config.analyzeOvChanges === true &&
      ovChangedTypes.has(type) &&
      (kind === "snapshot" || kind === "large-object") &&
      !("ovChanged" in payload)
    ) {
      addProblem(
        problems,
        position,
        "/payload",
        rule.ovChanged,
        "required",
        `${type} without ovChanged although the streaming configuration sets analyzeOvChanges true (ovChanged may be absent only when it is false)`,
      );
    }
    if (isRecord(object) && (kind === "snapshot" || kind === "name-only")) {
      problems.push(...filteringProblems(info.objectKind, type, object, config, position));
    }
  }

  const payloadUri =
    kind === "snapshot" || (kind === "name-only" && isRecord(object))
      ? isRecord(object)
        ? object.uri
        : undefined
      : payload.uri;
  if (headerRecord) {
    const eventType = headerRecord.eventType;
    if (typeof eventType === "string" && eventType !== type) {
      addProblem(
        problems,
        position,
        "/headers/eventType",
        rule.headerAgreement,
        "agreement",
        `header eventType is ${eventType} but the payload's type is ${type}; they must be equal`,
      );
    }
    const source = headerRecord.sourceObjectUri;
    if (typeof source === "string" && typeof payloadUri === "string" && source !== payloadUri) {
      addProblem(
        problems,
        position,
        "/headers/sourceObjectUri",
        rule.headerAgreement,
        "agreement",
        `header sourceObjectUri is ${source} but the payload is about ${payloadUri} (${kind === "snapshot" ? "object.uri" : "uri"}); they must be equal`,
      );
    }
  }
  if (type === "ENTITY_CHANGED" && kind === "deltas" && isRecord(payload.deltas)) {
    problems.push(...deltaContentProblems(payload.deltas, payload.uri, position));
  }

  const source = headerRecord?.sourceObjectUri;
  facts.uri = typeof source === "string" ? source : typeof payloadUri === "string" ? payloadUri : undefined;
  const version = headerRecord?.objectVersion;
  if (typeof version === "number" && Number.isInteger(version)) facts.objectVersion = version;
  facts.body = raw.body;
  facts.envelope = envelope;
  facts.payload = payload;
  return { problems, facts };
}

/**
 * The payload as text, for telling two messages apart: the body itself when it is the payload; for an
 * envelope line written by JSON.stringify ({"headers":{...},"payload":{...}}), the payload's slice of the
 * line; otherwise the payload serialized again (the slow path). Headers stay out: a redelivery may carry
 * other transport headers around the same payload.
 */
export function contentTextOf(facts: MessageFacts): string | undefined {
  const { body, envelope, payload } = facts;
  if (body === undefined) return undefined;
  if (!envelope) return body;
  const at = body.indexOf(',"payload":{');
  if (body.startsWith('{"headers":') && at > 0 && body.endsWith("}")) return body.slice(at + 11, -1);
  return JSON.stringify(payload);
}

function deltaContentProblems(
  deltas: Record<string, unknown>,
  uri: unknown,
  position: string,
): EventProblem[] {
  const problems: EventProblem[] = [];
  if (typeof deltas.objectUri === "string" && typeof uri === "string" && deltas.objectUri !== uri) {
    problems.push({
      position,
      instancePath: "/payload/deltas/objectUri",
      rule: rule.deltaMessage,
      keyword: "agreement",
      message: `deltas.objectUri is ${deltas.objectUri} but the payload's uri is ${uri}; both name the changed entity`,
      severity: "error",
    });
  }
  const collection = deltas.deltaCollection;
  const items = isRecord(collection) && Array.isArray(collection.delta) ? collection.delta : [];
  items.forEach((item, index) => {
    if (!isRecord(item) || item.type !== "ATTRIBUTE_CHANGED") return;
    if (item.oldValue !== undefined && JSON.stringify(item.oldValue) === JSON.stringify(item.newValue)) {
      problems.push({
        position,
        instancePath: `/payload/deltas/deltaCollection/delta/${index}`,
        rule: rule.deltaOnlyChanged,
        keyword: "changed",
        message: `ATTRIBUTE_CHANGED for ${String(item.attributeType)} has identical oldValue and newValue; only changed attributes are listed`,
        severity: "error",
      });
    }
  });
  return problems;
}

/** Every problem of one message on its own (no stream rules). `raw` may be the body text alone. */
export function checkMessage(raw: RawMessage | string, options: CheckOptions = {}): EventProblem[] {
  const message = typeof raw === "string" ? { position: "message", body: raw } : raw;
  return inspectMessage(message, options).problems;
}
