// Fields of a payload as the document shows them: what the checker reads and the generator builds alike.

/** Event types whose payload may carry ovChanged. */
export const ovChangedTypes: ReadonlySet<string> = new Set(["ENTITY_CHANGED", "RELATIONSHIP_CHANGED"]);

/** The RELATIONSHIP_CREATED snapshot shape of the document: every field present when nothing is filtered. */
export const relationshipShapeFields = [
  "uri",
  "type",
  "createdBy",
  "createdTime",
  "updatedBy",
  "updatedTime",
  "startRefPinned",
  "startRefIgnored",
  "endRefPinned",
  "endRefIgnored",
  "attributes",
  "crosswalks",
] as const;
