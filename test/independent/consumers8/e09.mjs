// Data-quality dashboard: tracks every attribute value of the tenant's objects, applying delta
// messages onto the last snapshot. Events are grouped per object and replayed by objectVersion.
import fs from 'node:fs';

const OUT_FILE = process.env.LCKIT_VIEW_FILE;
const IN_FILE = process.env.LCKIT_EVENTS_FILE;
const MY_TENANT = process.env.LCKIT_TENANT || null;
const LINES_EXPECTED = +(process.env.LCKIT_MESSAGES || 0);

const TERMINAL = ['ENTITY_REMOVED', 'ENTITY_REMOVED_GDPR', 'ENTITY_LOST_MERGE', 'RELATIONSHIP_REMOVED',
  'RELATIONSHIP_REMOVED_GDPR', 'RELATION_LOST_MERGE', 'INTERACTION_REMOVED', 'CHANGE_REQUEST_REMOVED'];
const ACTIVE = ['ENTITY_CREATED', 'ENTITY_CHANGED', 'RELATIONSHIP_CREATED', 'RELATIONSHIP_CHANGED',
  'INTERACTION_CREATED', 'INTERACTION_CHANGED', 'CHANGE_REQUEST_CREATED', 'CHANGE_REQUEST_CHANGED',
  'ENTITIES_SPLITTED', 'ENTITIES_MATCHES_CHANGED', 'RELATIONSHIP_MERGED', 'ENTITY_BUSINESS_PROCESS_CHANGED'];

const groups = {};
let seq = 0;

function push(line) {
  let m;
  try { m = JSON.parse(line); } catch (_) { return; }
  const h = (m && m.headers) || {};
  const p = m && m.payload && typeof m.payload === 'object' ? m.payload : {};
  if (MY_TENANT && 'tenantId' in h && h.tenantId !== MY_TENANT) return;
  const t = h.eventType || p.type;
  if (!TERMINAL.includes(t) && !ACTIVE.includes(t)) return;
  const uri = h.sourceObjectUri || p.uri || (p.object || {}).uri;
  if (!uri) return;
  (groups[uri] = groups[uri] || []).push({ t, p, v: Number.isInteger(h.objectVersion) ? h.objectVersion : null, s: seq++ });
}

function attrKey(type) { const a = type.split('/attributes/'); return a.length > 1 ? a[1].split('/')[0] : null; }
function same(a, b) { return JSON.stringify(a) === JSON.stringify(b); }

function replay(uri, evs) {
  evs.sort((a, b) => (a.v != null && b.v != null ? a.v - b.v || a.s - b.s : a.s - b.s));
  const row = { uri, removed: false };
  let attrs = null;
  let changes = 0;
  for (const e of evs) {
    if (e.v != null) row.objectVersion = e.v;
    row.removed = TERMINAL.includes(e.t);
    if (/_CREATED$/.test(e.t) || /_GDPR$/.test(e.t)) attrs = null;
    if (/_GDPR$/.test(e.t)) continue;
    if (e.p.object && typeof e.p.object === 'object' && e.p.object.attributes && typeof e.p.object.attributes === 'object') {
      attrs = JSON.parse(JSON.stringify(e.p.object.attributes));
      continue;
    }
    const d = e.p.deltas;
    const items = d && d.deltaCollection && Array.isArray(d.deltaCollection.delta) ? d.deltaCollection.delta
      : d && Array.isArray(d.delta) ? d.delta : [];
    for (const it of items) {
      const k = it && typeof it.attributeType === 'string' ? attrKey(it.attributeType) : null;
      if (!k) continue;
      attrs = attrs || {};
      const list = attrs[k] || (attrs[k] = []);
      if (it.oldValue) {
        let at = list.findIndex((x) => typeof x.uri === 'string' && x.uri.endsWith('/' + it.oldValue.id));
        if (at < 0) at = list.findIndex((x) => same(x.value, it.oldValue.value));
        if (at >= 0) list.splice(at, 1);
      }
      if (it.type !== 'ATTRIBUTE_REMOVED' && it.newValue) {
        const el = { type: it.attributeType };
        Object.keys(it.newValue).forEach((f) => { if (f !== 'id' && f !== 'sources') el[f] = it.newValue[f]; });
        el.uri = uri + '/attributes/' + k + '/' + it.newValue.id;
        list.push(el);
      }
      if (!list.length) delete attrs[k];
      changes++;
    }
  }
  if (attrs && !row.removed) row.attributes = attrs;
  row.valueChanges = changes;
  return row;
}

let ended = false;
function end() {
  if (ended) return;
  ended = true;
  fs.writeFileSync(OUT_FILE, Object.keys(groups).map((u) => JSON.stringify(replay(u, groups[u]))).join('\n') + '\n');
  process.exit(0);
}
process.on('SIGTERM', end);

const deadline = Date.now() + 40000;
let taken = 0;
(function step() {
  let content = '';
  try { content = fs.readFileSync(IN_FILE, 'utf8'); } catch (_) { /* wait */ }
  const all = content.split('\n');
  const full = all.slice(0, -1).filter((x) => x.trim() !== '');
  while (taken < full.length) push(full[taken++]);
  if (!LINES_EXPECTED || taken >= LINES_EXPECTED || Date.now() > deadline) {
    if (all[all.length - 1].trim()) push(all[all.length - 1]);
    return end();
  }
  setTimeout(step, 45);
})();
