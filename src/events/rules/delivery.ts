// Delivery: a message is one JSON document, and delivery may repeat or reorder messages.

import { deliveryTolerance, rule } from "../document/requirements.ts";
import { eventRule } from "./event-rule.ts";

export const oneJsonDocument = eventRule({
  requirements: [rule.json],
  judge: {
    foundBy:
      "reading the message (src/events/check/read-message.ts): too large, a faulty envelope, not JSON, nested too deep or not an object, and nothing else judges it",
    judgedWith: "every message",
  },
});

export const redeliveryTolerated = eventRule({
  requirements: [deliveryTolerance],
  judge: {
    foundBy:
      "the stream rules, as a tolerance (src/events/check/stream-rules.ts): the redeliveries and reorderings they tolerated; it never fails a stream",
    judgedWith: "every message",
  },
});
