// Checks one event message on its own: JSON, headers, payload against its type's schema, the streaming
// configuration (filtering fields, payload type, large objects) and header/payload agreement.

import { type EventTypeInfo, eventSchemas } from "../event-schemas.ts";
import type { PayloadKind } from "../payload-kind.ts";
import { rule } from "../rules.ts";
import {
  type ResolvedStreamingConfig,
  resolveStreamingConfig,
  type StreamingConfig,
} from "../streaming-config.ts";
import type { RawMessage } from "../transport/transport.ts";
import { canonicalJson } from "./canonical-json.ts";
import { addProblem, describeValue, type EventProblem, safeProblem } from "./event-problem.ts";
import { filteringProblems, kindFieldProblems, pointer } from "./filtering-fields.ts";
import { type MessageWalk, walkMessage } from "./payload-fingerprint.ts";
import { isRecord } from "./payload-shape.ts";
import { problemsFromErrors } from "./schema-errors.ts";

export interface CheckOptions {
  /** The streaming configuration the stream was produced with; absent: configuration-dependent rules are skipped. */
  config?: StreamingConfig;
  /**
   * Deepest nesting of objects and arrays inspected (default 512). A deeper message is reported for its
   * own line and not inspected further, so no input can exhaust the stack and the run goes on.
   */
  maxDepth?: number;
}

export const defaultMaxDepth = 512;

/** The payload kind found in a message, or none: a payload with none of object, deltas and
 *  exceededQueueSizeLimit (an error the checker reports). */
export type FoundPayloadKind = PayloadKind | "none";

/** What the stream rules need from a message (no copy of the message is kept). */
export interface MessageFacts {
  type?: string;
  uri?: string;
  objectVersion?: number;
  kind?: FoundPayloadKind;
  /** The parsed payload (the stream rules fingerprint it at once and keep nothing else). */
  payload?: unknown;
  /** The payload's fingerprint, when inspectMessage was asked for it (the stream rules then use it). */
  fingerprint?: number;
}

/** What the stream rules want from inspectMessage beside the problems. */
export interface InspectFor {
  /** Fingerprint the payload in the walk that checks nesting (when the message has an objectVersion). */
  fingerprint?: boolean;
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

/**
 * The payload kind, by presence: object makes a snapshot, else deltas a deltas message, else
 * exceededQueueSizeLimit a large-object fallback; a payload with none of the three is none of them.
 */
export function payloadKindOf(
  info: EventTypeInfo | undefined,
  payload: Record<string, unknown>,
): FoundPayloadKind {
  if (info?.objectKind === "change-request") return "name-only";
  if ("object" in payload) return "snapshot";
  if ("deltas" in payload) return "deltas";
  if ("exceededQueueSizeLimit" in payload) return "large-object";
  return "none";
}

/**
 * Whether the JSON text nests objects and arrays deeper than `limit`. Iterative; the depth can never
 * exceed the number of opening brackets, so most messages are settled by counting those. The checker
 * itself asks the walk of the parsed message (walkMessage), which is tested to agree with this reading
 * of the text: this is the form to use where only the text is at hand.
 */
export function nestingExceeds(text: string, limit: number): boolean {
  let opened = 0;
  for (let at = text.indexOf("{"); at !== -1 && opened <= limit; at = text.indexOf("{", at + 1)) opened += 1;
  for (let at = text.indexOf("["); at !== -1 && opened <= limit; at = text.indexOf("[", at + 1)) opened += 1;
  if (opened <= limit) return false;
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 92) index += 1;
      else if (code === 34) inString = false;
    } else if (code === 34) inString = true;
    else if (code === 123 || code === 91) {
      depth += 1;
      if (depth > limit) return true;
    } else if (code === 125 || code === 93) depth -= 1;
  }
  return false;
}

