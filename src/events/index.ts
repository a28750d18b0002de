// Public entry of the event checker: schemas, per-message and stream checks, sources. The fast-check
// arbitraries (./generate/arbitraries.ts) and the run-report mapping (./judge/run-result.ts) are imported
// directly, so that checking never loads fast-check or the report part.

export type { EventProblem, Severity } from "./check/event-problem.ts";
export { rule } from "./document/requirements.ts";
export type { CompiledEventSchemas, EventTypeInfo, ObjectKind, Validator } from "./event-schemas.ts";
export { compileEventSchemas, eventSchemas, eventSchemasDir } from "./event-schemas.ts";
export type {
  CheckOptions,
  FoundPayloadKind,
  InspectedMessage,
  MessageFacts,
} from "./judge/event-message.ts";
export { checkMessage, inspectMessage, ovChangedTypes } from "./judge/event-message.ts";
export type { CheckStreamOptions, EventCheckResult } from "./judge/event-stream.ts";
export { checkStream } from "./judge/event-stream.ts";
export { type ObjectPayloadKind, type PayloadKind, payloadKindsOf } from "./payload-kind.ts";
export type { ResolvedStreamingConfig, StreamingConfig } from "./streaming-config.ts";
export { loadStreamingConfig, parseStreamingConfig, resolveStreamingConfig } from "./streaming-config.ts";
export type { OpenSourceOptions } from "./transport/sources/index.ts";
export { linesAsMessages, memorySource, openSource, SourceError } from "./transport/sources/index.ts";
export type { MessageSink, MessageSource, RawMessage, TransportNotice } from "./transport/transport.ts";
