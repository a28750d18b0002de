// Nested attribute values of any depth: legal (the document does not limit nesting), used by the
// arbitraries for deep but valid messages and by the mutations for messages past the checker's limit.

/**
 * A nested attribute value `depth` levels down (each level is {value: {Name: [value]}}, three levels of
 * JSON); the document sets no limit, the checker inspects up to CheckOptions.maxDepth levels.
 */
export function nestedAttributeValue(depth: number, lookupErrorText?: string): Record<string, unknown> {
  let value: Record<string, unknown> = {
    type: "configuration/entityTypes/HCP/attributes/Address/attributes/Country",
    ov: true,
    value: "Atlantis",
    lookupRawValue: "Atlantis",
    ...(lookupErrorText === undefined ? { lookupCode: "AT" } : { lookupError: lookupErrorText }),
  };
  for (let level = 0; level < depth; level += 1) {
    value = {
      type: `configuration/entityTypes/HCP/attributes/Address${level}`,
      ov: level % 2 === 0,
      value: { [`Level${level}`]: [value] },
      uri: `entities/e1/attributes/Address${level}/a${level}`,
    };
  }
  return value;
}