export function inspectMessage(
  raw: RawMessage,
  options: CheckOptions = {},
  wanted: InspectFor = {},
): InspectedMessage {
  const position = raw.position;
  const problems: EventProblem[] = [];
  const facts: MessageFacts = {};
  if (raw.tooLarge !== undefined) {
    const { bytes, limit } = raw.tooLarge;
    addProblem(problems, {
      position,
      instancePath: "",
      rule: rule.json,
      keyword: "maxLength",
      message: `message is ${bytes} bytes, more than the ${limit} bytes a line is read up to, so it was not inspected; raise --max-line-bytes if messages this large are intended`,
    });
    return { problems, facts };
  }
  if (raw.envelopeFault !== undefined) {
    const { envelope, field, expected, got } = raw.envelopeFault;
    addProblem(problems, {
      position,
      instancePath: field,
      rule: rule.json,
      keyword: "envelope",
      message: `${envelope} envelope: ${field === "" ? "the line" : field} must be ${expected}; got ${got}. The message in it was not checked (the pointer is into the line as the service wrote it)`,
    });
    return { problems, facts };
  }

  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.body);
  } catch (error) {
    addProblem(problems, {
      position,
      instancePath: "",
      rule: rule.json,
      keyword: "json",
      message: `message is not valid JSON (${error instanceof Error ? error.message : String(error)}); each message must be one JSON document (one per line in NDJSON)`,
    });
    return { problems, facts };
  }
  const maxDepth = options.maxDepth ?? defaultMaxDepth;
  // Before anything recurses into the message: its nesting, and whether a lookupError key may be in it.
  // When the stream rules want the payload's fingerprint (only a message with objectVersion needs one),
  // one walk of the parsed message answers all three; else the text answers the first two at a fraction
  // of a walk's cost (nestingExceeds agrees with the walk; a key spelled with a \u escape is looked for).
  const walk =
    wanted.fingerprint === true && carriesVersion(raw, parsed)
      ? walkMessage(parsed, maxDepth, true)
      : textWalk(raw.body, parsed, maxDepth);
  if (walk.tooDeep) {
    addProblem(problems, {
      position,
      instancePath: "",
      rule: rule.json,
      keyword: "maxDepth",
      message: `message nests objects and arrays more than ${maxDepth} levels deep, so it was not inspected further; event messages nest a few levels (raise --max-depth if such nesting is intended)`,
    });
    return { problems, facts };
  }
  if (!isRecord(parsed)) {
    addProblem(problems, {
      position,
      instancePath: "",
      rule: rule.json,
      keyword: "type",
      message: `expected a JSON object (a payload with type, or {"headers": {...}, "payload": {...}}), got ${describeValue(parsed)}`,
    });
    return { problems, facts };
  }

  // An NDJSON line is either a bare payload (it has type) or the envelope {"headers", "payload"}.
  let headers: unknown = raw.headers;
  let payload: unknown = parsed;
  if (!("type" in parsed) && "payload" in parsed) {
    for (const key of Object.keys(parsed)) {
      if (key !== "headers" && key !== "payload") {
        addProblem(problems, {
          position,
          instancePath: pointer(key),
          rule: rule.json,
          keyword: "additionalProperties",
          message: `unexpected member "${key}" in a message envelope; an envelope line holds only "headers" and "payload"`,
        });
      }
    }
    if (headers === undefined) headers = parsed.headers;
    payload = parsed.payload;
  }

  const schemas = eventSchemas();
  const config = resolved(options.config);

  if (headers !== undefined) {
    if (!isRecord(headers)) {
      addProblem(problems, {
        position,
        instancePath: "/headers",
        rule: rule.headers,
        keyword: "type",
        message: `headers must be an object, got ${describeValue(headers)}`,
      });
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
        addProblem(problems, {
          position,
          instancePath: "/headers",
          rule: rule.objectVersion,
          keyword: "required",
          message: "header objectVersion is missing although JMSEventsFilteringFields lists objectVersion",
        });
      } else if (config?.objectVersionHeader === "forbidden" && "objectVersion" in headers) {
        addProblem(problems, {
          position,
          instancePath: "/headers/objectVersion",
          rule: rule.objectVersion,
          keyword: "not",
          message:
            "header objectVersion is present although JMSEventsFilteringFields does not list it; it is sent only when listed",
        });
      }
    }
  }
  const headerRecord = headers as Record<string, unknown> | undefined;

  if (!isRecord(payload)) {
    addProblem(problems, {
      position,
      instancePath: "/payload",
      rule: rule.payloadKind,
      keyword: "type",
      message: `payload must be a JSON object (snapshot or deltas message), got ${describeValue(payload)}`,
    });
    return { problems, facts };
  }
  const type = payload.type;
  if (typeof type !== "string") {
    addProblem(problems, {
      position,
      instancePath: type === undefined ? "/payload" : "/payload/type",
      rule: rule.knownType,
      keyword: type === undefined ? "required" : "type",
      message: `payload must carry type, the event type as a string; got ${describeValue(type)}`,
    });
    return { problems, facts };
  }
  facts.type = type;
  const info = schemas.types.get(type);
  if (!info && schemas.unsupportedTypes.includes(type)) {
    addProblem(problems, {
      position,
      instancePath: "/payload/type",
      rule: rule.unsupportedType,
      keyword: "unsupported",
      message: `event type ${type} is unsupported by the document (unsupported: ${schemas.unsupportedTypes.join(", ")}); a conforming stream never carries it`,
    });
    return { problems, facts };
  }
  const kind = payloadKindOf(info, payload);
  facts.kind = kind;
  if (!info) {
    // The document lists the types it describes and the ones that are unsupported; vendors also send
    // others (merge-failure notifications, for instance). Such a message is not checked further.
    addProblem(problems, {
      position,
      instancePath: "/payload/type",
      rule: rule.unknownType,
      keyword: "x-known-type",
      message: `event type "${type}" is in neither the document's table of event types nor its list of unsupported types; its payload is not checked (expected one of ${[...schemas.types.keys()].join(", ")})`,
      severity: "warning",
    });
  } else {
    if (info.unused) {
      addProblem(problems, {
        position,
        instancePath: "/payload/type",
        rule: rule.unusedType,
        keyword: "x-unused",
        message: `event type ${type} is defined but currently unused according to the document; a conforming stream should not carry it`,
        severity: "warning",
      });
    }
    // The walk for nested lookupError runs only when the message has a key of that name.
    payloadProblems(
      problems,
      info,
      kind,
      payload,
      headerRecord,
      position,
      config,
      options.config,
      walk.lookupError,
    );
  }

  const object = payload.object;
  const payloadUri =
    kind === "snapshot" || (kind === "name-only" && isRecord(object))
      ? isRecord(object)
        ? object.uri
        : undefined
      : payload.uri;
  if (headerRecord) {
    const eventType = headerRecord.eventType;
    if (typeof eventType === "string" && eventType !== type) {
      addProblem(problems, {
        position,
        instancePath: "/headers/eventType",
        rule: rule.headerAgreement,
        keyword: "agreement",
        message: `header eventType is ${eventType} but the payload's type is ${type}; they must be equal`,
      });
    }
    const source = headerRecord.sourceObjectUri;
    if (typeof source === "string" && typeof payloadUri === "string" && source !== payloadUri) {
      addProblem(problems, {
        position,
        instancePath: "/headers/sourceObjectUri",
        rule: rule.headerAgreement,
        keyword: "agreement",
        message: `header sourceObjectUri is ${source} but the payload is about ${payloadUri} (${kind === "snapshot" ? "object.uri" : "uri"}); they must be equal`,
      });
    }
  }

  const source = headerRecord?.sourceObjectUri;
  facts.uri = typeof source === "string" ? source : typeof payloadUri === "string" ? payloadUri : undefined;
  const version = headerRecord?.objectVersion;
  if (typeof version === "number" && Number.isInteger(version)) facts.objectVersion = version;
  facts.payload = payload;
  if (walk.fingerprint !== undefined) facts.fingerprint = walk.fingerprint;
  return { problems, facts };
}

