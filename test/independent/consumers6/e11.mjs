// Team "Beacon" — snapshot-first replica for a call-centre screen-pop.
// Snapshots are taken at once when newer than what is held. Deltas and bodiless messages are applied
// strictly one version after another; ones that arrive early are parked until the gap closes (or until the
// end of the stream).
import fs from 'node:fs';

const E = process.env;
const REMOVALS = ['ENTITY_REMOVED', 'ENTITY_REMOVED_GDPR', 'ENTITY_LOST_MERGE', 'RELATIONSHIP_REMOVED',
  'RELATIONSHIP_REMOVED_GDPR', 'RELATION_LOST_MERGE', 'INTERACTION_REMOVED', 'CHANGE_REQUEST_REMOVED', 'GROUP_REMOVED'];
const OTHERS = ['ENTITY_CREATED', 'ENTITY_CHANGED', 'ENTITIES_SPLITTED', 'ENTITIES_MATCHES_CHANGED',
  'ENTITY_BUSINESS_PROCESS_CHANGED', 'RELATIONSHIP_CREATED', 'RELATIONSHIP_CHANGED', 'RELATIONSHIP_MERGED',
  'INTERACTION_CREATED', 'INTERACTION_CHANGED', 'CHANGE_REQUEST_CREATED', 'CHANGE_REQUEST_CHANGED',
  'GROUP_CREATED', 'GROUP_CHANGED'];

const db = {}; // uri -> {held, removed, attrs, parked: {version: msg}}
let noVersionSeq = 0;

function vid(v) {
  if (!v || typeof v !== 'object') return 'x';
  if (v.id !== undefined) return 'i' + v.id;
  if (typeof v.uri === 'string') return 'i' + v.uri.split('/').pop();
  return 'v' + JSON.stringify(v.value);
}

function stepDeltas(o, deltas) {
  const items = (deltas.deltaCollection && deltas.deltaCollection.delta) || deltas.delta;
  if (!Array.isArray(items)) return;
  o.attrs = o.attrs || {};
  for (const d of items) {
    const at = d && d.attributeType;
    if (typeof at !== 'string' || at.indexOf('/attributes/') < 0) continue;
    const name = at.split('/attributes/')[1].split('/')[0];
    let list = (o.attrs[name] || []).slice();
    if (d.type === 'ATTRIBUTE_ADDED' && d.newValue) {
      if (!list.some((x) => vid(x) === vid(d.newValue))) list.push(d.newValue);
    } else if (d.type === 'ATTRIBUTE_CHANGED' && d.newValue) {
      const i = list.findIndex((x) => vid(x) === vid(d.oldValue));
      if (i > -1) list[i] = d.newValue; else if (list.length === 1) list = [d.newValue]; else list.push(d.newValue);
    } else if (d.type === 'ATTRIBUTE_REMOVED') {
      list = list.filter((x) => vid(x) !== vid(d.oldValue));
    } else continue;
    if (list.length) o.attrs[name] = list; else delete o.attrs[name];
  }
}

function step(o, version, type, p) {
  o.held = version;
  o.removed = REMOVALS.includes(type);
  if (p.deltas && typeof p.deltas === 'object') stepDeltas(o, p.deltas);
}

function drain(o, force) {
  for (let guard = 0; guard < 100000; guard++) {
    const keys = Object.keys(o.parked).map(Number).sort((a, b) => a - b);
    if (!keys.length) return;
    const k = keys[0];
    if (k <= o.held) { delete o.parked[k]; continue; }
    if (k !== o.held + 1 && !force) return;
    const m = o.parked[k];
    delete o.parked[k];
    step(o, k, m.type, m.p);
  }
}

function take(msg) {
  const h = msg.headers || {};
  const p = msg.payload && typeof msg.payload === 'object' ? msg.payload : {};
  if (E.LCKIT_TENANT && h.tenantId && h.tenantId !== E.LCKIT_TENANT) return;
  const type = h.eventType || p.type;
  if (!REMOVALS.includes(type) && !OTHERS.includes(type)) return;
  const uri = h.sourceObjectUri || p.uri || (p.object && p.object.uri);
  if (!uri) return;
  const o = db[uri] || (db[uri] = { held: 0, removed: false, attrs: undefined, parked: {} });
  let version = parseInt(h.objectVersion, 10);
  if (Number.isNaN(version)) version = Math.max(o.held, ...Object.keys(o.parked).map(Number)) + 1 + (noVersionSeq++ * 0);
  if (version <= o.held || o.parked[version]) return;
  if (p.object && typeof p.object === 'object') {
    // a snapshot newer than what we hold
    o.held = version;
    o.removed = REMOVALS.includes(type);
    o.attrs = p.object.attributes || {};
    drain(o, false);
    return;
  }
  o.parked[version] = { type, p };
  drain(o, false);
}

let over = false;
function over_() {
  if (over) return;
  over = true;
  let s = '';
  for (const uri of Object.keys(db)) {
    const o = db[uri];
    drain(o, true);
    const row = { uri, removed: o.removed, heldVersion: o.held };
    if (o.attrs) row.attributes = o.attrs;
    s += JSON.stringify(row) + '\n';
  }
  fs.writeFileSync(E.LCKIT_VIEW_FILE || 'view.ndjson', s);
  process.exit(0);
}
process.on('SIGTERM', over_);

const want = Number(E.LCKIT_MESSAGES) || 0;
const until = Date.now() + 40000;
let byteOff = 0, tail = '', got = 0;
(function again() {
  if (E.LCKIT_EVENTS_FILE) {
    let chunk = '';
    try {
      const all = fs.readFileSync(E.LCKIT_EVENTS_FILE);
      chunk = all.subarray(byteOff).toString('utf8');
      byteOff = all.length;
    } catch (e) { /* wait for it */ }
    const parts = (tail + chunk).split('\n');
    tail = parts.pop();
    for (const line of parts) {
      if (!line.trim()) continue;
      got++;
      let m; try { m = JSON.parse(line); } catch { continue; }
      if (m && typeof m === 'object') take(m);
    }
  }
  if (!E.LCKIT_EVENTS_FILE || want <= 0 || got >= want || Date.now() > until) {
    if (tail.trim()) { try { take(JSON.parse(tail)); } catch { /* ignore */ } }
    return over_();
  }
  setTimeout(again, 90);
})();
