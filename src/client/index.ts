// Typed client for the interface over an injected fetch and the target's two base URLs. It returns raw
// status, headers and parsed body for every call and never judges them: checks and Pact consumers do.

import type { BlockedValuesQuery } from "./blocked-values.ts";
import { blockedValues } from "./blocked-values.ts";
import { multiTokenConfig, postCustomer, putClients, putCustomer } from "./configuration.ts";
import { createTask, deleteTask, taskStatus } from "./delete-task.ts";
import type { Auth, ClientConfig } from "./http.ts";
import type { FirstPageOptions, FullScanOptions, ScanEndpoint, ScanQuery, ScrollIdEncoding } from "./scan.ts";
import { scanAll, scanFirst, scanNext, scanPages } from "./scan.ts";
import { healthcheck, status, version } from "./service.ts";
import type { ClientCredentials, TokenRequestOptions } from "./token.ts";
import { requestToken } from "./token.ts";
import type { DeleteTaskRequest } from "./types.ts";

export * from "./blocked-values.ts";
export * from "./configuration.ts";
export * from "./delete-task.ts";
export * from "./http.ts";
export * from "./response.ts";
export * from "./scan.ts";
export * from "./service.ts";
export * from "./token.ts";
export * from "./types.ts";

export function createClient(config: ClientConfig) {
  return {
    config,
    token: (credentials: ClientCredentials, options?: TokenRequestOptions) =>
      requestToken(config, credentials, options),
    healthcheck: (auth: Auth) => healthcheck(config, auth),
    status: (auth: Auth) => status(config, auth),
    version: (auth: Auth) => version(config, auth),
    scanFirst: <E extends ScanEndpoint>(
      auth: Auth,
      endpoint: E,
      query?: ScanQuery,
      options?: FirstPageOptions,
    ) => scanFirst(config, auth, endpoint, query, options),
    scanNext: <E extends ScanEndpoint>(
      auth: Auth,
      endpoint: E,
      scrollId: string,
      encoding: ScrollIdEncoding,
      query?: ScanQuery,
    ) => scanNext(config, auth, endpoint, scrollId, encoding, query),
    scanPages: <E extends ScanEndpoint>(auth: Auth, endpoint: E, options?: FullScanOptions) =>
      scanPages(config, auth, endpoint, options),
    scanAll: <E extends ScanEndpoint>(auth: Auth, endpoint: E, options?: FullScanOptions) =>
      scanAll(config, auth, endpoint, options),
    createTask: (auth: Auth, tenantId: string, request: unknown) =>
      createTask(config, auth, tenantId, request),
    deleteTask: (auth: Auth, tenantId: string, parameters?: DeleteTaskRequest["parameters"]) =>
      deleteTask(config, auth, tenantId, parameters),
    taskStatus: (auth: Auth, tenantId: string, taskId: string) => taskStatus(config, auth, tenantId, taskId),
    blockedValues: (auth: Auth, tenantId: string, lookupType: string, query?: BlockedValuesQuery) =>
      blockedValues(config, auth, tenantId, lookupType, query),
    putCustomer: (auth: Auth, customerId: string, customer: unknown) =>
      putCustomer(config, auth, customerId, customer),
    postCustomer: (auth: Auth, customerId: string, customer: unknown) =>
      postCustomer(config, auth, customerId, customer),
    putClients: (auth: Auth, customerId: string, clients: unknown) =>
      putClients(config, auth, customerId, clients),
    multiTokenConfig,
  };
}

export type InterfaceClient = ReturnType<typeof createClient>;