/** What walkMessage answers without a fingerprint, read from the text: nesting by counting brackets,
 *  lookupError by a search (any \u escape counts, as it may spell the key). Text deeper than the limit is
 *  confirmed on the parsed message: a repeated key's earlier value is in the text, not in the message. */
function textWalk(text: string, parsed: unknown, maxDepth: number): MessageWalk {
  if (nestingExceeds(text, maxDepth) && walkMessage(parsed, maxDepth, false).tooDeep)
    return { tooDeep: true, lookupError: false };
  // "kupE" is looked for first: its rarer first letter makes most searches a quick scan.
  const named = text.includes("kupE") && text.includes("lookupError");
  return { tooDeep: false, lookupError: named || text.includes("\\u") };
}

/** Whether the message carries an objectVersion header (transport headers, else an envelope's). */
function carriesVersion(raw: RawMessage, parsed: unknown): boolean {
  const headers = raw.headers ?? (isRecord(parsed) && !("type" in parsed) ? parsed.headers : undefined);
  return isRecord(headers) && typeof headers.objectVersion === "number";
}

/** Adds the problems of a payload of a type of the document's table: its kind, its schema, the configuration. */
function payloadProblems(
  problems: EventProblem[],
  info: EventTypeInfo,
  kind: FoundPayloadKind,
  payload: Record<string, unknown>,
  headers: Record<string, unknown> | undefined,
  position: string,
  config: ResolvedStreamingConfig | undefined,
  given: StreamingConfig | undefined,
  lookupErrors: boolean,
): void {
  const type = info.type;
  const schemas = eventSchemas();
  if (kind === "none") {
    addProblem(problems, {
      position,
      instancePath: "/payload",
      rule: rule.payloadKind,
      keyword: "payloadKind",
      message: `a ${type} payload is a snapshot (with object), a deltas message (with uri and deltas) or a large-object fallback (without object, with exceededQueueSizeLimit true); this one has none of object, deltas and exceededQueueSizeLimit (got fields ${Object.keys(payload).join(", ")}): add the one it is meant to be`,
    });
    return;
  }
  // The kind is decided by presence, so only that kind's schema is run: its errors are the ones that
  // matter, and no oneOf is tried.
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
  if (kind === "snapshot" && payload.exceededQueueSizeLimit === true) {
    addProblem(problems, {
      position,
      instancePath: "/payload/exceededQueueSizeLimit",
      rule: rule.largeObject,
      keyword: "largeObject",
      message:
        "exceededQueueSizeLimit true marks the large-object fallback, which is sent without object; this payload carries both: send the snapshot without exceededQueueSizeLimit, or the fallback without object",
    });
  }
  if (kind === "large-object" && payload.uri === undefined) {
    // The document says the fallback carries the object URI, not in which field: the sourceObjectUri
    // header carries it as well as a uri field would.
    const source = headers?.sourceObjectUri;
    if (typeof source !== "string" || source === "") {
      addProblem(problems, {
        position,
        instancePath: "/payload",
        rule: rule.largeObject,
        keyword: "required",
        message:
          "a large-object fallback carries the object URI, in uri or in the sourceObjectUri header; this one has neither: add uri",
      });
    }
  }
  const object = payload.object;
  if (config) {
    if ((kind === "snapshot" || kind === "deltas") && kind !== config.payloadType) {
      addProblem(problems, {
        position,
        instancePath: "/payload",
        rule: rule.payloadKind,
        keyword: "payloadType",
        message: `a ${kind} payload, but the streaming configuration sets payloadType ${config.payloadType}${given?.payloadType === undefined ? " (the default)" : ""}`,
      });
    }
    if (kind === "large-object" && config.largeObjectsSupport === false) {
      addProblem(problems, {
        position,
        instancePath: "/payload",
        rule: rule.largeObjectConfig,
        keyword: "largeObjectsSupport",
        message:
          "a large-object fallback (no object, exceededQueueSizeLimit true), but the streaming configuration sets largeObjectsSupport false",
      });
    }
    if (
      config.analyzeOvChanges === true &&
      ovChangedTypes.has(type) &&
      (kind === "snapshot" || kind === "large-object") &&
      !("ovChanged" in payload)
    ) {
      addProblem(problems, {
        position,
        instancePath: "/payload",
        rule: rule.ovChanged,
        keyword: "required",
        message: `${type} without ovChanged although the streaming configuration sets analyzeOvChanges true (ovChanged may be absent only when it is false)`,
      });
    }
    if (isRecord(object) && (kind === "snapshot" || kind === "name-only")) {
      problems.push(...filteringProblems(info.objectKind, type, object, config, position));
    }
  }
  if (kind === "snapshot" && isRecord(object)) {
    const misplaced = kindFieldProblems(info.objectKind, type, object, position, config);
    if (misplaced) problems.push(...misplaced);
  }
  if (lookupErrors && isRecord(object)) problems.push(...nestedLookupErrors(object, position, problems));
  if (type === "ENTITY_CHANGED" && kind === "deltas" && isRecord(payload.deltas)) {
    problems.push(...deltaContentProblems(payload.deltas, payload.uri, position));
  }
}

