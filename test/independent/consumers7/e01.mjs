// Customer-360 cache loader: collects every message, then rebuilds each object's
// state by replaying its events in objectVersion order.
import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

const tenant = process.env.LCKIT_TENANT;
const inFile = process.env.LCKIT_EVENTS_FILE;
const outFile = process.env.LCKIT_VIEW_FILE;
const expected = Number(process.env.LCKIT_MESSAGES || 0);

const REMOVALS = new Set(['ENTITY_REMOVED', 'ENTITY_REMOVED_GDPR', 'ENTITY_LOST_MERGE', 'RELATIONSHIP_REMOVED',
  'RELATIONSHIP_REMOVED_GDPR', 'RELATION_LOST_MERGE', 'INTERACTION_REMOVED', 'CHANGE_REQUEST_REMOVED', 'GROUP_REMOVED']);
const KNOWN = new Set([...REMOVALS, 'ENTITY_CREATED', 'ENTITY_CHANGED', 'RELATIONSHIP_CREATED', 'RELATIONSHIP_CHANGED',
  'GROUP_CREATED', 'GROUP_CHANGED', 'INTERACTION_CREATED', 'INTERACTION_CHANGED', 'ENTITIES_SPLITTED',
  'ENTITIES_MATCHES_CHANGED', 'RELATIONSHIP_MERGED', 'ENTITY_BUSINESS_PROCESS_CHANGED', 'CHANGE_REQUEST_CREATED',
  'CHANGE_REQUEST_CHANGED']);

const log = new Map(); // uri -> array of {ver, seq, type, payload}
let seq = 0;
let consumed = 0;
let done = false;

function take(line) {
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  if (!msg || typeof msg !== 'object') return;
  const h = msg.headers || {};
  const p = msg.payload && typeof msg.payload === 'object' ? msg.payload : {};
  if (tenant && h.tenantId !== undefined && h.tenantId !== tenant) return;
  const type = h.eventType || p.type;
  if (!KNOWN.has(type)) return;
  const uri = h.sourceObjectUri || p.uri || (p.object && p.object.uri);
  if (!uri) return;
  const v = h.objectVersion === undefined || h.objectVersion === null ? null : Number(h.objectVersion);
  if (!log.has(uri)) log.set(uri, []);
  log.get(uri).push({ ver: Number.isFinite(v) ? v : null, seq: seq++, type, p });
}

function deltaItems(d) {
  if (!d || typeof d !== 'object') return [];
  if (d.deltaCollection && Array.isArray(d.deltaCollection.delta)) return d.deltaCollection.delta;
  if (Array.isArray(d.delta)) return d.delta;
  return [];
}

function applyDeltas(attrs, items) {
  for (const it of items) {
    if (!it || typeof it.attributeType !== 'string') continue;
    const name = it.attributeType.split('/').pop();
    const list = attrs[name] ? [...attrs[name]] : [];
    const oldId = it.oldValue && it.oldValue.id;
    const idx = oldId !== undefined ? list.findIndex((x) => x && x.id === oldId) : -1;
    if (it.type === 'ATTRIBUTE_REMOVED') {
      if (idx >= 0) list.splice(idx, 1);
    } else if (it.newValue !== undefined) {
      const dup = list.findIndex((x) => x && it.newValue && x.id === it.newValue.id);
      if (idx >= 0) list[idx] = it.newValue;
      else if (dup >= 0) list[dup] = it.newValue;
      else list.push(it.newValue);
    }
    if (list.length) attrs[name] = list; else delete attrs[name];
  }
}

function rebuild(events) {
  // versioned events sort by version; unversioned keep delivery order
  const ordered = [...events].sort((a, b) => {
    if (a.ver !== null && b.ver !== null && a.ver !== b.ver) return a.ver - b.ver;
    return a.seq - b.seq;
  });
  const state = { removed: false, ver: undefined, attrs: undefined };
  const applied = new Set();
  for (const e of ordered) {
    if (e.ver !== null) {
      if (applied.has(e.ver)) continue; // re-send of a change already applied
      applied.add(e.ver);
      state.ver = e.ver;
    }
    state.removed = REMOVALS.has(e.type);
    const p = e.p;
    if (p.object && typeof p.object === 'object') {
      if (p.object.attributes && typeof p.object.attributes === 'object') state.attrs = p.object.attributes;
    } else if (p.deltas !== undefined && !p.exceededQueueSizeLimit) {
      const a = { ...(state.attrs || {}) };
      applyDeltas(a, deltaItems(p.deltas));
      state.attrs = a;
    }
    if (e.type === 'ENTITY_REMOVED_GDPR') state.attrs = undefined;
  }
  return state;
}

function finish() {
  if (done) return;
  done = true;
  const out = [];
  for (const [uri, events] of log) {
    const s = rebuild(events);
    const line = { uri, removed: s.removed };
    if (s.ver !== undefined) line.objectVersion = s.ver;
    if (s.attrs !== undefined && !s.removed) line.attributes = s.attrs;
    line.eventsSeen = events.length;
    out.push(JSON.stringify(line));
  }
  fs.writeFileSync(outFile, out.length ? out.join('\n') + '\n' : '');
  process.exit(0);
}

process.on('SIGTERM', finish);

const started = Date.now();
let carry = '';
const utf8 = new StringDecoder('utf8');
let offset = 0;
function poll() {
  if (done) return;
  let buf = Buffer.alloc(0);
  try {
    const fd = fs.openSync(inFile, 'r');
    const size = fs.fstatSync(fd).size;
    if (size > offset) {
      buf = Buffer.alloc(size - offset);
      fs.readSync(fd, buf, 0, buf.length, offset);
      offset = size;
    }
    fs.closeSync(fd);
  } catch { /* file may not exist yet */ }
  const text = carry + utf8.write(buf);
  const parts = text.split('\n');
  carry = parts.pop();
  for (const line of parts) { if (line.trim()) { consumed++; take(line); } }
  if (consumed >= expected || Date.now() - started > 40000) {
    if (carry.trim()) { consumed++; take(carry); }
    finish();
    return;
  }
  setTimeout(poll, 100);
}
poll();
