// How the contract names a lookup type: the Lookup schema's `type` is a URI rdm/lookupTypes/<type_name>
// (its pattern below), while paths and filters may name the type bare ("Country"). Written once here, the
// lowest folder that the reference, the mock and the suites all import.

/** What every lookup type URI starts with. */
export const LOOKUP_TYPE_PREFIX = "rdm/lookupTypes/";

/** The contract's pattern of a lookup type URI (openapi/components/schemas.yaml, Lookup.type). */
export const LOOKUP_TYPE_URI_PATTERN = "^rdm/lookupTypes/[^/]+$";

/** "rdm/lookupTypes/Country" and "Country" both name the type Country. */
export function lookupTypeName(typeOrUri: string): string {
  return typeOrUri.startsWith(LOOKUP_TYPE_PREFIX) ? typeOrUri.slice(LOOKUP_TYPE_PREFIX.length) : typeOrUri;
}

/** The URI of the type named `name` ("Country" -> "rdm/lookupTypes/Country"). */
export function lookupTypeUri(name: string): string {
  return `${LOOKUP_TYPE_PREFIX}${name}`;
}
