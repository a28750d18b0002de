// Records the reference holds. The resources of the interface take their shape from the generated OpenAPI
// types (src/generated/openapi), so the contract is written once; the reference stores them stricter than
// the contract answers them (every field filled unless the contract lets it be absent). What the contract
// does not describe (tenants, issued tokens, the task states the reference moves through) is declared here.
import type { components as LookupData } from "../generated/openapi/lookup-data.ts";
import type { components as Platform } from "../generated/openapi/platform.ts";

type PlatformSchemas = Platform["schemas"];
type LookupDataSchemas = LookupData["schemas"];

/** The named fields of a contract schema, without the open index signature that admits extra fields. */
type NamedFields<T> = { [K in keyof T as string extends K ? never : K]: T[K] };

/** A contract record as the reference stores it: its named fields, all present except the `Optional` ones. */
type Stored<T, Optional extends keyof NamedFields<T> = never> = Required<Omit<NamedFields<T>, Optional>> &
  Partial<Pick<NamedFields<T>, Optional>>;

/** Every error answer of the reference: exactly the contract's two fields, no extra ones. */
export type ErrorBody = NamedFields<LookupDataSchemas["Error"]>;

export type AuthMigrationMode = "cassandra" | "rdbms";

export interface Tenant {
  id: string;
  authMigrationMode: AuthMigrationMode;
}

export type MultitokenConfig = PlatformSchemas["MultitokenConfig"];

/** Stored as posted (extra fields included), under its id. */
export type Customer = PlatformSchemas["Customer"] & { id: string };

/** Stored with every field a client needs to be issued tokens, and any extra field posted. */
export type Client = Stored<PlatformSchemas["Client"], "refreshTokenValidity"> & { [key: string]: unknown };

/** A client and the customer it belongs to. */
export interface StoredClient {
  customerId: string;
  client: Client;
}

export interface IssuedToken {
  value: string;
  clientId: string;
  issuedAt: number;
  expiresAt: number;
}

export type SourceMappingValue = Stored<LookupDataSchemas["SourceMappingValue"]>;

export type SourceMapping = Omit<Stored<LookupDataSchemas["SourceMapping"]>, "values"> & {
  values: SourceMappingValue[];
};

export type LookupAttribute = Stored<LookupDataSchemas["LookupAttribute"]>;

export type Lookup = Omit<
  Stored<LookupDataSchemas["Lookup"], "startDate" | "endDate">,
  "sourceMappings" | "attributes"
> & {
  sourceMappings: SourceMapping[];
  attributes: LookupAttribute[];
};

/** frequencyAtMapping is 0 while no mapping or lookup-creation decision was made (TRACKING). */
export type Statistic = NamedFields<PlatformSchemas["AutopilotMatchStatistic"]>;

export type BlockedValue = NamedFields<PlatformSchemas["BlockedValue"]>;

/** The states the reference moves a task through; the contract leaves the set open. */
export type TaskStatus = "NOT_STARTED" | "RUNNING" | "COMPLETED" | "FAILED";

export type DeleteParameters = NamedFields<LookupDataSchemas["DeleteTaskParameters"]>;

/** The only task type the reference runs; the contract answers the type as an open string. */
export type Task = Omit<Stored<LookupDataSchemas["Task"]>, "type" | "status" | "parameters"> & {
  type: "delete";
  status: TaskStatus;
  parameters: DeleteParameters;
};
