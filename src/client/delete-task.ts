// The delete task: bulk deletion of a tenant's lookups (all, one type, or listed URIs).
import { type Auth, type ClientConfig, joinUrl, segment, send } from "./http.ts";
import type { ApiResponse } from "./response.ts";
import type { DeleteTaskRequest, Task } from "./types.ts";

export function createTask(
  config: ClientConfig,
  auth: Auth,
  tenantId: string,
  request: DeleteTaskRequest | unknown,
): Promise<ApiResponse<Task>> {
  return send(config, "POST", joinUrl(config.rdmUrl, `/tasks/${segment(tenantId)}`), {
    auth,
    body: { json: request },
  });
}

export function deleteTask(
  config: ClientConfig,
  auth: Auth,
  tenantId: string,
  parameters?: DeleteTaskRequest["parameters"],
): Promise<ApiResponse<Task>> {
  const request: DeleteTaskRequest = parameters ? { type: "delete", parameters } : { type: "delete" };
  return createTask(config, auth, tenantId, request);
}

/** Task status: an extension of the kit (docs/assumptions.md), not in the document. */
export function taskStatus(
  config: ClientConfig,
  auth: Auth,
  tenantId: string,
  taskId: string,
): Promise<ApiResponse<Task>> {
  return send(config, "GET", joinUrl(config.rdmUrl, `/tasks/${segment(tenantId)}/${segment(taskId)}`), {
    auth,
  });
}

/** A lookup URI as the delete task takes it: <tenant_id>/<type_name>/<code>. */
export function lookupUri(tenantId: string, typeName: string, code: string): string {
  return `${tenantId}/${typeName}/${code}`;
}
