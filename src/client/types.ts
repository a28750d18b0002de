// Shapes of the interface's resources as the client hands them out: the generated OpenAPI schema types
// (src/generated/openapi). They describe the kit's contract; the client never validates a target's
// bodies against them (the schema suite does), so callers that judge a target check the fields they use.
import type { components as LookupData } from "../generated/openapi/lookup-data.ts";
import type { components as Platform } from "../generated/openapi/platform.ts";

type PlatformSchemas = Platform["schemas"];
type LookupDataSchemas = LookupData["schemas"];

export type TokenResponse = PlatformSchemas["TokenResponse"];
export type ErrorBody = PlatformSchemas["Error"];
export type MultiTokenConfig = PlatformSchemas["MultitokenConfig"];
export type Customer = PlatformSchemas["Customer"];
export type ClientConfiguration = PlatformSchemas["Client"];
export type AutopilotStatistic = PlatformSchemas["AutopilotMatchStatistic"];
export type BlockedValue = PlatformSchemas["BlockedValue"];
export type Lookup = LookupDataSchemas["Lookup"];
export type Task = LookupDataSchemas["Task"];
export type DeleteTaskParameters = LookupDataSchemas["DeleteTaskParameters"];
export type ServiceStatus = LookupDataSchemas["ServiceStatus"];
export type ServiceVersion = LookupDataSchemas["ServiceVersion"];

/** A delete task request; `type` is open so callers can send the refused variants too. */
export interface DeleteTaskRequest {
  type: string;
  parameters?: DeleteTaskParameters;
}

/** One page of any scan. */
export interface ScanPage<R> {
  scrollId?: string;
  values: R[];
}