const lookupErrorMessage =
  'lookupError must be a string starting with a numeric error code (1003 when the canonical value mapping is missing), e.g. "1003: canonical value not found"';

/**
 * lookupError wherever attribute values sit: nested and reference attributes carry values inside values,
 * relationship objects inside the object. Walks the object iteratively (its depth is bounded already);
 * a place the schema reported already is not reported twice.
 */
function nestedLookupErrors(
  object: Record<string, unknown>,
  position: string,
  known: readonly EventProblem[],
): EventProblem[] {
  const problems: EventProblem[] = [];
  const reported = new Set(known.filter((p) => p.rule === rule.lookupError).map((p) => p.instancePath));
  const stack: [unknown, string][] = [[object, "/payload/object"]];
  while (stack.length > 0) {
    const [node, path] = stack.pop() as [unknown, string];
    if (Array.isArray(node)) {
      for (let index = node.length - 1; index >= 0; index -= 1) {
        const item = node[index];
        if (item !== null && typeof item === "object") stack.push([item, `${path}/${index}`]);
      }
      continue;
    }
    if (!isRecord(node)) continue;
    for (const [key, value] of Object.entries(node)) {
      // Paths are built only where they are used: for a lookupError and for a nested object or array.
      if (key === "lookupError") {
        const at = `${path}${pointer(key)}`;
        const valid = typeof value === "string" && /^[0-9]+/.test(value);
        if (!valid && !reported.has(at)) {
          problems.push({
            position,
            instancePath: at,
            rule: rule.lookupError,
            keyword: typeof value === "string" ? "pattern" : "type",
            message: `${lookupErrorMessage}; got ${describeValue(value)}`,
            severity: "error",
          });
        }
      } else if (value !== null && typeof value === "object") stack.push([value, `${path}${pointer(key)}`]);
    }
  }
  return problems;
}

