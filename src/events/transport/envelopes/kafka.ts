// Kafka: a record as `kcat -C -J` prints it, {topic, partition, offset, tstype, ts, broker, headers, key,
// payload}: headers a flat list of name, value, name, value ...; the payload as text (null: a tombstone).
import { type EnvelopeName, fault, isRecord, segment, type Unwrapped, withTypedVersion } from "./envelope.ts";

const envelope: EnvelopeName = "kafka";

export function looksLikeKafka(value: Record<string, unknown>): boolean {
  return "topic" in value && "partition" in value && "offset" in value;
}

export function unwrapKafka(value: unknown): Unwrapped {
  if (!isRecord(value))
    fault(
      envelope,
      "/",
      "a record as kcat -J prints it {topic, partition, offset, headers, key, payload}",
      value,
    );
  const headers: Record<string, unknown> = {};
  const list = value.headers;
  if (list !== undefined && list !== null) {
    if (!Array.isArray(list) || list.length % 2 !== 0)
      fault(envelope, "/headers", "a list of header names and values, alternating (kcat -J)", list);
    for (let index = 0; index < list.length; index += 2) {
      const name = list[index];
      const text = list[index + 1];
      if (typeof name !== "string")
        fault(envelope, `/headers${segment(index)}`, "a header name (text)", name);
      if (text !== null && typeof text !== "string")
        fault(envelope, `/headers${segment(index + 1)}`, "the header's value as text or null", text);
      headers[name] = text;
    }
  }
  const payload = value.payload;
  if (payload === null)
    fault(
      envelope,
      "/payload",
      "the record's value as text; null is a tombstone (a deletion marker), not an event",
      payload,
    );
  // kcat with a deserializer (-s value=avro) prints the value as JSON itself: its text is the payload.
  if (payload !== null && typeof payload === "object")
    return { headers: withTypedVersion(headers), body: JSON.stringify(payload) };
  if (typeof payload !== "string")
    fault(envelope, "/payload", "the record's value as text (kcat -J prints it as a JSON string)", payload);
  return { headers: withTypedVersion(headers), body: payload };
}
