// Consumer pact of an autopilot dashboard: both statistics scans and the blocked values of a lookup type,
// driven through the kit's typed client against Pact's mock server.
import { MatchersV3 } from "@pact-foundation/pact";
import { afterAll, describe, expect, it } from "vitest";
import { pageOf } from "../../src/client/index.ts";
import { CONSUMERS } from "../../src/pact/provider.ts";
import { STATE } from "../../src/pact/provider-states.ts";
import { booked, consumerPact, mockServerClient } from "./consumer-pact.ts";
import { bearer, countryType, fromState, jsonResponse, statisticOf } from "./interface-matchers.ts";

process.env.PACT_DO_NOT_TRACK = "true";

const { like, number, string, constrainedArrayLike } = MatchersV3;

const { pact, publish } = consumerPact(CONSUMERS.autopilot);
const token = "3q2DzKf0n1Xo0cQ2m8sR5u7w9yA1bC3dE5fG7hI9jK";
const clientOf = mockServerClient;

const DESCRIPTIONS = {
  allTypes: "a request for the first page of the autopilot statistics of every lookup type",
  oneType: "a request for the autopilot statistics of lookup type Country, last first",
  blocked: "a request for the blocked values of lookup type Country",
};

describe(`pact ${CONSUMERS.autopilot}`, () => {
  afterAll(() => {
    publish(Object.values(DESCRIPTIONS));
  });

  it("scans the statistics of every lookup type", async () => {
    await pact
      .addInteraction()
      .given(STATE.statistics)
      .given(STATE.viewerToken)
      .uponReceiving(DESCRIPTIONS.allTypes)
      .withRequest(
        "POST",
        fromState(
          "/configuration/{tenantId}/autopilot/stats/_scan",
          "/configuration/acme/autopilot/stats/_scan",
        ),
        (request) => request.query({ limit: "10" }).headers({ authorization: bearer }),
      )
      .willRespondWith(200, (response) =>
        response.headers(jsonResponse).jsonBody({
          scrollId: string("c3RhdHMtMDAwMQ"),
          values: constrainedArrayLike(statisticOf(like("Country")), 1, 10),
        }),
      )
      .executeTest(
        booked(async (server) => {
          const response = await clientOf(server.url).scanFirst(
            token,
            { kind: "autopilot", tenantId: "acme" },
            { limit: 10 },
          );
          const page = pageOf(response);
          expect(page?.scrollId).toBe("c3RhdHMtMDAwMQ");
          expect(page?.values[0]?.unmappedValue).toBe("Azeraijan");
        }),
      );
  });

  it("scans the statistics of one lookup type", async () => {
    await pact
      .addInteraction()
      .given(STATE.countryStatistics)
      .given(STATE.viewerToken)
      .uponReceiving(DESCRIPTIONS.oneType)
      .withRequest(
        "POST",
        fromState(
          "/configuration/{tenantId}/autopilot/stats/Country/_scan",
          "/configuration/acme/autopilot/stats/Country/_scan",
        ),
        (request) => request.query({ limit: "10", order: "desc" }).headers({ authorization: bearer }),
      )
      .willRespondWith(200, (response) =>
        response.headers(jsonResponse).jsonBody({
          // Every record is of the type asked for, in either naming the interface allows.
          values: constrainedArrayLike(statisticOf(countryType("Country")), 1, 10),
        }),
      )
      .executeTest(
        booked(async (server) => {
          const response = await clientOf(server.url).scanFirst(
            token,
            { kind: "autopilot-type", tenantId: "acme", lookupType: "Country" },
            { limit: 10, order: "desc" },
          );
          expect(pageOf(response)?.values.map((s) => s.lookupType)).toEqual(["Country"]);
        }),
      );
  });

  it("lists the blocked values of one lookup type", async () => {
    await pact
      .addInteraction()
      .given(STATE.blockedValues)
      .given(STATE.viewerToken)
      .uponReceiving(DESCRIPTIONS.blocked)
      .withRequest(
        "GET",
        fromState(
          "/configuration/{tenantId}/autopilot/Country/blockedValues",
          "/configuration/acme/autopilot/Country/blockedValues",
        ),
        (request) => request.query({ offset: "0", limit: "50" }).headers({ authorization: bearer }),
      )
      .willRespondWith(200, (response) =>
        response.headers(jsonResponse).jsonBody(
          constrainedArrayLike(
            {
              tenantId: like("acme"),
              lookupType: countryType("rdm/lookupTypes/Country"),
              value: like("N/A"),
              createdAt: number(1767222000000),
              createdBy: like("acme-admin"),
            },
            1,
            50,
          ),
        ),
      )
      .executeTest(
        booked(async (server) => {
          const response = await clientOf(server.url).blockedValues(token, "acme", "Country", {
            offset: 0,
            limit: 50,
          });
          expect(response.data?.map((b) => b.value)).toEqual(["N/A"]);
        }),
      );
  });
});
