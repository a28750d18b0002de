// Customer and client configuration: the multi-token quota and the access-token validity live here.
import { type Auth, type ClientConfig, joinUrl, segment, send } from "./http.ts";
import type { ApiResponse } from "./response.ts";
import type { ClientConfiguration, Customer } from "./types.ts";

function customerUrl(config: ClientConfig, customerId: string): string {
  return joinUrl(config.baseUrl, `/oauth/customers/${segment(customerId)}`);
}

export function putCustomer(
  config: ClientConfig,
  auth: Auth,
  customerId: string,
  customer: unknown,
): Promise<ApiResponse<Customer>> {
  return send(config, "PUT", customerUrl(config, customerId), { auth, body: { json: customer } });
}

export function postCustomer(
  config: ClientConfig,
  auth: Auth,
  customerId: string,
  customer: unknown,
): Promise<ApiResponse<Customer>> {
  return send(config, "POST", customerUrl(config, customerId), { auth, body: { json: customer } });
}

export function putClients(
  config: ClientConfig,
  auth: Auth,
  customerId: string,
  clients: unknown,
): Promise<ApiResponse<ClientConfiguration[]>> {
  return send(config, "PUT", `${customerUrl(config, customerId)}/clients`, { auth, body: { json: clients } });
}

/** The multitokenConfig object that sets a quota. */
export function multiTokenConfig(maxActiveTokensAllowed: number): Customer["multitokenConfig"] {
  return { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed } };
}
