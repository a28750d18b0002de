// Customer and client configuration: the multi-token quota and the access-token validity live here.
import { type Auth, type ClientConfig, joinUrl, segment, send } from "./http.ts";
import type { ApiResponse } from "./response.ts";
import type { ClientConfiguration, Customer } from "./types.ts";

function customerUrl(config: ClientConfig, customerId: string): string {
  return joinUrl(config.baseUrl, `/oauth/customers/${segment(customerId)}`);
}

/** A write of a customer's configuration (the customer, or at `/clients` its clients): a JSON body. */
const customerWrite =
  <T>(method: "PUT" | "POST", under = "") =>
  (config: ClientConfig, auth: Auth, customerId: string, body: unknown): Promise<ApiResponse<T>> =>
    send(config, method, `${customerUrl(config, customerId)}${under}`, { auth, body: { json: body } });

export const putCustomer = customerWrite<Customer>("PUT");
export const postCustomer = customerWrite<Customer>("POST");
export const putClients = customerWrite<ClientConfiguration[]>("PUT", "/clients");

/** The multitokenConfig object that sets a quota. */
export function multiTokenConfig(maxActiveTokensAllowed: number): Customer["multitokenConfig"] {
  return { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed } };
}
