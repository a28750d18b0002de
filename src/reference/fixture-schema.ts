// JSON Schemas of the fixture files: a broken fixture is reported with file, path and problem at load time.

const str = { type: "string" } as const;
const nonEmpty = { type: "string", minLength: 1 } as const;
const strings = { type: "array", items: str } as const;
const num = { type: "number" } as const;
const int = { type: "integer" } as const;
const bool = { type: "boolean" } as const;

export const tenantsSchema = {
  type: "array",
  items: {
    type: "object",
    required: ["id", "authMigrationMode"],
    additionalProperties: false,
    properties: { id: nonEmpty, authMigrationMode: { enum: ["cassandra", "rdbms"] } },
  },
} as const;

export const customersSchema = {
  type: "array",
  items: {
    type: "object",
    required: ["id", "tenants"],
    properties: {
      id: nonEmpty,
      tenants: { type: "array", items: nonEmpty, minItems: 1 },
      externalProviderConfig: { type: "array" },
      description: str,
      caseSensitiveLoginEnabled: bool,
      applicationClients: strings,
      customerSpecificRoles: strings,
      multitokenConfig: {
        type: "object",
        properties: {
          clientCredentialsMultiTokenConfig: {
            type: "object",
            properties: { maxActiveTokensAllowed: { type: "integer", minimum: 1, maximum: 200 } },
          },
        },
      },
    },
  },
} as const;

export const clientsSchema = {
  type: "array",
  items: {
    type: "object",
    required: ["customerId", "clientId", "clientSecret", "authorities"],
    properties: {
      customerId: nonEmpty,
      clientId: nonEmpty,
      clientSecret: nonEmpty,
      scope: strings,
      authorities: strings,
      resourceIds: strings,
      authorizedGrantTypes: strings,
      redirectUri: strings,
      accessTokenValidity: { type: "integer", minimum: 1 },
      refreshTokenValidity: { type: "integer", minimum: 0 },
    },
  },
} as const;

export const lookupsSchema = {
  type: "array",
  items: {
    type: "object",
    required: [
      "tenantId",
      "updatedBy",
      "updateDate",
      "version",
      "type",
      "code",
      "enabled",
      "sourceMappings",
      "localizations",
      "parents",
      "attributes",
    ],
    additionalProperties: false,
    properties: {
      tenantId: nonEmpty,
      updatedBy: str,
      updateDate: num,
      version: int,
      type: { type: "string", pattern: "^rdm/lookupTypes/[^/]+$" },
      code: { type: "string", minLength: 1, maxLength: 499 },
      enabled: bool,
      sourceMappings: {
        type: "array",
        items: {
          type: "object",
          required: ["source", "values"],
          properties: {
            source: str,
            values: {
              type: "array",
              items: {
                type: "object",
                required: ["code", "value", "enabled", "canonicalValue", "downStreamDefaultValue"],
                properties: {
                  code: str,
                  value: str,
                  enabled: bool,
                  canonicalValue: bool,
                  downStreamDefaultValue: bool,
                },
              },
            },
          },
        },
      },
      localizations: { type: "array" },
      parents: strings,
      attributes: {
        type: "array",
        items: { type: "object", required: ["name", "value"], properties: { name: str, value: str } },
      },
      startDate: num,
      endDate: num,
    },
  },
} as const;

export const statisticsSchema = {
  type: "array",
  items: {
    type: "object",
    required: [
      "tenantId",
      "lookupType",
      "source",
      "unmappedValue",
      "semanticScore",
      "centroidMatch",
      "currentFrequency",
      "requiredFrequency",
      "frequencyAtMapping",
      "frequencyWindowHours",
      "status",
      "createdAt",
      "sourceFrequency",
      "updateDate",
      "aiConfidence",
      "aiReasoning",
      "configVersion",
    ],
    additionalProperties: false,
    properties: {
      tenantId: nonEmpty,
      lookupType: { type: "string", pattern: "^[^/]+$" },
      source: str,
      unmappedValue: str,
      candidateLookupCode: str,
      candidateValue: str,
      semanticScore: num,
      centroidMatch: bool,
      currentFrequency: num,
      requiredFrequency: num,
      frequencyAtMapping: num,
      frequencyWindowHours: num,
      status: nonEmpty,
      mappedAt: num,
      mappedBy: str,
      createdAt: num,
      sourceFrequency: {
        type: "object",
        required: ["totalCount", "hourlyFrequency"],
        properties: {
          totalCount: num,
          hourlyFrequency: {
            type: "object",
            propertyNames: { pattern: "^[0-9]+$" },
            additionalProperties: num,
          },
        },
      },
      updateDate: num,
      aiConfidence: num,
      aiReasoning: str,
      dcrId: str,
      configVersion: num,
    },
  },
} as const;

export const blockedValuesSchema = {
  type: "array",
  items: {
    type: "object",
    required: ["tenantId", "lookupType", "value", "createdAt", "createdBy"],
    additionalProperties: false,
    properties: {
      tenantId: nonEmpty,
      lookupType: { type: "string", pattern: "^rdm/lookupTypes/[^/]+$" },
      value: str,
      createdAt: num,
      createdBy: str,
    },
  },
} as const;
