#!/usr/bin/env node
// An example event consumer for `lckit events consumer check` (Node 20+; dependencies only for the broker
// deliveries). It keeps a view of the tenant's objects from the CRUD events: per object its latest state
// by objectVersion (never by arrival or updatedTime), removed after a removal event, nothing of its data
// after a GDPR removal, the last known attributes after a large-object fallback or a snapshot whose object
// leaves them out (the filtering fields did not list them), and after a deltas message the attributes it
// leaves (it changes only those it lists); it skips event types it does not know and ignores fields it
// does not know. It reads the stream from $LCKIT_EVENTS_FILE, or from stdin when that is unset,
// one {"headers", "payload"} per line, takes Pub/Sub push requests or SNS notifications on
// $LCKIT_PUSH_PORT, consumes the RabbitMQ queue $LCKIT_AMQP_QUEUE at $LCKIT_AMQP_URL (AMQP 0-9-1, with
// amqplib) or receives from the AMQP 1.0 address $LCKIT_AMQP1_ADDRESS at $LCKIT_AMQP1_URL (with rhea),
// each client loaded only for its delivery; it writes its view to $LCKIT_VIEW_FILE when its input ends
// ($LCKIT_MESSAGES messages taken from a broker) or when it gets SIGTERM.
// Run it checked:
//   lckit events consumer check -- node examples/consumers/view-consumer.mjs
// The kit's tests also run it with one deliberate mistake (FAULT=<name>) to prove each consumer rule.
import { createReadStream, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createInterface } from "node:readline";

const FAULT = process.env.FAULT ?? "";
const VIEW_FILE = process.env.LCKIT_VIEW_FILE;
// A destination may carry other tenants' messages too: the tenantId header says whose a message is.
const TENANT = process.env.LCKIT_TENANT;
if (!VIEW_FILE) throw new Error("LCKIT_VIEW_FILE is not set; run me under lckit events consumer check");

// The event types of the document's table: anything else is skipped.
const KNOWN = new Set(
  "ENTITY_CREATED ENTITY_REMOVED ENTITY_REMOVED_GDPR ENTITY_LOST_MERGE ENTITY_CHANGED RELATIONSHIP_CREATED RELATIONSHIP_REMOVED RELATIONSHIP_REMOVED_GDPR RELATIONSHIP_CHANGED GROUP_CREATED GROUP_REMOVED GROUP_CHANGED INTERACTION_CREATED INTERACTION_REMOVED INTERACTION_CHANGED ENTITIES_SPLITTED ENTITIES_MATCHES_CHANGED RELATION_LOST_MERGE RELATIONSHIP_MERGED ENTITY_BUSINESS_PROCESS_CHANGED CHANGE_REQUEST_CREATED CHANGE_REQUEST_CHANGED CHANGE_REQUEST_REMOVED".split(
    " ",
  ),
);
const REMOVALS = new Set([
  "ENTITY_REMOVED",
  "ENTITY_REMOVED_GDPR",
  "ENTITY_LOST_MERGE",
  "RELATIONSHIP_REMOVED",
  "RELATIONSHIP_REMOVED_GDPR",
  "RELATION_LOST_MERGE",
  "INTERACTION_REMOVED",
  "CHANGE_REQUEST_REMOVED",
  "GROUP_REMOVED",
]);
const GDPR = new Set(["ENTITY_REMOVED_GDPR", "RELATIONSHIP_REMOVED_GDPR"]);
// The headers and payload fields the document defines: FAULT=rejects-unknown-fields drops a message that
// carries any other, as a consumer validating with a closed schema (additionalProperties: false) does.
const HEADERS = new Set(["tenantId", "eventType", "sourceObjectUri", "objectVersion"]);
const FIELDS = new Set(["type", "object", "ovChanged", "exceededQueueSizeLimit", "uri", "deltas", "uris"]);
const unknownField = (headers, payload) =>
  Object.keys(headers).some((name) => !HEADERS.has(name)) ||
  Object.keys(payload).some((name) => !FIELDS.has(name));

