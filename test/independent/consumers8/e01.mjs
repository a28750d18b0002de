// Search-index feeder: keeps the latest document of every object of the tenant for re-indexing.
// Events are kept per object and the newest one (by its modification stamp) wins.
import * as fs from 'node:fs';

const cfg = {
  file: process.env.LCKIT_EVENTS_FILE,
  view: process.env.LCKIT_VIEW_FILE,
  tenant: process.env.LCKIT_TENANT,
  expect: parseInt(process.env.LCKIT_MESSAGES ?? '0', 10) || 0,
};

const removing = ['ENTITY_REMOVED', 'ENTITY_REMOVED_GDPR', 'ENTITY_LOST_MERGE', 'RELATIONSHIP_REMOVED',
  'RELATIONSHIP_REMOVED_GDPR', 'RELATION_LOST_MERGE', 'INTERACTION_REMOVED', 'CHANGE_REQUEST_REMOVED'];
const keeping = ['ENTITY_CREATED', 'ENTITY_CHANGED', 'RELATIONSHIP_CREATED', 'RELATIONSHIP_CHANGED',
  'INTERACTION_CREATED', 'INTERACTION_CHANGED', 'CHANGE_REQUEST_CREATED', 'CHANGE_REQUEST_CHANGED',
  'ENTITIES_SPLITTED', 'ENTITIES_MATCHES_CHANGED', 'RELATIONSHIP_MERGED', 'ENTITY_BUSINESS_PROCESS_CHANGED'];

const docs = {}; // uri -> { stamp, objectVersion, removed, attributes, seen:Set }

const sortedJson = (v) => Array.isArray(v) ? `[${v.map(sortedJson).join(',')}]`
  : v && typeof v === 'object' ? `{${Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + sortedJson(v[k])).join(',')}}`
  : JSON.stringify(v);

// The modification stamp of an event: updatedTime of the object, else the timestamp of the delta message.
const stampOf = (p) => (p.object && Number.isFinite(p.object.updatedTime) ? p.object.updatedTime
  : p.deltas && Number.isFinite(p.deltas.timestamp) ? p.deltas.timestamp : null);

const nameOf = (t) => (t.split('/attributes/')[1] || '').split('/')[0];

function applyDeltas(uri, attrs, deltas) {
  const items = Array.isArray(deltas?.deltaCollection?.delta) ? deltas.deltaCollection.delta
    : Array.isArray(deltas?.delta) ? deltas.delta : [];
  if (!items.length) return attrs;
  const next = structuredClone(attrs ?? {});
  for (const d of items) {
    if (typeof d?.attributeType !== 'string') continue;
    const nm = nameOf(d.attributeType);
    if (!nm) continue;
    let list = next[nm] ?? [];
    if (d.oldValue) {
      const byId = list.filter((x) => !String(x.uri ?? '').endsWith('/' + d.oldValue.id));
      list = byId.length < list.length ? byId : list.filter((x) => sortedJson(x.value) !== sortedJson(d.oldValue.value));
    }
    if (d.type !== 'ATTRIBUTE_REMOVED' && d.newValue) {
      const { id, sources, ...keep } = d.newValue;
      const u = `${uri}/attributes/${nm}/${id}`;
      list = list.filter((x) => x.uri !== u).concat([{ type: d.attributeType, ...keep, uri: u }]);
    }
    if (list.length) next[nm] = list; else delete next[nm];
  }
  return next;
}

function onMessage(line) {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  const h = m?.headers || {}, p = (m?.payload && typeof m.payload === 'object') ? m.payload : {};
  if (cfg.tenant && h.tenantId && h.tenantId !== cfg.tenant) return;
  const type = h.eventType || p.type;
  if (!removing.includes(type) && !keeping.includes(type)) return;
  const uri = h.sourceObjectUri || p.uri || p.object?.uri;
  if (!uri) return;
  const doc = (docs[uri] ??= { stamp: -Infinity, removed: false, seen: new Set() });
  const fp = type + sortedJson(p);
  if (doc.seen.has(fp)) return;
  doc.seen.add(fp);
  const stamp = stampOf(p);
  if (stamp !== null && stamp < doc.stamp) return; // older than what the index holds
  if (stamp !== null) doc.stamp = stamp;
  if (Number.isInteger(h.objectVersion)) doc.objectVersion = h.objectVersion;
  if (type.endsWith('_CREATED') || type === 'ENTITY_REMOVED_GDPR') doc.attributes = undefined;
  if (type !== 'ENTITY_REMOVED_GDPR') {
    if (p.object && p.object.attributes && typeof p.object.attributes === 'object') doc.attributes = structuredClone(p.object.attributes);
    else if (p.deltas) doc.attributes = applyDeltas(uri, doc.attributes, p.deltas);
  }
  doc.removed = removing.includes(type);
}

function writeOut() {
  const rows = Object.entries(docs).map(([uri, d]) => {
    const row = { uri, removed: d.removed };
    if (d.objectVersion !== undefined) row.objectVersion = d.objectVersion;
    if (d.attributes && !d.removed) row.attributes = d.attributes;
    if (Number.isFinite(d.stamp)) row.indexedStamp = d.stamp;
    return JSON.stringify(row) + '\n';
  });
  fs.writeFileSync(cfg.view, rows.join(''));
  process.exit(0);
}
process.once('SIGTERM', writeOut);

let pos = 0, rest = '', count = 0;
const t0 = Date.now();
const timer = setInterval(() => {
  try {
    const fd = fs.openSync(cfg.file, 'r');
    const chunk = Buffer.alloc(65536);
    let n;
    while ((n = fs.readSync(fd, chunk, 0, chunk.length, pos)) > 0) { pos += n; rest += chunk.toString('utf8', 0, n); }
    fs.closeSync(fd);
  } catch { /* not there yet */ }
  let i;
  while ((i = rest.indexOf('\n')) >= 0) {
    const line = rest.slice(0, i); rest = rest.slice(i + 1);
    if (line.trim()) { count++; onMessage(line); }
  }
  if (!cfg.expect || count >= cfg.expect || Date.now() - t0 > 40000) {
    clearInterval(timer);
    if (rest.trim()) onMessage(rest);
    writeOut();
  }
}, 50);
