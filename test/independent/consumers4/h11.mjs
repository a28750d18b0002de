// Consent service (team "Privacy Engineering"): keeps every tenant object to answer consent
// look-ups. (object, objectVersion) is the idempotency key of a change: a second message with the
// same key is a re-send. After a large-object fallback it goes on showing the newest full state it
// has (with that state's objectVersion) and flags `refetch`. Deltas are applied only over an
// unbroken run of versions. Extra members: kind, edge, refetch.
import { closeSync, openSync, readSync, writeFileSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";

const GONE = [
  "ENTITY_REMOVED",
  "ENTITY_REMOVED_GDPR",
  "ENTITY_LOST_MERGE",
  "RELATIONSHIP_REMOVED",
  "RELATIONSHIP_REMOVED_GDPR",
  "RELATION_LOST_MERGE",
  "INTERACTION_REMOVED",
  "CHANGE_REQUEST_REMOVED",
  "GROUP_REMOVED",
];
const ALIVE = [
  "ENTITY_CREATED",
  "ENTITY_CHANGED",
  "RELATIONSHIP_CREATED",
  "RELATIONSHIP_CHANGED",
  "RELATIONSHIP_MERGED",
  "INTERACTION_CREATED",
  "INTERACTION_CHANGED",
  "ENTITIES_SPLITTED",
  "ENTITIES_MATCHES_CHANGED",
  "ENTITY_BUSINESS_PROCESS_CHANGED",
  "CHANGE_REQUEST_CREATED",
  "CHANGE_REQUEST_CHANGED",
  "GROUP_CREATED",
  "GROUP_CHANGED",
];
const MEANING = new Map([...GONE.map((t) => [t, "gone"]), ...ALIVE.map((t) => [t, "alive"])]);

const nodes = new Map(); // uri -> { versions: Map<number, msg>, loose: [], keys: Set, seenVersions: Set }
let order = 0;
let finished = false;

const sortedJson = (v) =>
  Array.isArray(v)
    ? `[${v.map(sortedJson).join(",")}]`
    : v && typeof v === "object"
      ? `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${sortedJson(v[k])}`)
          .join(",")}}`
      : JSON.stringify(v);

function readVersion(raw) {
  if (typeof raw === "number" && Number.isFinite(raw)) return raw;
  if (typeof raw === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(raw)) return Number(raw);
  return 0; // no version yet: the first one
}

function shapeOf(type, payload) {
  if (payload.object && typeof payload.object === "object") return "full";
  if (payload.deltas != null) return "delta";
  if (payload.exceededQueueSizeLimit === true) return "fallback";
  return type.startsWith("CHANGE_REQUEST_") ? "nameOnly" : "fallback";
}

function ingest(text) {
  let msg;
  try {
    msg = JSON.parse(text);
  } catch {
    return;
  }
  if (!msg || typeof msg !== "object") return;
  const headers = msg.headers && typeof msg.headers === "object" ? msg.headers : {};
  let payload = msg.payload;
  if (typeof payload === "string") {
    try {
      payload = JSON.parse(payload);
    } catch {
      return;
    }
  }
  if (!payload || typeof payload !== "object") return;
  const wanted = process.env.LCKIT_TENANT;
  if (wanted && typeof headers.tenantId === "string" && headers.tenantId !== wanted) return;
  const type = headers.eventType ?? payload.type;
  const uri = headers.sourceObjectUri ?? payload.uri ?? payload.object?.uri;
  if (typeof type !== "string" || typeof uri !== "string") return;
  const version = readVersion(headers.objectVersion);
  let node = nodes.get(uri);
  if (!node) {
    node = { versions: new Map(), loose: [], keys: new Set(), seenVersions: new Set() };
    nodes.set(uri, node);
  }
  if (version !== null) node.seenVersions.add(version);
  if (!MEANING.has(type)) return; // a type we have no meaning for: seen, not acted on
  const m = { type, version, shape: shapeOf(type, payload), payload, order: order++ };
  if (version === null) {
    const key = sortedJson({ type, payload });
    if (!node.keys.has(key)) {
      node.keys.add(key);
      node.loose.push(m);
    }
    return;
  }
  const held = node.versions.get(version);
  if (!held || (held.shape === "fallback" && m.shape !== "fallback")) node.versions.set(version, m);
}

function itemsOf(deltas) {
  if (Array.isArray(deltas)) return deltas;
  if (Array.isArray(deltas?.delta)) return deltas.delta;
  if (Array.isArray(deltas?.deltaCollection?.delta)) return deltas.deltaCollection.delta;
  return null;
}

const idOf = (v) =>
  v?.id ?? (typeof v?.uri === "string" ? v.uri.slice(v.uri.lastIndexOf("/") + 1) : undefined);

function matches(a, b) {
  const ia = idOf(a);
  const ib = idOf(b);
  if (ia !== undefined && ib !== undefined) return ia === ib;
  return sortedJson(a?.value) === sortedJson(b?.value);
}

// null: cannot tell what the deltas leave
function patch(uri, attributes, items) {
  const out = {};
  for (const [k, v] of Object.entries(attributes)) out[k] = [...v];
  for (const it of items) {
    const path = typeof it?.attributeType === "string" ? it.attributeType.split("/attributes/") : [];
    if (path.length !== 2 || !path[1] || path[1].includes("/")) return null;
    const name = path[1];
    const list = out[name] ?? [];
    const make = (v) => ({
      ...v,
      type: it.attributeType,
      uri: `${uri}/attributes/${name}/${v.id}`,
    });
    const at = (v) => list.findIndex((x) => matches(x, v));
    if (it.type === "ATTRIBUTE_ADDED" && it.newValue) {
      const i = at(it.newValue);
      if (i >= 0) list[i] = make(it.newValue);
      else list.push(make(it.newValue));
    } else if (it.type === "ATTRIBUTE_CHANGED" && it.newValue) {
      let i = at(it.oldValue);
      if (i < 0) i = at(it.newValue);
      if (i < 0) return null;
      list[i] = make(it.newValue);
    } else if (it.type === "ATTRIBUTE_REMOVED") {
      const i = at(it.oldValue);
      if (i < 0) return null;
      list.splice(i, 1);
    } else {
      return null;
    }
    if (list.length) out[name] = list;
    else delete out[name];
  }
  return out;
}

function resolve(uri, node) {
  const all = [...node.versions.values(), ...node.loose];
  const byVersion = node.loose.length === 0;
  all.sort((a, b) => (byVersion ? a.version - b.version : a.order - b.order));
  // held: the newest state we fully know; latest: what the newest event says about existence
  let held = null;
  let alive = null;
  let erased = false;
  // the delta chain: unbroken up to chain.version (null when versionless)
  let chain = { ok: false, version: null };
  const allSeen = (from, to) => {
    for (let v = from + 1; v < to; v++) if (!node.seenVersions.has(v)) return false;
    return true;
  };
  for (const m of all) {
    if (erased && m.type !== "ENTITY_CREATED" && m.type !== "ENTITY_REMOVED_GDPR") continue;
    if (MEANING.get(m.type) === "gone") {
      alive = false;
      erased = m.type === "ENTITY_REMOVED_GDPR";
      held = { version: m.version, attributes: null, edge: null };
      chain = { ok: false, version: null };
      continue;
    }
    if (alive === false) held = null; // a new life: nothing of the removed state carries over
    alive = true;
    erased = false;
    if (m.shape === "full") {
      const o = m.payload.object;
      const edge =
        o.startObject || o.endObject
          ? { from: o.startObject?.objectURI ?? null, to: o.endObject?.objectURI ?? null }
          : (held?.edge ?? null);
      const attrs = o.attributes && typeof o.attributes === "object" ? o.attributes : null;
      held = { version: m.version, attributes: attrs, edge, refetch: false };
      chain = { ok: attrs !== null, version: m.version };
    } else if (m.shape === "nameOnly") {
      held = { version: m.version, attributes: null, edge: null, refetch: false };
      chain = { ok: false, version: null };
    } else if (m.shape === "fallback") {
      if (!held || held.version === m.version) held = { version: null, attributes: null, edge: null };
      held.refetch = true;
      chain = { ok: false, version: null };
    } else {
      const creating = m.type.endsWith("_CREATED");
      const unbroken =
        creating ||
        (chain.ok && (m.version === null || chain.version === null || allSeen(chain.version, m.version)));
      const items = itemsOf(m.payload.deltas);
      const base = creating ? {} : held?.attributes;
      const next = unbroken && items && base ? patch(uri, base, items) : null;
      if (next) {
        held = { version: m.version, attributes: next, edge: held?.edge ?? null, refetch: false };
        chain = { ok: true, version: m.version };
      } else {
        // keep showing what we hold, but it is no longer the newest state
        if (!held || creating) held = { version: null, attributes: null, edge: null };
        held.refetch = true;
        chain = { ok: false, version: null };
      }
    }
  }
  if (alive === null) return null;
  const line = { uri, removed: !alive };
  if (held?.version != null) line.objectVersion = held.version;
  if (alive && held?.attributes) line.attributes = held.attributes;
  line.kind = uri.split("/")[0];
  if (alive && held?.edge) line.edge = held.edge;
  if (alive && held?.refetch) line.refetch = true;
  return line;
}

function flush() {
  if (finished) return;
  finished = true;
  const lines = [];
  for (const uri of [...nodes.keys()].sort()) {
    const line = resolve(uri, nodes.get(uri));
    if (line) lines.push(JSON.stringify(line));
  }
  writeFileSync(process.env.LCKIT_VIEW_FILE, lines.map((l) => `${l}\n`).join(""));
}

process.on("SIGTERM", () => {
  flush();
  process.exit(0);
});

// Follows the stream file: when it holds fewer lines than LCKIT_MESSAGES it may still be being
// written, so keep reading until the count is reached, a deadline passes or SIGTERM arrives.
async function follow(path, expected, onLine) {
  const fd = path && path !== "-" ? openSync(path, "r") : 0;
  const decoder = new StringDecoder("utf8");
  const chunk = Buffer.alloc(1 << 20);
  const deadline = Date.now() + 40000;
  let pending = "";
  let count = 0;
  for (;;) {
    const n = readSync(fd, chunk, 0, chunk.length, null);
    if (n > 0) {
      pending += decoder.write(chunk.subarray(0, n));
      let start = 0;
      for (let end = pending.indexOf("\n"); end >= 0; end = pending.indexOf("\n", start)) {
        const line = pending.slice(start, end);
        if (line.trim()) {
          count++;
          onLine(line);
        }
        start = end + 1;
      }
      pending = pending.slice(start);
      continue;
    }
    const seen = count + (pending.trim() ? 1 : 0);
    if (!(expected > 0) || seen >= expected || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (fd !== 0) closeSync(fd);
  pending += decoder.end();
  if (pending.trim()) onLine(pending);
}

await follow(process.env.LCKIT_EVENTS_FILE, Number(process.env.LCKIT_MESSAGES), (line) =>
  ingest(line.trim()),
);
flush();
process.exit(0);
