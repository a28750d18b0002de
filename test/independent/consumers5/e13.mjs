#!/usr/bin/env node
// Field-force sync gateway: mirrors a tenant's objects for offline tablets. Message headers are
// normalised as they come off the queue; messages are replayed per object when the view is written.
import fs from 'node:fs';

const TENANT = process.env.LCKIT_TENANT || '';
const EVENTS_FILE = process.env.LCKIT_EVENTS_FILE;
const VIEW_FILE = process.env.LCKIT_VIEW_FILE || 'view.ndjson';
const EXPECTED = Number(process.env.LCKIT_MESSAGES || 0);
const FOLLOW_MS = 40000;

const REMOVALS = new Set([
  'ENTITY_REMOVED', 'ENTITY_REMOVED_GDPR', 'ENTITY_LOST_MERGE', 'RELATIONSHIP_REMOVED',
  'RELATIONSHIP_REMOVED_GDPR', 'RELATION_LOST_MERGE', 'INTERACTION_REMOVED', 'CHANGE_REQUEST_REMOVED',
  'GROUP_REMOVED',
]);
const LIVE = new Set([
  'ENTITY_CREATED', 'ENTITY_CHANGED', 'RELATIONSHIP_CREATED', 'RELATIONSHIP_CHANGED', 'RELATIONSHIP_MERGED',
  'INTERACTION_CREATED', 'INTERACTION_CHANGED', 'ENTITIES_SPLITTED', 'ENTITIES_MATCHES_CHANGED',
  'ENTITY_BUSINESS_PROCESS_CHANGED', 'CHANGE_REQUEST_CREATED', 'CHANGE_REQUEST_CHANGED', 'GROUP_CREATED',
  'GROUP_CHANGED',
]);

const inbox = new Map(); // uri -> [{seq, version, type, payload}]
const stats = { lines: 0, skippedTenant: 0, unknownType: 0, bad: 0 };
let seq = 0;

function accept(line) {
  let msg;
  try { msg = JSON.parse(line); } catch { stats.bad++; return; }
  const headers = msg && typeof msg.headers === 'object' && msg.headers ? msg.headers : {};
  const payload = msg && typeof msg.payload === 'object' && msg.payload ? msg.payload : {};
  if (TENANT && headers.tenantId !== undefined && headers.tenantId !== TENANT) { stats.skippedTenant++; return; }
  const type = headers.eventType || payload.type;
  const uri = headers.sourceObjectUri || payload.uri || payload.object?.uri;
  if (!uri || !type) { stats.bad++; return; }
  if (!REMOVALS.has(type) && !LIVE.has(type)) { stats.unknownType++; return; }
  const v = headers.objectVersion;
  const version = v === undefined || v === null || v === '' ? null : String(v);
  if (!inbox.has(uri)) inbox.set(uri, []);
  inbox.get(uri).push({ seq: seq++, version, type, payload });
}

function attrName(attributeType) {
  const i = attributeType.indexOf('/attributes/');
  return i < 0 ? attributeType : attributeType.slice(i + '/attributes/'.length);
}
function valueId(v) {
  if (!v) return undefined;
  if (v.id !== undefined) return String(v.id);
  if (typeof v.uri === 'string') return v.uri.split('/').pop();
  return undefined;
}
function deltaItems(deltas) {
  if (!deltas || typeof deltas !== 'object') return null;
  if (Array.isArray(deltas.delta)) return deltas.delta;
  if (deltas.deltaCollection && Array.isArray(deltas.deltaCollection.delta)) return deltas.deltaCollection.delta;
  if (Array.isArray(deltas)) return deltas;
  return null; // a structure we do not know
}
function toValue(uri, item, nv) {
  const name = attrName(item.attributeType);
  const out = { type: item.attributeType, ov: nv.ov, value: nv.value };
  if (nv.id !== undefined) out.uri = `${uri}/attributes/${name}/${nv.id}`;
  for (const k of Object.keys(nv)) if (!['id', 'sources', 'value', 'ov'].includes(k)) out[k] = nv[k];
  return out;
}
function applyDeltas(uri, attrs, items) {
  for (const item of items) {
    if (!item || typeof item.attributeType !== 'string') continue;
    const name = attrName(item.attributeType);
    const list = attrs[name] ? [...attrs[name]] : [];
    const oldId = valueId(item.oldValue);
    const at = oldId === undefined ? -1 : list.findIndex((x) => valueId(x) === oldId);
    if (item.type === 'ATTRIBUTE_REMOVED') {
      if (at >= 0) list.splice(at, 1);
    } else if (item.type === 'ATTRIBUTE_CHANGED' || item.type === 'ATTRIBUTE_ADDED') {
      if (!item.newValue) continue;
      const nv = toValue(uri, item, item.newValue);
      if (at >= 0) list[at] = nv;
      else if (!list.some((x) => valueId(x) !== undefined && valueId(x) === String(item.newValue.id))) list.push(nv);
    } else continue; // delta item type we do not know: leave the attribute alone
    if (list.length) attrs[name] = list; else delete attrs[name];
  }
}

