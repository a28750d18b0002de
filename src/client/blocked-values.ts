// Blocked values of one lookup type, paged by offset and limit.
import { type Auth, type ClientConfig, joinUrl, segment, send } from "./http.ts";
import type { ApiResponse } from "./response.ts";
import type { BlockedValue } from "./types.ts";

export interface BlockedValuesQuery {
  offset?: number | string;
  limit?: number | string;
}

export function blockedValues(
  config: ClientConfig,
  auth: Auth,
  tenantId: string,
  lookupType: string,
  query: BlockedValuesQuery = {},
): Promise<ApiResponse<BlockedValue[]>> {
  const path = `/configuration/${segment(tenantId)}/autopilot/${segment(lookupType)}/blockedValues`;
  return send(config, "GET", joinUrl(config.baseUrl, path, { offset: query.offset, limit: query.limit }), {
    auth,
  });
}
