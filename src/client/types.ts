// Shapes of the interface's resources as the client hands them out.
// Where src/generated/openapi provides a schema type, these names alias it (see index.ts).

export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in?: number;
  scope?: string;
}

export interface OAuthError {
  error?: string;
  error_description?: string;
}

export interface MultiTokenConfig {
  clientCredentialsMultiTokenConfig?: { maxActiveTokensAllowed?: number };
}

export interface Customer {
  id?: string;
  tenants?: string[];
  externalProviderConfig?: unknown[];
  description?: string;
  caseSensitiveLoginEnabled?: boolean;
  applicationClients?: string[];
  customerSpecificRoles?: string[];
  multitokenConfig?: MultiTokenConfig;
  [field: string]: unknown;
}

export interface ClientConfiguration {
  clientId: string;
  scope?: string[];
  authorities?: string[];
  resourceIds?: string[];
  authorizedGrantTypes?: string[];
  redirectUri?: string[];
  clientSecret?: string;
  accessTokenValidity?: number;
  refreshTokenValidity?: number;
  [field: string]: unknown;
}

export interface Lookup {
  tenantId?: string;
  updatedBy?: string;
  updateDate?: number;
  version?: number;
  type?: string;
  code?: string;
  enabled?: boolean;
  sourceMappings?: unknown[];
  localizations?: unknown[];
  parents?: string[];
  attributes?: { name?: string; value?: string }[];
  startDate?: number;
  endDate?: number;
  [field: string]: unknown;
}

export interface AutopilotStatistic {
  tenantId?: string;
  lookupType?: string;
  source?: string;
  unmappedValue?: string;
  candidateLookupCode?: string;
  candidateValue?: string;
  status?: string;
  [field: string]: unknown;
}

export interface BlockedValue {
  tenantId?: string;
  lookupType?: string;
  value?: string;
  createdAt?: number;
  createdBy?: string;
  [field: string]: unknown;
}

export interface ScanPage<R> {
  scrollId?: string;
  values: R[];
}

export interface DeleteTaskRequest {
  type: string;
  parameters?: { type?: string; uris?: string[] };
}

export interface Task {
  id?: string;
  type?: string;
  tenantId?: string;
  status?: string;
  [field: string]: unknown;
}

export interface ServiceStatus {
  status?: string;
}

export type ServiceVersion = Record<string, unknown>;
