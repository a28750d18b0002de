// Events-to-warehouse CDC bridge. Every message becomes a row in an in-memory table
// (array of rows); at shutdown rows are grouped, ordered by objectVersion and merged.
import fs from 'node:fs';

const table = [];
const REMOVE_EVENTS = new Set('ENTITY_REMOVED ENTITY_REMOVED_GDPR ENTITY_LOST_MERGE RELATIONSHIP_REMOVED RELATIONSHIP_REMOVED_GDPR RELATION_LOST_MERGE INTERACTION_REMOVED CHANGE_REQUEST_REMOVED GROUP_REMOVED'.split(' '));
const KEEP_EVENTS = new Set('ENTITY_CREATED ENTITY_CHANGED RELATIONSHIP_CREATED RELATIONSHIP_CHANGED RELATIONSHIP_MERGED GROUP_CREATED GROUP_CHANGED INTERACTION_CREATED INTERACTION_CHANGED ENTITIES_SPLITTED ENTITIES_MATCHES_CHANGED ENTITY_BUSINESS_PROCESS_CHANGED CHANGE_REQUEST_CREATED CHANGE_REQUEST_CHANGED'.split(' '));

function toRow(line, lineNo) {
  let m;
  try { m = JSON.parse(line); } catch { return null; }
  if (m === null || typeof m !== 'object') return null;
  const h = m.headers && typeof m.headers === 'object' ? m.headers : {};
  const p = m.payload && typeof m.payload === 'object' ? m.payload : {};
  const eventType = h.eventType || p.type;
  if (!REMOVE_EVENTS.has(eventType) && !KEEP_EVENTS.has(eventType)) return null;
  if (process.env.LCKIT_TENANT && h.tenantId !== undefined && h.tenantId !== process.env.LCKIT_TENANT) return null;
  const uri = h.sourceObjectUri || p.uri || p.object?.uri;
  if (!uri) return null;
  const ver = h.objectVersion === undefined || h.objectVersion === null ? null : Number(h.objectVersion);
  return {
    uri, eventType, lineNo,
    ver: Number.isFinite(ver) ? ver : null,
    hasObject: !!(p.object && typeof p.object === 'object'),
    object: p.object,
    deltas: p.deltas,
    fallback: p.exceededQueueSizeLimit === true,
  };
}

function deltaRows(d) {
  if (!d || typeof d !== 'object') return [];
  const c = d.deltaCollection && typeof d.deltaCollection === 'object' ? d.deltaCollection : d;
  return Array.isArray(c.delta) ? c.delta : [];
}

function merge(attrs, row) {
  if (row.hasObject) {
    // a snapshot carries the object's whole state: its attributes replace ours
    return row.object.attributes && typeof row.object.attributes === 'object' ? row.object.attributes : {};
  }
  if (row.deltas === undefined || row.fallback) return attrs;
  const out = { ...(attrs || {}) };
  for (const d of deltaRows(row.deltas)) {
    if (!d || typeof d.attributeType !== 'string') continue;
    const n = d.attributeType.split('/').pop();
    const oid = d.oldValue?.id;
    const nid = d.newValue?.id;
    const had = out[n] || [];
    let pos = oid === undefined ? -1 : had.findIndex((v) => v && v.id === oid);
    if (pos < 0 && nid !== undefined) pos = had.findIndex((v) => v && v.id === nid);
    const kept = had.filter((v, i) => i !== pos && !(nid !== undefined && v && v.id === nid));
    if (d.type !== 'ATTRIBUTE_REMOVED' && d.newValue != null) {
      kept.splice(pos >= 0 ? Math.min(pos, kept.length) : kept.length, 0, d.newValue);
    }
    if (kept.length) out[n] = kept; else delete out[n];
  }
  return out;
}

function build() {
  const groups = new Map();
  for (const r of table) {
    const g = groups.get(r.uri) || [];
    g.push(r);
    groups.set(r.uri, g);
  }
  const views = [];
  for (const [uri, rows] of groups) {
    rows.sort((a, b) => {
      const av = a.ver === null ? Infinity : a.ver;
      const bv = b.ver === null ? Infinity : b.ver;
      return av === bv ? a.lineNo - b.lineNo : av - bv;
    });
    let attrs;
    let removed = false;
    let version = null;
    let prevVer = null;
    for (const r of rows) {
      if (r.ver !== null && r.ver === prevVer) continue;
      prevVer = r.ver;
      if (r.ver !== null) version = r.ver;
      removed = REMOVE_EVENTS.has(r.eventType);
      attrs = merge(attrs, r);
      if (r.eventType === 'ENTITY_REMOVED_GDPR') attrs = undefined;
    }
    const v = { uri, removed, rows: rows.length };
    if (version !== null) v.objectVersion = version;
    if (attrs !== undefined) v.attributes = attrs;
    views.push(v);
  }
  return views;
}

let exiting = false;
function exitWithView() {
  if (exiting) return;
  exiting = true;
  fs.writeFileSync(process.env.LCKIT_VIEW_FILE, build().map((v) => `${JSON.stringify(v)}\n`).join(''));
  process.exit(0);
}
process.on('SIGTERM', exitWithView);

const target = Number(process.env.LCKIT_MESSAGES || 0);
const began = Date.now();
let count = 0;
let consumedChars = 0;
function step() {
  let all = '';
  try { all = fs.readFileSync(process.env.LCKIT_EVENTS_FILE, 'utf8'); } catch { all = ''; }
  let cut = all.lastIndexOf('\n') + 1;
  const done = Date.now() - began > 40000;
  let fresh = all.slice(consumedChars, cut);
  consumedChars = cut;
  for (const line of fresh.split('\n')) {
    if (!line.trim()) continue;
    count += 1;
    const row = toRow(line, count);
    if (row) table.push(row);
  }
  if (count < target && !done && all.length > cut && count + 1 >= target) {
    const row = toRow(all.slice(cut), ++count);
    if (row) table.push(row);
    consumedChars = all.length;
  }
  if (count >= target || done) exitWithView();
  else setTimeout(step, 100);
}
step();