function replay(uri, events) {
  const versioned = events.every((e) => e.version !== null);
  const cmp = (x, y) => (x < y ? -1 : x > y ? 1 : 0);
  const ordered = [...events].sort((a, b) => (versioned ? cmp(a.version, b.version) : 0) || a.seq - b.seq);
  const st = { uri, removed: false, version: null, attributes: null, lastType: null };
  let prev;
  for (const e of ordered) {
    if (versioned && prev !== undefined && e.version === prev) continue; // re-send
    prev = e.version;
    st.lastType = e.type;
    st.version = e.version;
    if (REMOVALS.has(e.type)) { st.removed = true; st.attributes = null; continue; }
    st.removed = false;
    const p = e.payload;
    if (p.object && typeof p.object === 'object') {
      st.attributes = p.object.attributes && typeof p.object.attributes === 'object' ? structuredClone(p.object.attributes) : {};
    } else if (p.deltas !== undefined) {
      const items = deltaItems(p.deltas);
      if (items === null) continue; // unknown delta structure: nothing we can apply
      if (st.attributes === null && /_CREATED$/.test(e.type)) st.attributes = {};
      if (st.attributes !== null) applyDeltas(uri, st.attributes, items);
    } else if (p.exceededQueueSizeLimit === true) {
      st.attributes = null; // state is newer than anything we hold, contents not sent
    } else if (/_CREATED$/.test(e.type)) {
      st.attributes = null; // change requests carry only the event name
    }
  }
  return st;
}

let done = false;
function finish(code = 0) {
  if (done) return;
  done = true;
  const out = [];
  for (const [uri, events] of inbox) {
    const st = replay(uri, events);
    const row = { uri, removed: st.removed };
    if (st.version !== null) row.objectVersion = Number(st.version);
    if (!st.removed && st.attributes !== null) row.attributes = st.attributes;
    row.lastEventType = st.lastType;
    out.push(JSON.stringify(row));
  }
  fs.writeFileSync(VIEW_FILE, out.length ? out.join('\n') + '\n' : '');
  process.stderr.write(`e13: ${stats.lines} lines, ${inbox.size} objects, ${stats.unknownType} unknown types, ${stats.bad} unreadable\n`);
  process.exit(code);
}
process.on('SIGTERM', () => finish(0));

let offset = 0;
let partial = '';
const started = Date.now();
function poll() {
  if (done) return;
  try {
    const fd = fs.openSync(EVENTS_FILE, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      if (size > offset) {
        const buf = Buffer.alloc(size - offset);
        fs.readSync(fd, buf, 0, buf.length, offset);
        offset = size;
        partial += buf.toString('utf8');
        const lines = partial.split('\n');
        partial = lines.pop();
        for (const line of lines) if (line.trim()) { stats.lines++; accept(line); }
      }
    } finally { fs.closeSync(fd); }
  } catch { /* file not there yet */ }
  const waited = Date.now() - started;
  if (stats.lines >= EXPECTED || waited >= FOLLOW_MS) {
    if (partial.trim()) { stats.lines++; accept(partial); partial = ''; }
    finish(0);
    return;
  }
  setTimeout(poll, 100);
}
poll();