/** The delta items of a deltas member in either shape seen: a delta message or a bare delta collection. */
function deltaItemsOf(deltas: Record<string, unknown>): { items: unknown[]; path: string } {
  const collection = deltas.deltaCollection;
  if (isRecord(collection) && Array.isArray(collection.delta)) {
    return { items: collection.delta, path: "/payload/deltas/deltaCollection/delta" };
  }
  if (Array.isArray(deltas.delta)) return { items: deltas.delta, path: "/payload/deltas/delta" };
  return { items: [], path: "" };
}

/** Required fields of the delta message a deltas member lacks before it counts as another shape. */
const shapeMismatch = 3;

function deltaContentProblems(
  deltas: Record<string, unknown>,
  uri: unknown,
  position: string,
): EventProblem[] {
  const problems: EventProblem[] = [];
  const schemas = eventSchemas();
  // The document shows the delta message's shape but leaves the structure of deltas open: the kit's
  // preferred shapes are SHOULD-level, reported as warnings.
  const collectionShape = "delta" in deltas && !("deltaCollection" in deltas);
  const preferred = collectionShape ? schemas.preferredDeltas.collection : schemas.preferredDeltas.message;
  const errors = preferred(deltas);
  const missingAtTop = (errors ?? []).filter((e) => e.keyword === "required" && e.instancePath === "");
  if (errors && !collectionShape && missingAtTop.length >= shapeMismatch) {
    addProblem(problems, {
      position,
      instancePath: "/payload/deltas",
      rule: rule.deltaMessage,
      keyword: "x-preferred-shape",
      message: `deltas is neither the document's ENTITY_CHANGED delta message (id, user, method, url, clientType, timestamp, objectUri, objectType, objectLabel, data, deltaCollection, eventId, itemsTotal) nor a delta collection {ovChanged, delta}; got fields ${Object.keys(deltas).join(", ") || "none"}. The document does not show the structure of deltas, so this is a warning only`,
      severity: "warning",
    });
  } else if (errors) {
    problems.push(
      ...problemsFromErrors(errors, {
        position,
        prefix: "/payload/deltas",
        annotations: schemas.annotations,
        fallbackRule: rule.deltaMessage,
        severity: "warning",
      }),
    );
  }
  if (typeof deltas.objectUri === "string" && typeof uri === "string" && deltas.objectUri !== uri) {
    addProblem(problems, {
      position,
      instancePath: "/payload/deltas/objectUri",
      rule: rule.deltaMessage,
      keyword: "agreement",
      message: `deltas.objectUri is ${deltas.objectUri} but the payload's uri is ${uri}; both should name the changed entity`,
      severity: "warning",
    });
  }
  const { items, path } = deltaItemsOf(deltas);
  items.forEach((item, index) => {
    if (!isRecord(item) || item.type !== "ATTRIBUTE_CHANGED") return;
    if (item.oldValue === undefined || item.newValue === undefined) return;
    if (canonicalJson(item.oldValue) === canonicalJson(item.newValue)) {
      addProblem(problems, {
        position,
        instancePath: `${path}/${index}`,
        rule: rule.deltaOnlyChanged,
        keyword: "changed",
        message: `ATTRIBUTE_CHANGED for ${String(item.attributeType)} has identical oldValue and newValue; only changed attributes are listed`,
      });
    }
  });
  return problems;
}

/** Every problem of one message on its own (no stream rules). `raw` may be the body text alone. */
export function checkMessage(raw: RawMessage | string, options: CheckOptions = {}): EventProblem[] {
  const message = typeof raw === "string" ? { position: "message", body: raw } : raw;
  return inspectMessage(message, options).problems.map(safeProblem);
}
