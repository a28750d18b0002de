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
/**
 * The kit's key, not the tenant's: relation types that back reference attributes (tenant configuration the stream does not carry). Each is a type URI (configuration/relationTypes/HasAddress) or its last segment (HasAddress), or {type, entity} where entity (start, end or either, the default) names the end of the relationship whose entity holds the reference attribute and gets the ENTITY_CHANGED companion. Without this key, types are learned from refRelation in the attribute values of ENTITY_CHANGED events.
 */
referenceRelationTypes?: (string | {
type: string
entity?: ("start" | "end" | "either")
})[]
/**
 * The kit's key: how far from a relationship event of a reference relation type its ENTITY_CHANGED companion may be, before or after it (delivery may reorder). A companion within either bound counts. Defaults: 1000 messages, 60 seconds of event time (updatedTime of the objects, timestamp of delta messages); seconds 0 turns the time bound off.
 */
companionWindow?: {
messages?: number
seconds?: number
}
[k: string]: unknown
}