/** uri -> { uri, removed, objectVersion?, attributes?, updatedTime? } */
const view = new Map();
let stopped = false;
/** uri -> { version, attributes, pending: Map<objectVersion, deltas> }: the attributes an object's deltas
 *  leave, folded in objectVersion order from the last state known whole (a creation, a snapshot; after a
 *  fallback none is known): a deltas message that arrives after a later one still changed the
 *  attributes it lists, which the later one did not list. */
const folds = new Map();
let arrival = 0;

/** Whether a message of this version (and time) is newer than what the view holds. */
function isNewer(current, version, time) {
  if (!current) return true;
  if (FAULT === "last-arrival") return true;
  if (FAULT === "updated-time")
    return time === undefined || current.updatedTime === undefined || time > current.updatedTime;
  if (FAULT === "compares-as-text")
    return version === undefined || !(String(version) <= String(current.rawVersion));
  if (version === undefined || current.objectVersion === undefined) return true; // no objectVersion: arrival order
  if (FAULT === "resend-toggle") return version >= current.objectVersion;
  return version > current.objectVersion;
}

function apply({ headers = {}, payload = {} }) {
  if (TENANT && headers.tenantId !== undefined && headers.tenantId !== TENANT && FAULT !== "all-tenants")
    return;
  const type = headers.eventType ?? payload.type;
  const uri = headers.sourceObjectUri ?? payload.uri ?? payload.object?.uri;
  if (!KNOWN.has(type)) {
    if (FAULT === "stops-on-unknown") stopped = true;
    if (FAULT === "crashes-on-unknown") throw new Error(`unknown event type ${type}`);
    return;
  }
  if (typeof uri !== "string") return;
  if (FAULT === "rejects-unknown-fields" && unknownField(headers, payload)) return;
  // The header may be a number or a string of digits (Pub/Sub and SNS carry text): compare numbers.
  const raw = headers.objectVersion;
  // FAULT=numbers-only takes an objectVersion that comes as text (as cloud attributes carry it) for none.
  const version =
    raw === undefined || raw === null || raw === "" || (FAULT === "numbers-only" && typeof raw !== "number")
      ? undefined
      : Number(raw);
  const time = payload.object?.updatedTime ?? payload.deltas?.timestamp;
  const current = view.get(uri);
  // Without objectVersion the deltas are folded in arrival order.
  arrival += 1;
  const order = version ?? arrival;
  if (!isNewer(current, version, time)) {
    // An older deltas message, late: its changes still count where no later one changed the attribute.
    const late = payload.deltas && payload.exceededQueueSizeLimit !== true && !REMOVALS.has(type);
    if (late && !current.removed) current.attributes = foldDeltas(uri, order, type, payload.deltas);
    const fold = folds.get(uri);
    if (payload.exceededQueueSizeLimit === true && !REMOVALS.has(type) && fold && order > fold.version) {
      // A fallback that arrives late: what it changed is not known, so neither is what the deltas folded
      // across it give.
      folds.set(uri, { version: order, attributes: undefined, pending: new Map() });
      if (!current.removed) current.attributes = undefined;
    }
    return;
  }
  const at = { uri, objectVersion: version, rawVersion: raw, updatedTime: time };
  if (FAULT === "fallback-as-removal" && payload.exceededQueueSizeLimit === true) {
    view.set(uri, { ...at, removed: true });
    return;
  }
  if (REMOVALS.has(type)) {
    folds.delete(uri);
    if (FAULT === "ignores-removals") return;
    if (FAULT === "removal-as-change") {
      view.set(uri, {
        ...at,
        removed: false,
        attributes: current?.removed ? undefined : current?.attributes,
      });
      return;
    }
    if (FAULT === "resend-toggle" && version !== undefined && current?.objectVersion === version) {
      view.set(uri, { ...current, removed: !current.removed });
      return;
    }
    const keep = FAULT === "gdpr-keeps-data" && GDPR.has(type) ? { attributes: current?.attributes } : {};
    view.set(uri, { ...at, removed: true, ...keep });
    return;
  }
  const known = current?.removed ? undefined : current?.attributes;
  let attributes;
  if (payload.exceededQueueSizeLimit === true) {
    // A large object sent without its object: keep what the view knew.
    attributes = FAULT === "fallback-empty" ? {} : known;
    // What it changed is not known: deltas after it are not folded into attributes that may be stale.
    folds.set(uri, { version: order, attributes: undefined, pending: new Map() });
  } else if (payload.object) {
    // The object holds only the fields JMSEventsFilteringFields lists: without attributes it says nothing
    // of them (a member filtered out is not removed), so keep what the view knew.
    const given = "attributes" in payload.object || FAULT === "filtered-as-removed";
    attributes = given ? (payload.object.attributes ?? {}) : known;
    folds.set(uri, { version: order, attributes, pending: new Map() });
  } else if (payload.deltas) {
    attributes =
      FAULT === "deltas-as-snapshot"
        ? applyDeltas({}, payload.deltas)
        : foldDeltas(uri, order, type, payload.deltas, current && !current.removed ? known : {});
  }
  view.set(uri, { ...at, removed: false, attributes });
}

