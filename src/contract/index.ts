// Public entry of the HTTP contract: load once, look operations up, check bodies (violations as data).
export type { Contract, OperationMatch } from "./contract.ts";
export { bodySchemas, documentFiles, loadContract, openapiDir, operationCalled } from "./contract.ts";
// The lookup type URI (rdm/lookupTypes/<type_name>) and the bare name it carries.
export { LOOKUP_TYPE_PREFIX, LOOKUP_TYPE_URI_PATTERN, lookupTypeName, lookupTypeUri } from "./lookup-type.ts";
export { decodeBody, essence, isJsonMedia, matchMediaType } from "./media-types.ts";
// Operations as data: id, host, method, path template, roles, requirement and assumption ids.
export type {
  ContractOperation,
  ContractParameter,
  Host,
  HttpMethod,
  OperationSafety,
} from "./operations.ts";
export { OPERATION_SAFETY, PathMatcher } from "./operations.ts";
export { isObject, RefResolver } from "./ref-resolver.ts";
// The contract's bound on a client's active tokens (maxActiveTokensAllowed at most 200).
export { MAX_ACTIVE_TOKENS_ALLOWED } from "./token-quota.ts";
// A departure from the contract as data: instancePath, schemaPath, keyword, message.
export type { Violation } from "./violations.ts";
export { SchemaValidators } from "./violations.ts";
