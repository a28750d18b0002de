// Team "Courier" — keeps a tiny key/value mirror of a tenant for a notification service.
// One record per object in a Map, plus a set of the deliveries already applied.
import * as fs from 'node:fs';

const cfg = {
  file: process.env.LCKIT_EVENTS_FILE,
  out: process.env.LCKIT_VIEW_FILE ?? 'view.ndjson',
  tenant: process.env.LCKIT_TENANT,
  total: Number(process.env.LCKIT_MESSAGES) || 0,
};

const KV = new Map();          // uri -> { removed, attributes, version }
const applied = new Set();     // `${uri}@${version}`

const removalTypes = [
  'ENTITY_REMOVED', 'ENTITY_REMOVED_GDPR', 'ENTITY_LOST_MERGE', 'RELATIONSHIP_REMOVED',
  'RELATIONSHIP_REMOVED_GDPR', 'RELATION_LOST_MERGE', 'INTERACTION_REMOVED', 'CHANGE_REQUEST_REMOVED',
  'GROUP_REMOVED',
];
const upsertTypes = [
  'ENTITY_CREATED', 'ENTITY_CHANGED', 'ENTITIES_SPLITTED', 'ENTITIES_MATCHES_CHANGED',
  'ENTITY_BUSINESS_PROCESS_CHANGED', 'RELATIONSHIP_CREATED', 'RELATIONSHIP_CHANGED', 'RELATIONSHIP_MERGED',
  'INTERACTION_CREATED', 'INTERACTION_CHANGED', 'CHANGE_REQUEST_CREATED', 'CHANGE_REQUEST_CHANGED',
  'GROUP_CREATED', 'GROUP_CHANGED',
];

function nameFromType(t) {
  const parts = String(t ?? '').split('/');
  const i = parts.indexOf('attributes');
  return i >= 0 && parts[i + 1] ? parts[i + 1] : null;
}

function keyOf(v) {
  if (v == null || typeof v !== 'object') return JSON.stringify(v);
  if (v.id != null) return `id:${v.id}`;
  if (typeof v.uri === 'string') return `id:${v.uri.split('/').at(-1)}`;
  return `v:${JSON.stringify(v.value)}`;
}

function patch(attributes, deltas) {
  const coll = deltas.deltaCollection && typeof deltas.deltaCollection === 'object' ? deltas.deltaCollection : deltas;
  if (!Array.isArray(coll.delta)) return attributes;
  const next = { ...(attributes ?? {}) };
  for (const d of coll.delta) {
    const name = nameFromType(d?.attributeType);
    if (!name) continue;
    const cur = [...(next[name] ?? [])];
    const oldKey = d.oldValue ? keyOf(d.oldValue) : null;
    if (d.type === 'ATTRIBUTE_ADDED' && d.newValue) {
      if (!cur.some((x) => keyOf(x) === keyOf(d.newValue))) cur.push(d.newValue);
    } else if (d.type === 'ATTRIBUTE_CHANGED' && d.newValue) {
      const pos = cur.findIndex((x) => keyOf(x) === oldKey);
      if (pos !== -1) cur[pos] = d.newValue;
      else if (cur.length === 1) cur[0] = d.newValue;
      else cur.push(d.newValue);
    } else if (d.type === 'ATTRIBUTE_REMOVED') {
      const pos = cur.findIndex((x) => keyOf(x) === oldKey);
      if (pos !== -1) cur.splice(pos, 1);
    } else continue;
    if (cur.length) next[name] = cur; else delete next[name];
  }
  return next;
}

function consume(msg) {
  const h = msg.headers ?? {};
  const body = msg.payload ?? {};
  if (cfg.tenant && h.tenantId && h.tenantId !== cfg.tenant) return;
  const type = h.eventType ?? body.type;
  const removal = removalTypes.includes(type);
  if (!removal && !upsertTypes.includes(type)) return;
  const uri = h.sourceObjectUri ?? body.uri ?? body.object?.uri;
  if (!uri) return;
  const version = h.objectVersion;
  if (version !== undefined && version !== null) {
    const idem = `${uri}@${version}`;
    if (applied.has(idem)) return;
    applied.add(idem);
  }
  const rec = KV.get(uri) ?? { removed: false, attributes: undefined, version: undefined };
  rec.removed = removal;
  if (version !== undefined && version !== null) rec.version = version;
  if (body.object && typeof body.object === 'object' && body.object.attributes && typeof body.object.attributes === 'object') {
    rec.attributes = body.object.attributes;
  } else if (body.deltas && typeof body.deltas === 'object') {
    rec.attributes = patch(rec.attributes, body.deltas);
  }
  KV.set(uri, rec);
}

let written = false;
function writeView() {
  if (written) return;
  written = true;
  const fd = fs.openSync(cfg.out, 'w');
  for (const [uri, rec] of KV) {
    const line = { uri, removed: rec.removed, objectVersion: rec.version };
    if (rec.attributes) line.attributes = rec.attributes;
    fs.writeSync(fd, JSON.stringify(line) + '\n');
  }
  fs.closeSync(fd);
  process.exit(0);
}
process.on('SIGTERM', writeView);

let pos = 0;
let partial = '';
let count = 0;
const started = Date.now();
const tick = () => {
  if (cfg.file && fs.existsSync(cfg.file)) {
    const data = fs.readFileSync(cfg.file);
    if (data.length > pos) {
      partial += data.subarray(pos).toString('utf8');
      pos = data.length;
      let nl;
      while ((nl = partial.indexOf('\n')) >= 0) {
        const line = partial.slice(0, nl);
        partial = partial.slice(nl + 1);
        if (!line.trim()) continue;
        count++;
        try { consume(JSON.parse(line)); } catch { /* not JSON: skip */ }
      }
    }
  }
  if (!cfg.file || cfg.total <= 0 || count >= cfg.total || Date.now() - started > 40000) {
    if (partial.trim()) { try { consume(JSON.parse(partial)); } catch { /* skip */ } }
    writeView();
    return;
  }
  setTimeout(tick, 100);
};
tick();
