// Consumer pact of a lookup-data client: tokens, the lookups scan (first and next page), the delete task and
// the service endpoints, driven through the kit's typed client against Pact's mock server.
import { HTTPResponseStatusClass, MatchersV3 } from "@pact-foundation/pact";
import { afterAll, describe, expect, it } from "vitest";
import { accessTokenOf, pageOf } from "../../src/client/index.ts";
import { CONSUMERS } from "../../src/pact/provider.ts";
import { OPEN_SCROLL_QUERY, PROBE_CODE, STATE } from "../../src/pact/provider-states.ts";
import { basic, booked, consumerPact, formBody, mockServerClient } from "./consumer-pact.ts";
import { basicAuth, bearer, errorBody, fromState, jsonResponse, lookupOf } from "./interface-matchers.ts";

process.env.PACT_DO_NOT_TRACK = "true";

const { like, regex, integer, string, matchStatus, constrainedArrayLike, eachLike } = MatchersV3;

const { pact, publish } = consumerPact(CONSUMERS.lookups);
const token = "3q2DzKf0n1Xo0cQ2m8sR5u7w9yA1bC3dE5fG7hI9jK";
const clientOf = mockServerClient;
const lookups = { kind: "lookups", tenantId: "acme" } as const;

const DESCRIPTIONS = {
  token: "a token request with the client_credentials grant",
  quota: "a token request from a client at its token quota",
  firstPage: "a request for the first page of the Country lookups",
  nextPage: "a request for the next page of a lookup scan by its scroll id",
  deleteTask: "a request to delete one lookup by its URI",
  healthcheck: "a healthcheck request",
  status: "a status request",
  version: "a version request",
  versionNoToken: "a version request without an access token",
};

