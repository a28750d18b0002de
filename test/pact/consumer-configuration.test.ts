// Consumer pact of a tenant-administration tool: the multi-token quota of a customer, the access-token
// validity of a client, and the validation error for multitokenConfig on an rdbms tenant.
import { MatchersV3 } from "@pact-foundation/pact";
import { afterAll, describe, expect, it } from "vitest";
import { multiTokenConfig } from "../../src/client/index.ts";
import { CONSUMERS } from "../../src/pact/provider.ts";
import { STATE } from "../../src/pact/provider-states.ts";
import { booked, consumerPact, mockServerClient } from "./consumer-pact.ts";
import { bearer, errorBody, fromState, jsonResponse } from "./interface-matchers.ts";

process.env.PACT_DO_NOT_TRACK = "true";

const { like, regex, integer, eachLike, matchStatus } = MatchersV3;

const { pact, publish } = consumerPact(CONSUMERS.configuration);
const token = "3q2DzKf0n1Xo0cQ2m8sR5u7w9yA1bC3dE5fG7hI9jK";
const clientOf = mockServerClient;

const DESCRIPTIONS = {
  quota: "a request to allow 5 active tokens per client of a customer",
  validity: "a request to set the access-token validity of a client to 3600 seconds",
  rdbms: "a request to enable multi-token support for a customer with an rdbms tenant",
};

describe(`pact ${CONSUMERS.configuration}`, () => {
  afterAll(() => {
    publish(Object.values(DESCRIPTIONS));
  });

  it("sets the multi-token quota of a customer", async () => {
    await pact
      .addInteraction()
      .given(STATE.customerQuota)
      .given(STATE.adminToken)
      .uponReceiving(DESCRIPTIONS.quota)
      .withRequest(
        "POST",
        fromState("/oauth/customers/{customerId}", "/oauth/customers/cust-acme"),
        (request) =>
          request.headers({ authorization: bearer }).jsonBody({ multitokenConfig: multiTokenConfig(5) }),
      )
      .willRespondWith(200, (response) =>
        response.headers(jsonResponse).jsonBody({
          id: like("cust-acme"),
          tenants: eachLike("acme"),
          multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: 5 } },
        }),
      )
      .executeTest(
        booked(async (server) => {
          const response = await clientOf(server.url).postCustomer(token, "cust-acme", {
            multitokenConfig: multiTokenConfig(5),
          });
          expect(response.data?.multitokenConfig).toEqual(multiTokenConfig(5));
        }),
      );
  });

  it("sets the access-token validity of a client", async () => {
    await pact
      .addInteraction()
      .given(STATE.viewerValidity)
      .given(STATE.adminToken)
      .uponReceiving(DESCRIPTIONS.validity)
      .withRequest(
        "PUT",
        fromState("/oauth/customers/{customerId}/clients", "/oauth/customers/cust-acme/clients"),
        (request) =>
          request
            .headers({ authorization: bearer })
            .jsonBody([{ clientId: fromState("{clientId}", "acme-viewer"), accessTokenValidity: 3600 }]),
      )
      .willRespondWith(200, (response) =>
        response
          .headers(jsonResponse)
          .jsonBody(eachLike({ clientId: like("acme-viewer"), accessTokenValidity: integer(3600) })),
      )
      .executeTest(
        booked(async (server) => {
          const response = await clientOf(server.url).putClients(token, "cust-acme", [
            { clientId: "acme-viewer", accessTokenValidity: 3600 },
          ]);
          expect(response.data?.[0]?.accessTokenValidity).toBe(3600);
        }),
      );
  });

  it("is refused multi-token support for a customer with an rdbms tenant", async () => {
    await pact
      .addInteraction()
      .given(STATE.rdbmsCustomer)
      .given(STATE.rdbmsAdminToken)
      .uponReceiving(DESCRIPTIONS.rdbms)
      .withRequest(
        "POST",
        fromState("/oauth/customers/{customerId}", "/oauth/customers/cust-legacy"),
        (request) =>
          request.headers({ authorization: bearer }).jsonBody({ multitokenConfig: multiTokenConfig(5) }),
      )
      .willRespondWith(matchStatus(400, [400, 422]), (response) =>
        response
          .headers(jsonResponse)
          .jsonBody(
            errorBody(
              "validation_error",
              regex(
                "^.*multitokenConfig.*$",
                "multitokenConfig: tenant legacy uses auth.migration.mode=rdbms",
              ),
            ),
          ),
      )
      .executeTest(
        booked(async (server) => {
          const response = await clientOf(server.url).postCustomer(token, "cust-legacy", {
            multitokenConfig: multiTokenConfig(5),
          });
          expect([400, 422]).toContain(response.status);
          expect(JSON.stringify(response.body)).toContain("multitokenConfig");
        }),
      );
  });
});
