// generated, do not edit: built by scripts/generators/event-types.ts from event-schemas/message.schema.json.
// Run `npm run generate` after changing the schemas.

/**
 * Union of every event type of the document, discriminated by type. Each member accepts the snapshot, deltas and large-object fallback forms. The unsupported types (x-unsupported-types) never appear; GROUP_* are defined but currently unused (x-unused).
 */
export type EventMessagePayload = (ENTITY_CREATEDEventPayload | ENTITY_REMOVEDEventPayload | ENTITY_REMOVED_GDPREventPayload | ENTITY_LOST_MERGEEventPayload | ENTITY_CHANGEDEventPayload | RELATIONSHIP_CREATEDEventPayload | RELATIONSHIP_REMOVEDEventPayload | RELATIONSHIP_REMOVED_GDPREventPayload | RELATIONSHIP_CHANGEDEventPayload | GROUP_CREATEDEventPayload | GROUP_REMOVEDEventPayload | GROUP_CHANGEDEventPayload | INTERACTION_CREATEDEventPayload | INTERACTION_REMOVEDEventPayload | INTERACTION_CHANGEDEventPayload | ENTITIES_SPLITTEDEventPayload | ENTITIES_MATCHES_CHANGEDEventPayload | RELATION_LOST_MERGEEventPayload | RELATIONSHIP_MERGEDEventPayload | ENTITY_BUSINESS_PROCESS_CHANGEDEventPayload | CHANGE_REQUEST_CREATEDEventPayload | CHANGE_REQUEST_CHANGEDEventPayload | CHANGE_REQUEST_REMOVEDEventPayload)
/**
 * Entity created; no additional fields. One of three payload kinds: snapshot (object), deltas (uri and deltas), large-object fallback (uri, exceededQueueSizeLimit true, no object); the checker picks the kind by the presence of object, then deltas.
 */
