// Consumer pact of an event subscriber (V4 asynchronous messages): one representative event of every family;
// the consumer's handler accepts a message only when the kit's event checker finds no error in it.
import { MatchersV3 } from "@pact-foundation/pact";
import { afterAll, describe, expect, it } from "vitest";
import { EVENT, type EventDescription, eventMessages } from "../../src/pact/event-messages.ts";
import { CONSUMERS } from "../../src/pact/provider.ts";
import { consumerPact } from "./consumer-pact.ts";
import { handleEvent } from "./event-handler.ts";

process.env.PACT_DO_NOT_TRACK = "true";

const { like, regex, boolean, number, integer, eachLike } = MatchersV3;

const { pact, publish } = consumerPact(CONSUMERS.events);

const entityUri = (example: string) => regex("^entities/[A-Za-z0-9]+$", example);
const isoDate = (example: string) => regex("^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$", example);
const attributeValue = (name: string, value: string) => ({
  type: like(`configuration/entityTypes/Individual/attributes/${name}`),
  value: like(value),
  ov: boolean(true),
});
const deltaValue = (value: string, id: string) => ({
  value: like(value),
  ov: boolean(true),
  id: like(id),
  sources: eachLike("configuration/sources/CRM"),
});

/** What the subscriber relies on in each event; metadata are the transport headers. */
const expectations: Record<EventDescription, { uri: string; content: unknown; uriPattern: string }> = {
  [EVENT.entitySnapshot]: {
    uri: "entities/7FCs6Hd",
    uriPattern: "^entities/[A-Za-z0-9]+$",
    content: {
      type: "ENTITY_CREATED",
      object: {
        uri: entityUri("entities/7FCs6Hd"),
        type: regex("^configuration/entityTypes/[A-Za-z]+$", "configuration/entityTypes/Individual"),
        createdTime: number(1767688479179),
        attributes: {
          FirstName: eachLike(attributeValue("FirstName", "Ken")),
          LastName: eachLike(attributeValue("LastName", "Perlman")),
        },
        crosswalks: eachLike({
          type: regex("^configuration/sources/.+$", "configuration/sources/CRM"),
          value: like("fHuJETruqD"),
          createDate: isoDate("2026-01-06T00:15:41.403Z"),
        }),
      },
    },
  },
  [EVENT.entityChangedDeltas]: {
    uri: "entities/7FCs6Hd",
    uriPattern: "^entities/[A-Za-z0-9]+$",
    content: {
      type: "ENTITY_CHANGED",
      uri: entityUri("entities/7FCs6Hd"),
      deltas: {
        id: like("SKDH2MIhheHi"),
        user: like("svc-integration"),
        method: like("PUT"),
        url: like("/entities/7FCs6Hd"),
        clientType: like("API"),
        timestamp: number(1767688480337),
        objectUri: entityUri("entities/7FCs6Hd"),
        objectType: like("configuration/entityTypes/Individual"),
        objectLabel: like("Barbara Perlman"),
        data: { type: "ENTITY_CHANGED" },
        deltaCollection: {
          ovChanged: boolean(false),
          delta: eachLike({
            type: "ATTRIBUTE_CHANGED",
            attributeType: like("configuration/entityTypes/Individual/attributes/FirstName"),
            oldValue: deltaValue("Ken", "SrtZE64T"),
            newValue: deltaValue("Barbara", "mCkARe7K"),
          }),
        },
        eventId: like("UGhgHdRwnQPWS3kE"),
        itemsTotal: integer(1),
      },
    },
  },
  [EVENT.relationship]: {
    uri: "relations/DwZrfLa",
    uriPattern: "^relations/[A-Za-z0-9]+$",
    content: {
      type: "RELATIONSHIP_CREATED",
      object: {
        uri: regex("^relations/[A-Za-z0-9]+$", "relations/DwZrfLa"),
        type: regex("^configuration/relationTypes/[A-Za-z]+$", "configuration/relationTypes/Employment"),
        startRefPinned: boolean(false),
        endRefPinned: boolean(false),
        startObject: { objectURI: entityUri("entities/7FCs6Hd") },
        endObject: { objectURI: entityUri("entities/44xnb5y") },
        crosswalks: eachLike({
          type: like("configuration/sources/CRM"),
          value: like("Hnn1VoX6mL"),
          createDate: isoDate("2026-01-06T04:55:56.224Z"),
        }),
      },
    },
  },
  [EVENT.interaction]: {
    uri: "interactions/dNwn9Sp",
    uriPattern: "^interactions/[A-Za-z0-9]+$",
    content: {
      type: "INTERACTION_CREATED",
      object: {
        uri: regex("^interactions/[A-Za-z0-9]+$", "interactions/dNwn9Sp"),
        type: like("configuration/interactionTypes/Email"),
        timestamp: number(1767688482806),
        members: like({}),
      },
    },
  },
  [EVENT.changeRequest]: {
    uri: "changeRequests/tMdnlNC",
    uriPattern: "^changeRequests/[A-Za-z0-9]+$",
    content: { type: "CHANGE_REQUEST_CREATED" },
  },
  [EVENT.entitiesSplitted]: {
    uri: "entities/44xnb5y",
    uriPattern: "^entities/[A-Za-z0-9]+$",
    content: {
      type: "ENTITIES_SPLITTED",
      object: { uri: entityUri("entities/44xnb5y"), type: like("configuration/entityTypes/Individual") },
      uris: eachLike(entityUri("entities/44xnb5y"), 2),
    },
  },
  [EVENT.largeObject]: {
    uri: "entities/7FCs6Hd",
    uriPattern: "^entities/[A-Za-z0-9]+$",
    content: { type: "ENTITY_CHANGED", uri: entityUri("entities/7FCs6Hd"), exceededQueueSizeLimit: true },
  },
};

describe(`pact ${CONSUMERS.events}`, () => {
  afterAll(() => {
    publish(eventMessages.map((spec) => spec.description));
  });

  it.each(eventMessages.map((spec) => [spec.description, spec] as const))(
    "receives %s",
    async (_name, spec) => {
      const expected = expectations[spec.description];
      await pact
        .addAsynchronousInteraction()
        .given(spec.state)
        .expectsToReceive(spec.description, (message) =>
          message
            .withMetadata({
              tenantId: like("acme"),
              eventType: spec.type,
              sourceObjectUri: regex(expected.uriPattern, expected.uri),
            })
            .withJSONContent(expected.content),
        )
        .executeTest(async (message) => {
          const handled = handleEvent(message.contents.content, message.metadata);
          expect(handled).toEqual({ type: spec.type, uri: expected.uri, tenantId: "acme" });
        });
    },
  );
});