/** The object's attributes after a deltas message of objectVersion `order`: a creation starts from none
 *  (at a first message of another type, from `known`); every deltas message since is applied in
 *  objectVersion order, each changing only the attributes it lists. */
function foldDeltas(uri, order, type, deltas, known) {
  let fold = folds.get(uri);
  if (type.endsWith("_CREATED") && (!fold || order - 0.5 > fold.version)) {
    // A creation that arrives late starts the fold again under the later deltas it already has.
    const later = [...(fold?.pending ?? [])].filter(([v]) => v > order - 0.5);
    fold = { version: order - 0.5, attributes: {}, pending: new Map(later) };
    folds.set(uri, fold);
  } else if (!fold) {
    fold = { version: Number.NEGATIVE_INFINITY, attributes: known, pending: new Map() };
    folds.set(uri, fold);
  }
  if (order > fold.version) fold.pending.set(order, deltas);
  let attributes = fold.attributes;
  for (const v of [...fold.pending.keys()].sort((a, b) => a - b))
    if (v > fold.version) attributes = applyDeltas(attributes, fold.pending.get(v));
  return attributes;
}

/** The delta items of a deltas member: the document's delta message (deltaCollection.delta), its bare
 *  collection ({ovChanged, delta}) or an array; undefined for a structure the document does not show. */
function deltaItems(deltas) {
  if (Array.isArray(deltas)) return deltas;
  if (Array.isArray(deltas?.deltaCollection?.delta)) return deltas.deltaCollection.delta;
  if (Array.isArray(deltas?.delta)) return deltas.delta;
  return undefined;
}

/** Two attribute values are one: by their value where both have one, else by their id. */
function sameValue(a, b) {
  if (a?.value !== undefined && b?.value !== undefined)
    return JSON.stringify(a.value) === JSON.stringify(b.value);
  return a?.id !== undefined && a.id === b?.id;
}

/** The attributes after a deltas message (the document: "Only changed attributes are listed"):
 *  ATTRIBUTE_CHANGED replaces its oldValue with its newValue, ATTRIBUTE_REMOVED removes its oldValue, an
 *  item with only a newValue adds it; every attribute it does not list stays. Keyed by the attributeType's
 *  last segment, as snapshots key them. Undefined (not known) when the structure is not one of those, or
 *  the attributes before it were not known. */
