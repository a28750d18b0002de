// Health, status and version of the lookup-data service.
import { type Auth, type ClientConfig, joinUrl, send } from "./http.ts";
import type { ApiResponse } from "./response.ts";
import type { ServiceStatus, ServiceVersion } from "./types.ts";

export function healthcheck(config: ClientConfig, auth: Auth): Promise<ApiResponse<ServiceStatus>> {
  return send(config, "GET", joinUrl(config.rdmUrl, "/healthcheck"), { auth });
}

export function status(config: ClientConfig, auth: Auth): Promise<ApiResponse<ServiceStatus>> {
  return send(config, "GET", joinUrl(config.rdmUrl, "/status"), { auth });
}

export function version(config: ClientConfig, auth: Auth): Promise<ApiResponse<ServiceVersion>> {
  return send(config, "GET", joinUrl(config.rdmUrl, "/version"), { auth });
}