describe(`pact ${CONSUMERS.lookups}`, () => {
  afterAll(() => {
    publish(Object.values(DESCRIPTIONS));
  });

  it("gets an access token with client_credentials", async () => {
    const credentials = { clientId: "acme-viewer", clientSecret: "acme-viewer-secret" };
    await pact
      .addInteraction()
      .given(STATE.viewerClient)
      .uponReceiving(DESCRIPTIONS.token)
      .withRequest("POST", "/oauth/token", (request) => {
        request.headers({ authorization: basicAuth(basic(credentials.clientId, credentials.clientSecret)) });
        formBody(request, "grant_type=client_credentials");
      })
      .willRespondWith(200, (response) =>
        response.headers({ ...jsonResponse, "Cache-Control": regex("no-store", "no-store") }).jsonBody({
          access_token: string(token),
          token_type: regex("^[Bb][Ee][Aa][Rr][Ee][Rr]$", "bearer"),
          expires_in: integer(3600),
        }),
      )
      .executeTest(
        booked(async (server) => {
          const response = await clientOf(server.url).token(credentials);
          expect(response.status).toBe(200);
          expect(accessTokenOf(response)).toBe(token);
        }),
      );
  });

  it("is refused a token when the client is at its quota", async () => {
    const credentials = { clientId: "acme-quota", clientSecret: "acme-quota-secret" };
    await pact
      .addInteraction()
      .given(STATE.quotaReached)
      .uponReceiving(DESCRIPTIONS.quota)
      .withRequest("POST", "/oauth/token", (request) => {
        request.headers({ authorization: basicAuth(basic(credentials.clientId, credentials.clientSecret)) });
        formBody(request, "grant_type=client_credentials");
      })
      .willRespondWith(matchStatus(429, HTTPResponseStatusClass.ClientError), (response) =>
        response
          .headers(jsonResponse)
          .jsonBody(
            errorBody(
              "limit_exceeded",
              regex(
                "^.*([Ll]imit|[Ee]xceed|[Qq]uota|[Tt]oo many).*$",
                "Max active tokens limit exceeded: client acme-quota has 1 active tokens (maxActiveTokensAllowed=1)",
              ),
            ),
          ),
      )
      .executeTest(
        booked(async (server) => {
          const response = await clientOf(server.url).token(credentials);
          expect(response.status).toBeGreaterThanOrEqual(400);
          expect(accessTokenOf(response)).toBeUndefined();
          expect(JSON.stringify(response.body)).toMatch(/limit|exceed|quota/i);
        }),
      );
  });

  it("scans the first page of a lookup type", async () => {
    await pact
      .addInteraction()
      .given(STATE.countryLookups)
      .given(STATE.viewerToken)
      .uponReceiving(DESCRIPTIONS.firstPage)
      .withRequest("POST", fromState("/lookups/{tenantId}/_scan", "/lookups/acme/_scan"), (request) =>
        request
          .query({ limit: "2", filter: OPEN_SCROLL_QUERY.filter, sort: OPEN_SCROLL_QUERY.sort })
          .headers({ authorization: bearer }),
      )
      .willRespondWith(200, (response) =>
        response.headers(jsonResponse).jsonBody({
          scrollId: string("c2Nyb2xsLTAwMDE"),
          values: constrainedArrayLike(lookupOf("Country", "AD"), 1, 2, 2),
        }),
      )
      .executeTest(
        booked(async (server) => {
          const response = await clientOf(server.url).scanFirst(token, lookups, OPEN_SCROLL_QUERY);
          const page = pageOf(response);
          expect(page?.values.map((l) => l.type)).toEqual([
            "rdm/lookupTypes/Country",
            "rdm/lookupTypes/Country",
          ]);
          expect(page?.scrollId).toBe("c2Nyb2xsLTAwMDE");
        }),
      );
  });

  it("scans the next page by scroll id", async () => {
    await pact
      .addInteraction()
      .given(STATE.scrollOpen)
      .given(STATE.viewerToken)
      .uponReceiving(DESCRIPTIONS.nextPage)
      .withRequest("POST", fromState("/lookups/{tenantId}/_scan", "/lookups/acme/_scan"), (request) =>
        request
          .headers({ authorization: bearer })
          .jsonBody({ scrollId: fromState("{scrollId}", "c2Nyb2xsLTAwMDE") }),
      )
      .willRespondWith(200, (response) =>
        response.headers(jsonResponse).jsonBody({ values: eachLike(lookupOf("Country", "AE")) }),
      )
      .executeTest(
        booked(async (server) => {
          const response = await clientOf(server.url).scanNext(token, lookups, "c2Nyb2xsLTAwMDE", "object");
          expect(pageOf(response)?.values.map((l) => l.code)).toEqual(["AE"]);
        }),
      );
  });

  it("deletes a lookup by URI through a delete task", async () => {
    await pact
      .addInteraction()
      .given(STATE.probeLookup)
      .given(STATE.editorToken)
      .uponReceiving(DESCRIPTIONS.deleteTask)
      .withRequest("POST", fromState("/tasks/{tenantId}", "/tasks/acme"), (request) =>
        request.headers({ authorization: bearer }).jsonBody({
          type: "delete",
          parameters: {
            uris: [fromState(`{tenantId}/Gender/${PROBE_CODE}`, `acme/Gender/${PROBE_CODE}`)],
          },
        }),
      )
      .willRespondWith(matchStatus(202, HTTPResponseStatusClass.Success), (response) =>
        response.headers(jsonResponse).jsonBody({
          id: like("0b6f3c1e-4d0a-4c55-9d7e-5b3f0f0a1c2d"),
          type: "delete",
          tenantId: like("acme"),
          status: like("NOT_STARTED"),
        }),
      )
      .executeTest(
        booked(async (server) => {
          const response = await clientOf(server.url).deleteTask(token, "acme", {
            uris: [`acme/Gender/${PROBE_CODE}`],
          });
          expect(response.ok).toBe(true);
          expect(response.data?.id).toBe("0b6f3c1e-4d0a-4c55-9d7e-5b3f0f0a1c2d");
        }),
      );
  });

  it.each([
    ["healthcheck", DESCRIPTIONS.healthcheck, "/healthcheck"],
    ["status", DESCRIPTIONS.status, "/status"],
  ] as const)("reads the service %s", async (call, description, path) => {
    await pact
      .addInteraction()
      .given(STATE.viewerToken)
      .uponReceiving(description)
      .withRequest("GET", path, (request) => request.headers({ authorization: bearer }))
      .willRespondWith(200, (response) => response.headers(jsonResponse).jsonBody({ status: "OK" }))
      .executeTest(
        booked(async (server) => {
          const response = await clientOf(server.url)[call](token);
          expect(response.data?.status).toBe("OK");
        }),
      );
  });

  it("reads the service version as a dotted number", async () => {
    await pact
      .addInteraction()
      .given(STATE.viewerToken)
      .uponReceiving(DESCRIPTIONS.version)
      .withRequest("GET", "/version", (request) => request.headers({ authorization: bearer }))
      .willRespondWith(200, (response) =>
        response.headers(jsonResponse).jsonBody({ "rdm-service": regex("^[0-9]+(\\.[0-9]+)+$", "2026.1.0") }),
      )
      .executeTest(
        booked(async (server) => {
          const response = await clientOf(server.url).version(token);
          expect(response.data?.["rdm-service"]).toBe("2026.1.0");
        }),
      );
  });

  it("is refused the version without an access token", async () => {
    await pact
      .addInteraction()
      .uponReceiving(DESCRIPTIONS.versionNoToken)
      .withRequest("GET", "/version")
      .willRespondWith(401, (response) =>
        response.headers(jsonResponse).jsonBody(errorBody("invalid_token", "no Authorization header")),
      )
      .executeTest(
        booked(async (server) => {
          const response = await clientOf(server.url).version(null);
          expect(response.status).toBe(401);
          expect(response.data).toBeUndefined();
        }),
      );
  });
});
