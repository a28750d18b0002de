// CRM cache (team "Sales Ops"): mirrors every tenant object into the CRM's local cache.
// Messages are de-duplicated by (object, objectVersion) and applied as the queue hands them over:
// the queue is FIFO per tenant, so the last message to arrive holds the current state.
// Extra members: objectType, ovValues (the ov=true values the CRM displays), stale (the latest
// event was a large-object fallback; the cache would re-read the object).
import { closeSync, openSync, readSync, writeFileSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";

const REMOVING = new Set([
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
const LIVING = new Set([
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
]);

const tenant = process.env.LCKIT_TENANT || "";
const objects = new Map(); // uri -> { records: [], byVersion: Map, seen: Set, objectType }
let arrival = 0;
let written = false;

function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

function versionOf(headers) {
  const v = headers.objectVersion;
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

function kindOf(type, payload) {
  if (payload.object && typeof payload.object === "object") return "snapshot";
  if (payload.deltas !== undefined && payload.deltas !== null) return "delta";
  if (payload.exceededQueueSizeLimit === true) return "fallback";
  if (type.startsWith("CHANGE_REQUEST_")) return "bare";
  return "fallback";
}

function accept(line) {
  if (!line.trim()) return;
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (!message || typeof message !== "object") return;
  const headers = message.headers && typeof message.headers === "object" ? message.headers : {};
  let payload = message.payload;
  if (typeof payload === "string") {
    try {
      payload = JSON.parse(payload);
    } catch {
      return;
    }
  }
  if (!payload || typeof payload !== "object") return;
  if (tenant && typeof headers.tenantId === "string" && headers.tenantId !== tenant) return;
  const type = headers.eventType || payload.type;
  const uri = headers.sourceObjectUri || payload.uri || payload.object?.uri;
  if (typeof type !== "string" || typeof uri !== "string") return;
  if (!REMOVING.has(type) && !LIVING.has(type)) return; // unknown or unsupported: not ours to act on
  let entry = objects.get(uri);
  if (!entry) {
    entry = { records: [], byVersion: new Map(), seen: new Set(), objectType: undefined };
    objects.set(uri, entry);
  }
  const version = versionOf(headers);
  const record = { type, version, kind: kindOf(type, payload), payload, arrival: arrival++ };
  if (version === undefined) {
    const key = canonical([type, payload]);
    if (entry.seen.has(key)) return; // a re-send of something already held
    entry.seen.add(key);
    entry.records.push(record);
    return;
  }
  const held = entry.byVersion.get(version);
  if (held) {
    // A re-send of the same change: only a fuller copy replaces a fallback.
    if (held.kind === "fallback" && record.kind !== "fallback") {
      entry.records[entry.records.indexOf(held)] = record;
      entry.byVersion.set(version, record);
    }
    return;
  }
  entry.byVersion.set(version, record);
  entry.records.push(record);
}

function deltaItems(deltas) {
  if (Array.isArray(deltas)) return deltas;
  if (!deltas || typeof deltas !== "object") return null;
  if (Array.isArray(deltas.delta)) return deltas.delta;
  if (deltas.deltaCollection && Array.isArray(deltas.deltaCollection.delta)) {
    return deltas.deltaCollection.delta;
  }
  return null;
}

function attributeName(attributeType) {
  if (typeof attributeType !== "string") return null;
  const parts = attributeType.split("/attributes/");
  if (parts.length !== 2 || !parts[1] || parts[1].includes("/")) return null;
  return parts[1];
}

function sameValue(a, b) {
  if (!a || !b) return false;
  if (a.id !== undefined && b.id !== undefined) return a.id === b.id;
  return canonical(a.value) === canonical(b.value);
}

// Returns the attributes after the deltas, or null when the result cannot be known.
function applyDeltas(uri, attributes, items) {
  const next = structuredClone(attributes);
  for (const item of items) {
    if (!item || typeof item !== "object") return null;
    const name = attributeName(item.attributeType);
    if (!name) return null;
    const values = next[name] ? next[name] : [];
    const find = (v) => values.findIndex((held) => sameValue(held.__delta, v));
    const fromDelta = (v) => ({
      type: item.attributeType,
      ov: v.ov,
      value: v.value,
      uri: `${uri}/attributes/${name}/${v.id}`,
      ...Object.fromEntries(
        Object.entries(v).filter(([k]) => !["ov", "value", "id", "sources"].includes(k)),
      ),
      __delta: v,
    });
    if (item.type === "ATTRIBUTE_ADDED") {
      if (!item.newValue) return null;
      const at = find(item.newValue);
      if (at >= 0) values[at] = fromDelta(item.newValue);
      else values.push(fromDelta(item.newValue));
    } else if (item.type === "ATTRIBUTE_CHANGED") {
      if (!item.newValue) return null;
      let at = find(item.oldValue);
      if (at < 0) at = find(item.newValue);
      if (at < 0) return null;
      values[at] = fromDelta(item.newValue);
    } else if (item.type === "ATTRIBUTE_REMOVED") {
      const at = find(item.oldValue);
      if (at < 0) return null;
      values.splice(at, 1);
    } else {
      return null;
    }
    if (values.length) next[name] = values;
    else delete next[name];
  }
  return next;
}

// Snapshot attributes get a hidden __delta twin so later deltas can find them by id.
function fromSnapshot(attributes) {
  const out = {};
  for (const [name, values] of Object.entries(attributes)) {
    if (!Array.isArray(values)) continue;
    out[name] = values.map((v) => {
      const id = typeof v?.uri === "string" ? v.uri.split("/").pop() : undefined;
      return { ...v, __delta: { id, value: v?.value } };
    });
  }
  return out;
}

function stripHidden(attributes) {
  const out = {};
  for (const [name, values] of Object.entries(attributes)) {
    out[name] = values.map(({ __delta, ...rest }) => rest);
  }
  return out;
}

function fold(uri, entry) {
  const ordered = [...entry.records].sort((a, b) => a.arrival - b.arrival);
  let state = null;
  for (const r of ordered) {
    if (state?.gdpr && r.type !== "ENTITY_CREATED" && r.type !== "ENTITY_REMOVED_GDPR") continue;
    if (REMOVING.has(r.type)) {
      state = { removed: true, gdpr: r.type === "ENTITY_REMOVED_GDPR", version: r.version };
      continue;
    }
    const previous = state && !state.removed ? state.attributes : undefined;
    const next = { removed: false, gdpr: false, version: r.version, stale: false };
    if (r.kind === "snapshot") {
      const carried = r.payload.object.attributes;
      next.attributes = carried && typeof carried === "object" ? fromSnapshot(carried) : undefined;
      if (typeof r.payload.object.type === "string") entry.objectType = r.payload.object.type;
    } else if (r.kind === "delta") {
      const base = r.type.endsWith("_CREATED") ? {} : previous;
      const items = deltaItems(r.payload.deltas);
      next.attributes = base && items ? applyDeltas(uri, base, items) || undefined : undefined;
      next.unknown = !next.attributes;
    } else if (r.kind === "fallback") {
      next.stale = true;
      next.unknown = true;
    }
    state = next;
  }
  return state;
}

function writeView() {
  if (written) return;
  written = true;
  const lines = [];
  for (const [uri, entry] of objects) {
    const state = fold(uri, entry);
    if (!state) continue;
    const line = { uri, removed: state.removed };
    if (!state.unknown && state.version !== undefined) line.objectVersion = state.version;
    if (!state.removed && !state.unknown && state.attributes) {
      line.attributes = stripHidden(state.attributes);
      line.ovValues = Object.fromEntries(
        Object.entries(line.attributes)
          .map(([n, vs]) => [n, vs.filter((v) => v.ov === true).map((v) => v.value)])
          .filter(([, vs]) => vs.length),
      );
    }
    if (state.stale) line.stale = true;
    if (entry.objectType && !state.gdpr) line.objectType = entry.objectType;
    lines.push(JSON.stringify(line));
  }
  writeFileSync(process.env.LCKIT_VIEW_FILE, lines.length ? `${lines.join("\n")}\n` : "");
}

process.on("SIGTERM", () => {
  writeView();
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

await follow(process.env.LCKIT_EVENTS_FILE, Number(process.env.LCKIT_MESSAGES), accept);
writeView();
process.exit(0);