function applyDeltas(attributes, deltas) {
  const items = deltaItems(deltas);
  if (items === undefined || attributes === undefined) return undefined;
  const next = { ...attributes };
  for (const item of items) {
    if (typeof item?.attributeType !== "string") continue;
    const name = item.attributeType.slice(item.attributeType.lastIndexOf("/") + 1);
    const values = [...(next[name] ?? [])];
    if (item.oldValue !== undefined) {
      const at = values.findIndex((v) => sameValue(v, item.oldValue));
      if (at >= 0) values.splice(at, 1);
    }
    if (item.newValue !== undefined && item.type !== "ATTRIBUTE_REMOVED") values.push(item.newValue);
    if (values.length > 0) next[name] = values;
    else delete next[name];
  }
  return next;
}

function writeView() {
  const lines = [];
  for (const { uri, removed, objectVersion, attributes } of view.values())
    lines.push(JSON.stringify({ uri, removed, objectVersion, attributes }));
  writeFileSync(VIEW_FILE, lines.length > 0 ? `${lines.join("\n")}\n` : "");
}

async function readLines(input) {
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    if (line.trim() === "") continue;
    apply(JSON.parse(line));
    if (stopped) break;
  }
  writeView();
}

/** A push request: Pub/Sub's {message: {data, attributes}} or SNS's Notification {Message, MessageAttributes}. */
function fromPush(body) {
  if (body.message) {
    const headers = { ...body.message.attributes };
    return { headers, payload: JSON.parse(Buffer.from(body.message.data, "base64").toString("utf8")) };
  }
  const headers = {};
  for (const [name, { Value }] of Object.entries(body.MessageAttributes ?? {})) headers[name] = Value;
  return { headers, payload: JSON.parse(body.Message) };
}

process.on("SIGTERM", () => {
  writeView();
  process.exit(0);
});

if (process.env.LCKIT_AMQP_URL) {
  const { default: amqp } = await import("amqplib");
  const connection = await amqp.connect(process.env.LCKIT_AMQP_URL);
  const channel = await connection.createChannel();
  await channel.prefetch(100);
  const expected = Number(process.env.LCKIT_MESSAGES);
  let taken = 0;
  await channel.consume(process.env.LCKIT_AMQP_QUEUE, async (message) => {
    if (message === null) return;
    if (!stopped)
      apply({ headers: message.properties.headers, payload: JSON.parse(message.content.toString("utf8")) });
    channel.ack(message);
    taken += 1;
    if (taken === expected) {
      writeView();
      await connection.close();
      process.exit(0);
    }
  });
} else if (process.env.LCKIT_AMQP1_URL) {
  const { default: rhea } = await import("rhea");
  const url = new URL(process.env.LCKIT_AMQP1_URL);
  const container = rhea.create_container();
  const connection = container.connect({
    host: url.hostname,
    port: Number(url.port || 5672),
    ...(url.username
      ? { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) }
      : {}),
    reconnect: false,
  });
  connection.open_receiver({ source: { address: process.env.LCKIT_AMQP1_ADDRESS }, credit_window: 100 });
  const expected = Number(process.env.LCKIT_MESSAGES);
  let taken = 0;
  container.on("message", (context) => {
    // The payload travels as a data section (bytes) or as a string.
    const body = context.message.body;
    const text = typeof body === "string" ? body : Buffer.from(body?.content ?? body).toString("utf8");
    if (!stopped) apply({ headers: context.message.application_properties ?? {}, payload: JSON.parse(text) });
    taken += 1;
    if (taken === expected) {
      writeView();
      connection.close();
      process.exit(0);
    }
  });
} else if (process.env.LCKIT_PUSH_PORT) {
  createServer((request, response) => {
    let text = "";
    request.setEncoding("utf8");
    request.on("data", (chunk) => {
      text += chunk;
    });
    request.on("end", () => {
      if (!stopped) apply(fromPush(JSON.parse(text)));
      response.writeHead(204).end();
    });
  }).listen(Number(process.env.LCKIT_PUSH_PORT), "127.0.0.1");
} else {
  const file = process.env.LCKIT_EVENTS_FILE;
  await readLines(file ? createReadStream(file) : process.stdin);
}
