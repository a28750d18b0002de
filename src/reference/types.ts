// Records the reference holds, shaped as the interface document describes them.

export type AuthMigrationMode = "cassandra" | "rdbms";

export interface Tenant {
  id: string;
  authMigrationMode: AuthMigrationMode;
}

export interface MultitokenConfig {
  clientCredentialsMultiTokenConfig?: { maxActiveTokensAllowed?: number; [key: string]: unknown };
  [key: string]: unknown;
}

export interface Customer {
  id: string;
  tenants?: string[];
  externalProviderConfig?: unknown[];
  description?: string;
  caseSensitiveLoginEnabled?: boolean;
  applicationClients?: string[];
  customerSpecificRoles?: string[];
  multitokenConfig?: MultitokenConfig;
  [key: string]: unknown;
}

export interface Client {
  clientId: string;
  clientSecret: string;
  scope: string[];
  authorities: string[];
  resourceIds: string[];
  authorizedGrantTypes: string[];
  redirectUri: string[];
  accessTokenValidity: number;
  refreshTokenValidity?: number;
  [key: string]: unknown;
}

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

export interface SourceMappingValue {
  code: string;
  value: string;
  enabled: boolean;
  canonicalValue: boolean;
  downStreamDefaultValue: boolean;
}

export interface Lookup {
  tenantId: string;
  updatedBy: string;
  updateDate: number;
  version: number;
  type: string;
  code: string;
  enabled: boolean;
  sourceMappings: { source: string; values: SourceMappingValue[] }[];
  localizations: unknown[];
  parents: string[];
  attributes: { name: string; value: string }[];
  startDate?: number;
  endDate?: number;
}

export interface Statistic {
  tenantId: string;
  lookupType: string;
  source: string;
  unmappedValue: string;
  candidateLookupCode?: string;
  candidateValue?: string;
  semanticScore: number;
  centroidMatch: boolean;
  currentFrequency: number;
  requiredFrequency: number;
  /** 0 while no mapping or lookup-creation decision was made (TRACKING). */
  frequencyAtMapping: number;
  frequencyWindowHours: number;
  status: string;
  mappedAt?: number;
  mappedBy?: string;
  createdAt: number;
  sourceFrequency: { totalCount: number; hourlyFrequency: Record<string, number> };
  updateDate: number;
  aiConfidence: number;
  aiReasoning: string;
  dcrId?: string;
  configVersion: number;
}

export interface BlockedValue {
  tenantId: string;
  lookupType: string;
  value: string;
  createdAt: number;
  createdBy: string;
}

export type TaskStatus = "NOT_STARTED" | "RUNNING" | "COMPLETED" | "FAILED";

export interface DeleteParameters {
  type?: string;
  uris?: string[];
}

export interface Task {
  id: string;
  type: "delete";
  tenantId: string;
  createdBy: string;
  createdTime: number;
  status: TaskStatus;
  parameters: DeleteParameters;
}

export const LOOKUP_TYPE_PREFIX = "rdm/lookupTypes/";

/** "rdm/lookupTypes/Country" and "Country" both name the type Country. */
export function lookupTypeName(typeOrUri: string): string {
  return typeOrUri.startsWith(LOOKUP_TYPE_PREFIX) ? typeOrUri.slice(LOOKUP_TYPE_PREFIX.length) : typeOrUri;
}
