// Public entry of the event checker: schemas, per-message and stream checks, sources. The fast-check
// arbitraries (./arbitraries.ts) and the run-report mapping (./run-result.ts) are imported directly, so
// that checking never loads fast-check or the report part.
export type { CheckOptions, InspectedMessage, MessageFacts, PayloadKind } from "./event-message.ts";
export { checkMessage, inspectMessage, ovChangedTypes } from "./event-message.ts";
export type { EventProblem, Severity } from "./event-problem.ts";
export type { CompiledEventSchemas, EventTypeInfo, ObjectKind, Validator } from "./event-schemas.ts";
export { compileEventSchemas, eventSchemas, eventSchemasDir } from "./event-schemas.ts";
export type { CheckStreamOptions, EventCheckResult } from "./event-stream.ts";
export { checkStream } from "./event-stream.ts";
export { rule } from "./rules.ts";
export type { OpenSourceOptions } from "./sources/index.ts";
export { linesAsMessages, memorySource, openSource, SourceError } from "./sources/index.ts";
export type { ResolvedStreamingConfig, StreamingConfig } from "./streaming-config.ts";
export { loadStreamingConfig, parseStreamingConfig, resolveStreamingConfig } from "./streaming-config.ts";
export type { MessageSink, MessageSource, RawMessage, TransportNotice } from "./transport.ts";
