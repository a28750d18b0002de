// generated, do not edit: built by scripts/generators/event-types.ts from event-schemas/streaming-config.schema.json.
// Run `npm run generate` after changing the schemas.

/**
 * The streaming properties that shape event messages, as the checker reads them (JSON or YAML). Other properties of a tenant's streaming configuration are ignored. payloadType is matched case-insensitively; delta is read as deltas.
 */
export interface StreamingConfiguration {
/**
 * Fields of entity, group, interaction and change-request objects (and the objectVersion header) to send; absent: all available fields
 */
JMSEventsFilteringFields?: string[]
/**
 * Fields of relationship objects to send; absent: all available fields
 */
RelationEventsFilteringFields?: string[]
/**
 * snapshot (default) or deltas
 */
payloadType?: string
analyzeOvChanges?: boolean
largeObjectsSupport?: boolean
[k: string]: unknown
}
