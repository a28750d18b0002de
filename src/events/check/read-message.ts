// Reading one event message before any rule judges it: its size, its envelope, JSON, its nesting, and the
// split into headers and payload. What makes a message unreadable is a finding of the delivery rule
// (EVENT-DELIVERY-01: a message is one JSON document) and ends its inspection; a read message is what the
// message rules (src/events/rules/) judge, one after the other.

import { defaultMaxDepth } from "../document/nesting-limit.ts";
import { rule } from "../document/requirements.ts";
import { type EventTypeInfo, eventSchemas } from "../event-schemas.ts";
import type { PayloadKind } from "../payload-kind.ts";
import {
  type ResolvedStreamingConfig,
  resolveStreamingConfig,
  type StreamingConfig,
} from "../streaming-config.ts";
import type { RawMessage } from "../transport/transport.ts";
import { describeValue, type RequirementProblem } from "./event-problem.ts";
import { pointer } from "./filtering-fields.ts";
import { type MessageWalk, walkMessage } from "./payload-fingerprint.ts";
import { isRecord } from "./payload-shape.ts";

export { ovChangedTypes } from "../document/payload-fields.ts";
export { defaultMaxDepth };

export interface CheckOptions {
  /** The streaming configuration the stream was produced with; absent: configuration-dependent rules are skipped. */
  config?: StreamingConfig;
  /**
   * Deepest nesting of objects and arrays inspected (default 512). A deeper message is reported for its
   * own line and not inspected further, so no input can exhaust the stack and the run goes on.
   */
  maxDepth?: number;
}

/** The payload kind found in a message, or none: a payload with none of object, deltas and
 *  exceededQueueSizeLimit (an error the checker reports). */
export type FoundPayloadKind = PayloadKind | "none";

/** A payload the payload rules can judge: an object whose type is a string the document does not mark
 *  unsupported. */
export interface TypedPayload {
  payload: Record<string, unknown>;
  type: string;
  /** The type's entry in the document's table; undefined for a type the document does not list. */
  info: EventTypeInfo | undefined;
  kind: FoundPayloadKind;
}

/** A message as the message rules see it once read: nothing in it has been judged yet. */
export interface MessageUnderCheck {
  position: string;
  /** The headers as given (transport headers, else the envelope's), whatever their type. */
  headers: unknown;
  /** The headers when they are an object. */
  headerRecord: Record<string, unknown> | undefined;
  payload: unknown;
  /** The payload when the payload rules can judge it (see TypedPayload). */
  typed: TypedPayload | undefined;
  /** The streaming configuration, resolved; absent: the configuration-dependent rules say nothing. */
  config: ResolvedStreamingConfig | undefined;
  /** The streaming configuration as given (to say which values are defaults). */
  given: StreamingConfig | undefined;
  /** What the walk of the message found (nesting, a lookupError key, the payload's fingerprint). */
  walk: MessageWalk;
}

/** What the stream rules want from inspectMessage beside the problems. */
export interface InspectFor {
  /** Fingerprint the payload in the walk that checks nesting (when the message has an objectVersion). */
  fingerprint?: boolean;
}

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

/**
 * Reads a message for the message rules. A message that cannot be read (too large, a faulty envelope, not
 * JSON, nested too deep, not an object) gets its problem and no reading; an envelope's unexpected members
 * are reported and the message is read on.
 */
export function readMessage(
  raw: RawMessage,
  problems: RequirementProblem[],
  options: CheckOptions,
  wanted: InspectFor,
): MessageUnderCheck | undefined {
  const position = raw.position;
  if (raw.tooLarge !== undefined) {
    const { bytes, limit } = raw.tooLarge;
    problems.push({
      position,
      instancePath: "",
      requirement: rule.json,
      keyword: "maxLength",
      message: `message is ${bytes} bytes, more than the ${limit} bytes a line is read up to, so it was not inspected; raise --max-line-bytes if messages this large are intended`,
    });
    return undefined;
  }
  if (raw.envelopeFault !== undefined) {
    const { envelope, field, expected, got } = raw.envelopeFault;
    problems.push({
      position,
      instancePath: field,
      requirement: rule.json,
      keyword: "envelope",
      message: `${envelope} envelope: ${field === "" ? "the line" : field} must be ${expected}; got ${got}. The message in it was not checked (the pointer is into the line as the service wrote it)`,
    });
    return undefined;
  }

  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.body);
  } catch (error) {
    problems.push({
      position,
      instancePath: "",
      requirement: rule.json,
      keyword: "json",
      message: `message is not valid JSON (${error instanceof Error ? error.message : String(error)}); each message must be one JSON document (one per line in NDJSON)`,
    });
    return undefined;
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
    problems.push({
      position,
      instancePath: "",
      requirement: rule.json,
      keyword: "maxDepth",
      message: `message nests objects and arrays more than ${maxDepth} levels deep, so it was not inspected further; event messages nest a few levels (raise --max-depth if such nesting is intended)`,
    });
    return undefined;
  }
  if (!isRecord(parsed)) {
    problems.push({
      position,
      instancePath: "",
      requirement: rule.json,
      keyword: "type",
      message: `expected a JSON object (a payload with type, or {"headers": {...}, "payload": {...}}), got ${describeValue(parsed)}`,
    });
    return undefined;
  }

  // An NDJSON line is either a bare payload (it has type) or the envelope {"headers", "payload"}.
  let headers: unknown = raw.headers;
  let payload: unknown = parsed;
  if (!("type" in parsed) && "payload" in parsed) {
    for (const key of Object.keys(parsed)) {
      if (key !== "headers" && key !== "payload") {
        problems.push({
          position,
          instancePath: pointer(key),
          requirement: rule.json,
          keyword: "additionalProperties",
          message: `unexpected member "${key}" in a message envelope; an envelope line holds only "headers" and "payload"`,
        });
      }
    }
    if (headers === undefined) headers = parsed.headers;
    payload = parsed.payload;
  }
  return {
    position,
    headers,
    headerRecord: isRecord(headers) ? headers : undefined,
    payload,
    typed: typedPayload(payload),
    config: resolved(options.config),
    given: options.config,
    walk,
  };
}

/** The payload as the payload rules judge it, when it is an object of a string type not unsupported. */
function typedPayload(payload: unknown): TypedPayload | undefined {
  if (!isRecord(payload)) return undefined;
  const type = payload.type;
  if (typeof type !== "string") return undefined;
  const schemas = eventSchemas();
  const info = schemas.types.get(type);
  if (!info && schemas.unsupportedTypes.includes(type)) return undefined;
  return { payload, type, info, kind: payloadKindOf(info, payload) };
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
