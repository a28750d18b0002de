// Team "Ledger" — CRM mirror. Keeps every distinct event it receives, grouped per object and keyed by
// objectVersion, and rebuilds each object's state by replaying its events in version order whenever a view
// is asked for. Correct by construction against reordering and at-least-once delivery.
import fs from 'node:fs';

const REMOVING = new Set([
  'ENTITY_REMOVED', 'ENTITY_REMOVED_GDPR', 'ENTITY_LOST_MERGE',
  'RELATIONSHIP_REMOVED', 'RELATIONSHIP_REMOVED_GDPR', 'RELATION_LOST_MERGE',
  'INTERACTION_REMOVED', 'CHANGE_REQUEST_REMOVED', 'GROUP_REMOVED',
]);
const LIVING = new Set([
  'ENTITY_CREATED', 'ENTITY_CHANGED', 'RELATIONSHIP_CREATED', 'RELATIONSHIP_CHANGED', 'RELATIONSHIP_MERGED',
  'INTERACTION_CREATED', 'INTERACTION_CHANGED', 'ENTITIES_SPLITTED', 'ENTITIES_MATCHES_CHANGED',
  'ENTITY_BUSINESS_PROCESS_CHANGED', 'CHANGE_REQUEST_CREATED', 'CHANGE_REQUEST_CHANGED',
  'GROUP_CREATED', 'GROUP_CHANGED',
]);

class ObjectLedger {
  constructor(uri) {
    this.uri = uri;
    this.byVersion = new Map(); // version -> {type, payload}
    this.unversioned = [];      // messages that came without objectVersion, in arrival order
  }
  record(version, type, payload) {
    if (version === null) { this.unversioned.push({ type, payload }); return; }
    if (this.byVersion.has(version)) return; // a re-send of a version we already hold
    this.byVersion.set(version, { type, payload });
  }
  replay() {
    const steps = [...this.byVersion.entries()].sort((a, b) => a[0] - b[0]).map(([v, e]) => ({ v, ...e }));
    for (const e of this.unversioned) steps.push({ v: null, ...e });
    let removed = false, attributes, version;
    for (const step of steps) {
      removed = REMOVING.has(step.type);
      if (step.v !== null) version = step.v;
      const p = step.payload || {};
      if (p.object && typeof p.object === 'object' && p.object.attributes && typeof p.object.attributes === 'object') {
        attributes = structuredClone(p.object.attributes);
      } else if (p.deltas && typeof p.deltas === 'object') {
        attributes = applyDeltas(attributes || {}, p.deltas, this.uri);
      }
    }
    return { removed, attributes, version };
  }
}

function idOf(v) {
  if (!v || typeof v !== 'object') return undefined;
  if (v.id) return String(v.id);
  if (typeof v.uri === 'string') return v.uri.slice(v.uri.lastIndexOf('/') + 1);
  return undefined;
}
function sameValue(a, b) {
  const ia = idOf(a), ib = idOf(b);
  if (ia && ib) return ia === ib;
  return JSON.stringify(a?.value) === JSON.stringify(b?.value);
}
function attrName(attributeType) {
  const s = String(attributeType || '');
  const i = s.indexOf('/attributes/');
  return (i >= 0 ? s.slice(i + 12) : s).split('/')[0];
}
function applyDeltas(attrs, deltas, uri) {
  const list = Array.isArray(deltas?.deltaCollection?.delta) ? deltas.deltaCollection.delta
    : Array.isArray(deltas?.delta) ? deltas.delta : [];
  for (const d of list) {
    if (!d || typeof d !== 'object') continue;
    const name = attrName(d.attributeType);
    if (!name) continue;
    const values = attrs[name] ? [...attrs[name]] : [];
    const shape = (nv) => ({ ...nv, type: d.attributeType, uri: `${uri}/attributes/${name}/${nv.id ?? ''}` });
    if (d.type === 'ATTRIBUTE_ADDED' && d.newValue) {
      if (!values.some((x) => sameValue(x, d.newValue))) values.push(shape(d.newValue));
    } else if (d.type === 'ATTRIBUTE_CHANGED' && d.newValue) {
      const at = d.oldValue ? values.findIndex((x) => sameValue(x, d.oldValue)) : -1;
      // oldValue unknown here (e.g. a large-object fallback hid a change): with one value held, ours is stale
      if (at >= 0) values[at] = shape(d.newValue);
      else if (values.length === 1) values[0] = shape(d.newValue);
      else values.push(shape(d.newValue));
    } else if (d.type === 'ATTRIBUTE_REMOVED' && d.oldValue) {
      const at = values.findIndex((x) => sameValue(x, d.oldValue));
      if (at >= 0) values.splice(at, 1);
    } else continue;
    if (values.length) attrs[name] = values; else delete attrs[name];
  }
  return attrs;
}

const tenant = process.env.LCKIT_TENANT || null;
const expected = Number(process.env.LCKIT_MESSAGES || 0);
const inputPath = process.env.LCKIT_EVENTS_FILE;
const outPath = process.env.LCKIT_VIEW_FILE || 'view.ndjson';
const ledgers = new Map();
let lines = 0, consumed = 0, carry = '', finished = false;

function ingest(line) {
  if (!line.trim()) return;
  lines++;
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  const h = msg?.headers || {}, p = msg?.payload && typeof msg.payload === 'object' ? msg.payload : {};
  if (tenant && h.tenantId && h.tenantId !== tenant) return;
  const type = h.eventType || p.type;
  if (!REMOVING.has(type) && !LIVING.has(type)) return; // unknown or unsupported: nothing to learn
  const uri = h.sourceObjectUri || p.uri || p.object?.uri;
  if (!uri) return;
  const raw = h.objectVersion;
  const version = raw === undefined || raw === null || raw === '' || !Number.isFinite(Number(raw)) ? null : Number(raw);
  if (!ledgers.has(uri)) ledgers.set(uri, new ObjectLedger(uri));
  ledgers.get(uri).record(version, type, p);
}

function finish() {
  if (finished) return;
  finished = true;
  const out = [];
  for (const [uri, ledger] of ledgers) {
    const s = ledger.replay();
    const row = { uri, removed: s.removed };
    if (s.attributes !== undefined) row.attributes = s.attributes;
    row.eventsKept = ledger.byVersion.size + ledger.unversioned.length;
    out.push(JSON.stringify(row));
  }
  fs.writeFileSync(outPath, out.join('\n') + (out.length ? '\n' : ''));
  process.exit(0);
}
process.on('SIGTERM', finish);

const deadline = Date.now() + 40_000;
function poll() {
  if (!inputPath) return finish();
  let buf = Buffer.alloc(0);
  try {
    const fd = fs.openSync(inputPath, 'r');
    const size = fs.fstatSync(fd).size;
    if (size > consumed) {
      buf = Buffer.alloc(size - consumed);
      fs.readSync(fd, buf, 0, buf.length, consumed);
      consumed = size;
    }
    fs.closeSync(fd);
  } catch { /* file not there yet */ }
  const text = carry + buf.toString('utf8');
  const parts = text.split('\n');
  carry = parts.pop();
  parts.forEach(ingest);
  if (expected <= 0 && carry.trim()) { ingest(carry); carry = ''; }
  if (expected <= 0 || lines >= expected || Date.now() > deadline) {
    if (carry.trim()) ingest(carry);
    return finish();
  }
  setTimeout(poll, 50);
}
poll();