export type ENTITY_CREATEDEventPayload = (ENTITY_CREATEDSnapshot | ENTITY_CREATEDDeltas | ENTITY_CREATEDLargeObjectFallback)
export type ENTITY_CREATEDSnapshot = (SnapshotPayloadEnvelope & {
type?: "ENTITY_CREATED"
object?: EntityObjectOfAnEvent
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
/**
 * Entity, category or potential-match content selected by JMSEventsFilteringFields: the common fields plus the entity, category and potential-match extras.
 */
export type EntityObjectOfAnEvent = (FieldsCommonToEntityAndRelationshipObjects & {
roles?: string[]
ctSubscribedUris?: string[]
defaultProfilePic?: string
label?: string
secondaryLabel?: string
/**
 * Categories only
 */
analyticsAttributes?: {
[k: string]: unknown
}
/**
 * Potential matches only
 */
potentialMatchTOs?: unknown[]
/**
 * Potential matches only; shape not shown
 */
matchRules?: {
[k: string]: unknown
}
/**
 * Potential matches only
 */
matchScore?: number
/**
 * Potential matches only
 */
relevance?: number
[k: string]: unknown
})
export type ENTITY_CREATEDDeltas = (DeltasPayloadEnvelope & {
type?: "ENTITY_CREATED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type ENTITY_CREATEDLargeObjectFallback = (LargeObjectFallbackPayload & {
type?: "ENTITY_CREATED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
/**
 * Entity removed by a delete request; no additional fields. One of three payload kinds: snapshot (object), deltas (uri and deltas), large-object fallback (uri, exceededQueueSizeLimit true, no object); the checker picks the kind by the presence of object, then deltas.
 */
export type ENTITY_REMOVEDEventPayload = (ENTITY_REMOVEDSnapshot | ENTITY_REMOVEDDeltas | ENTITY_REMOVEDLargeObjectFallback)
export type ENTITY_REMOVEDSnapshot = (SnapshotPayloadEnvelope & {
type?: "ENTITY_REMOVED"
object?: EntityObjectOfAnEvent
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type ENTITY_REMOVEDDeltas = (DeltasPayloadEnvelope & {
type?: "ENTITY_REMOVED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type ENTITY_REMOVEDLargeObjectFallback = (LargeObjectFallbackPayload & {
type?: "ENTITY_REMOVED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
/**
 * Entity removed by a GDPR request; afterwards only ENTITY_CREATED and ENTITY_REMOVED_GDPR remain for that entity; no additional fields. One of three payload kinds: snapshot (object), deltas (uri and deltas), large-object fallback (uri, exceededQueueSizeLimit true, no object); the checker picks the kind by the presence of object, then deltas.
 */
export type ENTITY_REMOVED_GDPREventPayload = (ENTITY_REMOVED_GDPRSnapshot | ENTITY_REMOVED_GDPRDeltas | ENTITY_REMOVED_GDPRLargeObjectFallback)
export type ENTITY_REMOVED_GDPRSnapshot = (SnapshotPayloadEnvelope & {
type?: "ENTITY_REMOVED_GDPR"
object?: EntityObjectOfAnEvent
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type ENTITY_REMOVED_GDPRDeltas = (DeltasPayloadEnvelope & {
type?: "ENTITY_REMOVED_GDPR"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type ENTITY_REMOVED_GDPRLargeObjectFallback = (LargeObjectFallbackPayload & {
type?: "ENTITY_REMOVED_GDPR"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
/**
 * Entity merged into another entity; no additional fields. One of three payload kinds: snapshot (object), deltas (uri and deltas), large-object fallback (uri, exceededQueueSizeLimit true, no object); the checker picks the kind by the presence of object, then deltas.
 */
export type ENTITY_LOST_MERGEEventPayload = (ENTITY_LOST_MERGESnapshot | ENTITY_LOST_MERGEDeltas | ENTITY_LOST_MERGELargeObjectFallback)
export type ENTITY_LOST_MERGESnapshot = (SnapshotPayloadEnvelope & {
type?: "ENTITY_LOST_MERGE"
object?: EntityObjectOfAnEvent
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type ENTITY_LOST_MERGEDeltas = (DeltasPayloadEnvelope & {
type?: "ENTITY_LOST_MERGE"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type ENTITY_LOST_MERGELargeObjectFallback = (LargeObjectFallbackPayload & {
type?: "ENTITY_LOST_MERGE"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
/**
 * Entity changed; no additional fields. One of three payload kinds: snapshot (object), deltas (uri and deltas), large-object fallback (uri, exceededQueueSizeLimit true, no object); the checker picks the kind by the presence of object, then deltas.
 */
export type ENTITY_CHANGEDEventPayload = (ENTITY_CHANGEDSnapshot | ENTITY_CHANGEDDeltas | ENTITY_CHANGEDLargeObjectFallback)
export type ENTITY_CHANGEDSnapshot = (SnapshotPayloadEnvelope & {
type?: "ENTITY_CHANGED"
object?: EntityObjectOfAnEvent
[k: string]: unknown
})
export type ENTITY_CHANGEDDeltas = (DeltasPayloadEnvelope & {
type?: "ENTITY_CHANGED"
[k: string]: unknown
})
export type ENTITY_CHANGEDLargeObjectFallback = (LargeObjectFallbackPayload & {
type?: "ENTITY_CHANGED"
[k: string]: unknown
})
/**
 * Relationship created between the entity and another; for a reference attribute an ENTITY_CHANGED event also appears. One of three payload kinds: snapshot (object), deltas (uri and deltas), large-object fallback (uri, exceededQueueSizeLimit true, no object); the checker picks the kind by the presence of object, then deltas.
 */
export type RELATIONSHIP_CREATEDEventPayload = (RELATIONSHIP_CREATEDSnapshot | RELATIONSHIP_CREATEDDeltas | RELATIONSHIP_CREATEDLargeObjectFallback)
export type RELATIONSHIP_CREATEDSnapshot = (SnapshotPayloadEnvelope & {
type?: "RELATIONSHIP_CREATED"
object?: RelationshipObjectOfAnEvent
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
/**
 * Relationship content selected by RelationEventsFilteringFields: the common fields plus the start/end reference fields.
 */
export type RelationshipObjectOfAnEvent = (FieldsCommonToEntityAndRelationshipObjects & {
startRefPinned?: boolean
startRefIgnored?: boolean
endRefPinned?: boolean
endRefIgnored?: boolean
/**
 * Start entity reference; shape not shown
 */
startObject?: {
[k: string]: unknown
}
/**
 * End entity reference; shape not shown
 */
endObject?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type RELATIONSHIP_CREATEDDeltas = (DeltasPayloadEnvelope & {
type?: "RELATIONSHIP_CREATED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type RELATIONSHIP_CREATEDLargeObjectFallback = (LargeObjectFallbackPayload & {
type?: "RELATIONSHIP_CREATED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
/**
 * Relationship removed; same ENTITY_CHANGED companion for reference attributes. One of three payload kinds: snapshot (object), deltas (uri and deltas), large-object fallback (uri, exceededQueueSizeLimit true, no object); the checker picks the kind by the presence of object, then deltas.
 */
export type RELATIONSHIP_REMOVEDEventPayload = (RELATIONSHIP_REMOVEDSnapshot | RELATIONSHIP_REMOVEDDeltas | RELATIONSHIP_REMOVEDLargeObjectFallback)
export type RELATIONSHIP_REMOVEDSnapshot = (SnapshotPayloadEnvelope & {
type?: "RELATIONSHIP_REMOVED"
object?: RelationshipObjectOfAnEvent
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type RELATIONSHIP_REMOVEDDeltas = (DeltasPayloadEnvelope & {
type?: "RELATIONSHIP_REMOVED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type RELATIONSHIP_REMOVEDLargeObjectFallback = (LargeObjectFallbackPayload & {
type?: "RELATIONSHIP_REMOVED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
/**
 * Relationship removed by a GDPR request; same companion. One of three payload kinds: snapshot (object), deltas (uri and deltas), large-object fallback (uri, exceededQueueSizeLimit true, no object); the checker picks the kind by the presence of object, then deltas.
 */
export type RELATIONSHIP_REMOVED_GDPREventPayload = (RELATIONSHIP_REMOVED_GDPRSnapshot | RELATIONSHIP_REMOVED_GDPRDeltas | RELATIONSHIP_REMOVED_GDPRLargeObjectFallback)
export type RELATIONSHIP_REMOVED_GDPRSnapshot = (SnapshotPayloadEnvelope & {
type?: "RELATIONSHIP_REMOVED_GDPR"
object?: RelationshipObjectOfAnEvent
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type RELATIONSHIP_REMOVED_GDPRDeltas = (DeltasPayloadEnvelope & {
type?: "RELATIONSHIP_REMOVED_GDPR"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type RELATIONSHIP_REMOVED_GDPRLargeObjectFallback = (LargeObjectFallbackPayload & {
type?: "RELATIONSHIP_REMOVED_GDPR"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
/**
 * Relationship changed; same companion. One of three payload kinds: snapshot (object), deltas (uri and deltas), large-object fallback (uri, exceededQueueSizeLimit true, no object); the checker picks the kind by the presence of object, then deltas.
 */
export type RELATIONSHIP_CHANGEDEventPayload = (RELATIONSHIP_CHANGEDSnapshot | RELATIONSHIP_CHANGEDDeltas | RELATIONSHIP_CHANGEDLargeObjectFallback)
export type RELATIONSHIP_CHANGEDSnapshot = (SnapshotPayloadEnvelope & {
type?: "RELATIONSHIP_CHANGED"
object?: RelationshipObjectOfAnEvent
[k: string]: unknown
})
export type RELATIONSHIP_CHANGEDDeltas = (DeltasPayloadEnvelope & {
type?: "RELATIONSHIP_CHANGED"
[k: string]: unknown
})
export type RELATIONSHIP_CHANGEDLargeObjectFallback = (LargeObjectFallbackPayload & {
type?: "RELATIONSHIP_CHANGED"
[k: string]: unknown
})
/**
 * Currently unused. One of three payload kinds: snapshot (object), deltas (uri and deltas), large-object fallback (uri, exceededQueueSizeLimit true, no object); the checker picks the kind by the presence of object, then deltas.
 */
export type GROUP_CREATEDEventPayload = (GROUP_CREATEDSnapshot | GROUP_CREATEDDeltas | GROUP_CREATEDLargeObjectFallback)
export type GROUP_CREATEDSnapshot = (SnapshotPayloadEnvelope & {
type?: "GROUP_CREATED"
object?: GroupObjectOfAnEvent
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
/**
 * Group content (GROUP_* events are currently unused): the common fields plus name.
 */
export type GroupObjectOfAnEvent = (FieldsCommonToEntityAndRelationshipObjects & {
name?: string
[k: string]: unknown
})
export type GROUP_CREATEDDeltas = (DeltasPayloadEnvelope & {
type?: "GROUP_CREATED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type GROUP_CREATEDLargeObjectFallback = (LargeObjectFallbackPayload & {
type?: "GROUP_CREATED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
/**
 * Currently unused. One of three payload kinds: snapshot (object), deltas (uri and deltas), large-object fallback (uri, exceededQueueSizeLimit true, no object); the checker picks the kind by the presence of object, then deltas.
 */
export type GROUP_REMOVEDEventPayload = (GROUP_REMOVEDSnapshot | GROUP_REMOVEDDeltas | GROUP_REMOVEDLargeObjectFallback)
export type GROUP_REMOVEDSnapshot = (SnapshotPayloadEnvelope & {
type?: "GROUP_REMOVED"
object?: GroupObjectOfAnEvent
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type GROUP_REMOVEDDeltas = (DeltasPayloadEnvelope & {
type?: "GROUP_REMOVED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type GROUP_REMOVEDLargeObjectFallback = (LargeObjectFallbackPayload & {
type?: "GROUP_REMOVED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
/**
 * Currently unused. One of three payload kinds: snapshot (object), deltas (uri and deltas), large-object fallback (uri, exceededQueueSizeLimit true, no object); the checker picks the kind by the presence of object, then deltas.
 */
export type GROUP_CHANGEDEventPayload = (GROUP_CHANGEDSnapshot | GROUP_CHANGEDDeltas | GROUP_CHANGEDLargeObjectFallback)
export type GROUP_CHANGEDSnapshot = (SnapshotPayloadEnvelope & {
type?: "GROUP_CHANGED"
object?: GroupObjectOfAnEvent
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type GROUP_CHANGEDDeltas = (DeltasPayloadEnvelope & {
type?: "GROUP_CHANGED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type GROUP_CHANGEDLargeObjectFallback = (LargeObjectFallbackPayload & {
type?: "GROUP_CHANGED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
/**
 * Interaction created; no additional fields. One of three payload kinds: snapshot (object), deltas (uri and deltas), large-object fallback (uri, exceededQueueSizeLimit true, no object); the checker picks the kind by the presence of object, then deltas.
 */
export type INTERACTION_CREATEDEventPayload = (INTERACTION_CREATEDSnapshot | INTERACTION_CREATEDDeltas | INTERACTION_CREATEDLargeObjectFallback)
export type INTERACTION_CREATEDSnapshot = (SnapshotPayloadEnvelope & {
type?: "INTERACTION_CREATED"
object?: InteractionObjectOfAnEvent
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
/**
 * Interaction content: the common fields plus timestamp and members.
 */
export type InteractionObjectOfAnEvent = (FieldsCommonToEntityAndRelationshipObjects & {
/**
 * Epoch milliseconds
 */
timestamp?: number
/**
 * Members by role; shape not shown
 */
members?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type INTERACTION_CREATEDDeltas = (DeltasPayloadEnvelope & {
type?: "INTERACTION_CREATED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type INTERACTION_CREATEDLargeObjectFallback = (LargeObjectFallbackPayload & {
type?: "INTERACTION_CREATED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
/**
 * Interaction removed; no additional fields. One of three payload kinds: snapshot (object), deltas (uri and deltas), large-object fallback (uri, exceededQueueSizeLimit true, no object); the checker picks the kind by the presence of object, then deltas.
 */
export type INTERACTION_REMOVEDEventPayload = (INTERACTION_REMOVEDSnapshot | INTERACTION_REMOVEDDeltas | INTERACTION_REMOVEDLargeObjectFallback)
export type INTERACTION_REMOVEDSnapshot = (SnapshotPayloadEnvelope & {
type?: "INTERACTION_REMOVED"
object?: InteractionObjectOfAnEvent
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type INTERACTION_REMOVEDDeltas = (DeltasPayloadEnvelope & {
type?: "INTERACTION_REMOVED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type INTERACTION_REMOVEDLargeObjectFallback = (LargeObjectFallbackPayload & {
type?: "INTERACTION_REMOVED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
/**
 * Interaction changed; no additional fields. One of three payload kinds: snapshot (object), deltas (uri and deltas), large-object fallback (uri, exceededQueueSizeLimit true, no object); the checker picks the kind by the presence of object, then deltas.
 */
export type INTERACTION_CHANGEDEventPayload = (INTERACTION_CHANGEDSnapshot | INTERACTION_CHANGEDDeltas | INTERACTION_CHANGEDLargeObjectFallback)
export type INTERACTION_CHANGEDSnapshot = (SnapshotPayloadEnvelope & {
type?: "INTERACTION_CHANGED"
object?: InteractionObjectOfAnEvent
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type INTERACTION_CHANGEDDeltas = (DeltasPayloadEnvelope & {
type?: "INTERACTION_CHANGED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type INTERACTION_CHANGEDLargeObjectFallback = (LargeObjectFallbackPayload & {
type?: "INTERACTION_CHANGED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
/**
 * For the winner entity: entities were unmerged from it; for an unmerged entity: it was unmerged from its master. Adds uris, the URIs of the split participants. One of three payload kinds: snapshot (object), deltas (uri and deltas), large-object fallback (uri, exceededQueueSizeLimit true, no object); the checker picks the kind by the presence of object, then deltas.
 */
export type ENTITIES_SPLITTEDEventPayload = (ENTITIES_SPLITTEDSnapshot | ENTITIES_SPLITTEDDeltas | ENTITIES_SPLITTEDLargeObjectFallback)
export type ENTITIES_SPLITTEDSnapshot = (SnapshotPayloadEnvelope & {
type?: "ENTITIES_SPLITTED"
object?: EntityObjectOfAnEvent
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
uris?: SplitUris
[k: string]: unknown
} & {
[k: string]: unknown
})
/**
 * URIs of the split participants (ENTITIES_SPLITTED only)
 */
export type SplitUris = string[]
export type ENTITIES_SPLITTEDDeltas = (DeltasPayloadEnvelope & {
type?: "ENTITIES_SPLITTED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
uris?: SplitUris
[k: string]: unknown
} & {
[k: string]: unknown
})
export type ENTITIES_SPLITTEDLargeObjectFallback = (LargeObjectFallbackPayload & {
type?: "ENTITIES_SPLITTED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
uris?: SplitUris
[k: string]: unknown
})
/**
 * The list of potential matches of an entity changed. One of three payload kinds: snapshot (object), deltas (uri and deltas), large-object fallback (uri, exceededQueueSizeLimit true, no object); the checker picks the kind by the presence of object, then deltas.
 */
export type ENTITIES_MATCHES_CHANGEDEventPayload = (ENTITIES_MATCHES_CHANGEDSnapshot | ENTITIES_MATCHES_CHANGEDDeltas | ENTITIES_MATCHES_CHANGEDLargeObjectFallback)
export type ENTITIES_MATCHES_CHANGEDSnapshot = (SnapshotPayloadEnvelope & {
type?: "ENTITIES_MATCHES_CHANGED"
object?: EntityObjectOfAnEvent
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type ENTITIES_MATCHES_CHANGEDDeltas = (DeltasPayloadEnvelope & {
type?: "ENTITIES_MATCHES_CHANGED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type ENTITIES_MATCHES_CHANGEDLargeObjectFallback = (LargeObjectFallbackPayload & {
type?: "ENTITIES_MATCHES_CHANGED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
/**
 * Generated when merging relationships, for loser relations. One of three payload kinds: snapshot (object), deltas (uri and deltas), large-object fallback (uri, exceededQueueSizeLimit true, no object); the checker picks the kind by the presence of object, then deltas.
 */
export type RELATION_LOST_MERGEEventPayload = (RELATION_LOST_MERGESnapshot | RELATION_LOST_MERGEDeltas | RELATION_LOST_MERGELargeObjectFallback)
export type RELATION_LOST_MERGESnapshot = (SnapshotPayloadEnvelope & {
type?: "RELATION_LOST_MERGE"
object?: RelationshipObjectOfAnEvent
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type RELATION_LOST_MERGEDeltas = (DeltasPayloadEnvelope & {
type?: "RELATION_LOST_MERGE"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type RELATION_LOST_MERGELargeObjectFallback = (LargeObjectFallbackPayload & {
type?: "RELATION_LOST_MERGE"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
/**
 * Generated when merging relations. One of three payload kinds: snapshot (object), deltas (uri and deltas), large-object fallback (uri, exceededQueueSizeLimit true, no object); the checker picks the kind by the presence of object, then deltas.
 */
export type RELATIONSHIP_MERGEDEventPayload = (RELATIONSHIP_MERGEDSnapshot | RELATIONSHIP_MERGEDDeltas | RELATIONSHIP_MERGEDLargeObjectFallback)
export type RELATIONSHIP_MERGEDSnapshot = (SnapshotPayloadEnvelope & {
type?: "RELATIONSHIP_MERGED"
object?: RelationshipObjectOfAnEvent
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type RELATIONSHIP_MERGEDDeltas = (DeltasPayloadEnvelope & {
type?: "RELATIONSHIP_MERGED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type RELATIONSHIP_MERGEDLargeObjectFallback = (LargeObjectFallbackPayload & {
type?: "RELATIONSHIP_MERGED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
/**
 * Any change (including creation or deletion) of a workflow business process connected to an entity. One of three payload kinds: snapshot (object), deltas (uri and deltas), large-object fallback (uri, exceededQueueSizeLimit true, no object); the checker picks the kind by the presence of object, then deltas.
 */
export type ENTITY_BUSINESS_PROCESS_CHANGEDEventPayload = (ENTITY_BUSINESS_PROCESS_CHANGEDSnapshot | ENTITY_BUSINESS_PROCESS_CHANGEDDeltas | ENTITY_BUSINESS_PROCESS_CHANGEDLargeObjectFallback)
export type ENTITY_BUSINESS_PROCESS_CHANGEDSnapshot = (SnapshotPayloadEnvelope & {
type?: "ENTITY_BUSINESS_PROCESS_CHANGED"
object?: EntityObjectOfAnEvent
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type ENTITY_BUSINESS_PROCESS_CHANGEDDeltas = (DeltasPayloadEnvelope & {
type?: "ENTITY_BUSINESS_PROCESS_CHANGED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
export type ENTITY_BUSINESS_PROCESS_CHANGEDLargeObjectFallback = (LargeObjectFallbackPayload & {
type?: "ENTITY_BUSINESS_PROCESS_CHANGED"
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
[k: string]: unknown
})
/**
 * Data change request content, when sent at all (the document: the payload carries only the event name): the common fields plus timestamp and members.
 */
export type ChangeRequestObjectOfAnEvent = (FieldsCommonToEntityAndRelationshipObjects & {
/**
 * Epoch milliseconds
 */
timestamp?: number
/**
 * Shape not shown
 */
members?: {
[k: string]: unknown
}
[k: string]: unknown
})

/**
 * The kit's file and stdin form of one event message: the transport headers beside the JSON payload. A line that is a bare payload (an object with type and no payload member) is accepted too; it then has no headers to check.
 */
export interface EventMessage {
headers?: EventMessageHeaders
payload: EventMessagePayload
}
/**
 * Transport headers of every event message. objectVersion is present only when it is listed in JMSEventsFilteringFields (checked against the streaming configuration by the checker, not by this schema). Other headers (messageId, contentType, ...) are allowed.
 */
export interface EventMessageHeaders {
/**
 * Tenant identifier
 */
tenantId: string
/**
 * Event type; equals the payload's type
 */
eventType: string
/**
 * URI of the business object; equals object.uri (snapshot) or uri (deltas, large-object fallback)
 */
sourceObjectUri: string
/**
 * Incremental version of the business object; consumers order events of one object by it
 */
objectVersion?: number
[k: string]: unknown
}
/**
 * payloadType snapshot (the default): the event type and the serialized object. The per-type schemas close the envelope (no other top-level fields) and type the object.
 */
export interface SnapshotPayloadEnvelope {
/**
 * Event type (see the per-type schemas)
 */
type: string
object: Object
/**
 * Only for ENTITY_CHANGED and RELATIONSHIP_CHANGED; may be absent when analyzeOvChanges is false
 */
ovChanged?: boolean
/**
 * Populated only when true
 */
exceededQueueSizeLimit?: true
[k: string]: unknown
}
/**
 * Serialized business object; content controlled by the filtering properties; never empty
 */
export interface Object {
[k: string]: unknown
}
/**
 * The fields both JMSEventsFilteringFields and RelationEventsFilteringFields can select. Every field is optional (filtering may leave any out); the object is open because the set of available fields beyond these is not shown.
 */
export interface FieldsCommonToEntityAndRelationshipObjects {
/**
 * Object URI
 */
uri?: string
/**
 * Object type URI
 */
type?: string
createdBy?: string
/**
 * A point in time: epoch milliseconds in the samples; the document does not fix the type
 */
createdTime?: (number | string)
updatedBy?: string
/**
 * A point in time: epoch milliseconds in the samples; the document does not fix the type
 */
updatedTime?: (number | string)
/**
 * A point in time: epoch milliseconds in the samples; the document does not fix the type
 */
startDate?: (number | string)
/**
 * A point in time: epoch milliseconds in the samples; the document does not fix the type
 */
endDate?: (number | string)
attributes?: AttributesOfAnEventObject
crosswalks?: CrosswalkOfAnEventObject[]
tags?: string[]
/**
 * Shape not shown
 */
ratings?: {
[k: string]: unknown
}
/**
 * Shape not shown
 */
consolidatedRating?: {
[k: string]: unknown
}
[k: string]: unknown
}
/**
 * Map of attribute name to the array of its values
 */
export interface AttributesOfAnEventObject {
[k: string]: AttributeValueInAnEventObject[]
}
/**
 * One value of an attribute, with the lookup data the event carries. Nested and reference attribute values (value is an object) are not constrained further: the document does not show them.
 */
export interface AttributeValueInAnEventObject {
/**
 * Attribute type URI
 */
type: string
/**
 * Operational value flag
 */
ov: boolean
/**
 * The value (string, number, boolean, or an object for nested and reference attributes)
 */
value: {
[k: string]: unknown
}
/**
 * Attribute value URI
 */
uri?: string
/**
 * Canonical lookup code of the value
 */
lookupCode?: string
/**
 * Raw source value before lookup resolution
 */
lookupRawValue?: string
/**
 * Lookup resolution error: a numeric code first (1003: missing canonical value mapping), then text
 */
lookupError?: string
[k: string]: unknown
}
/**
 * Source-system identity of an object. The date fields are ISO 8601 timestamps (RFC 3339 date-time). Other fields are allowed.
 */
export interface CrosswalkOfAnEventObject {
uri?: string
/**
 * Source system type URI
 */
type: string
/**
 * Identifier in the source system
 */
value: string
reltioLoadDate?: string
createDate?: string
updateDate?: string
/**
 * URIs of the attribute values this crosswalk contributes
 */
attributes?: string[]
singleAttributeUpdateDates?: {
[k: string]: unknown
}
[k: string]: unknown
}
/**
 * payloadType deltas: the event type, the source object URI and the attribute delta collection (its structure is not shown by the document except for ENTITY_CHANGED, so it stays open here).
 */
export interface DeltasPayloadEnvelope {
/**
 * Event type (see the per-type schemas)
 */
type: string
/**
 * URI of the business object
 */
uri: string
/**
 * Attribute delta collection
 */
deltas: {
[k: string]: unknown
}
/**
 * Populated only when true
 */
exceededQueueSizeLimit?: true
[k: string]: unknown
}
/**
 * Sent instead of a snapshot or deltas message when largeObjectsSupport is true and the compressed event exceeds the size limit: without object, carrying the object URI (in uri, or only in the sourceObjectUri header: the document does not say where), the event type, exceededQueueSizeLimit true and ovChanged where applicable. The checker requires the URI in one of the two places.
 */
export interface LargeObjectFallbackPayload {
/**
 * Event type (see the per-type schemas)
 */
type: string
/**
 * URI of the business object
 */
uri?: string
/**
 * Populated only when true
 */
exceededQueueSizeLimit: true
/**
 * Only for ENTITY_CHANGED and RELATIONSHIP_CHANGED; may be absent when analyzeOvChanges is false
 */
ovChanged?: boolean
[k: string]: unknown
}
/**
 * A data change request was created; payload carries only the event name. Tolerant: only type is required; an object, when present, is a change-request object; uri and exceededQueueSizeLimit are allowed; nothing else.
 */
export interface CHANGE_REQUEST_CREATEDEventPayload {
type: "CHANGE_REQUEST_CREATED"
object?: (Object & ChangeRequestObjectOfAnEvent)
/**
 * URI of the business object
 */
uri?: string
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
/**
 * Populated only when true
 */
exceededQueueSizeLimit?: true
[k: string]: unknown
}
/**
 * A data change request was changed; payload carries only the event name. Tolerant: only type is required; an object, when present, is a change-request object; uri and exceededQueueSizeLimit are allowed; nothing else.
 */
export interface CHANGE_REQUEST_CHANGEDEventPayload {
type: "CHANGE_REQUEST_CHANGED"
object?: (Object & ChangeRequestObjectOfAnEvent)
/**
 * URI of the business object
 */
uri?: string
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
/**
 * Populated only when true
 */
exceededQueueSizeLimit?: true
[k: string]: unknown
}
/**
 * A data change request was deleted; payload carries only the event name. Tolerant: only type is required; an object, when present, is a change-request object; uri and exceededQueueSizeLimit are allowed; nothing else.
 */
export interface CHANGE_REQUEST_REMOVEDEventPayload {
type: "CHANGE_REQUEST_REMOVED"
object?: (Object & ChangeRequestObjectOfAnEvent)
/**
 * URI of the business object
 */
uri?: string
/**
 * ovChanged must not appear on this event type
 */
ovChanged?: {
[k: string]: unknown
}
/**
 * Populated only when true
 */
exceededQueueSizeLimit?: true
[k: string]: unknown
}
