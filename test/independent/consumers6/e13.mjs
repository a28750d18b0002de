// Team "Vault" — archive-side consumer that feeds a retention system.
// Reads the whole delivery into memory, then builds the view in three passes: group by object, order each
// object's messages by objectVersion (adjacent re-sends collapse), and walk them.
import { readFileSync, writeFileSync, statSync } from 'node:fs';

const settings = {
  source: process.env.LCKIT_EVENTS_FILE ?? '',
  sink: process.env.LCKIT_VIEW_FILE ?? 'view.ndjson',
  tenant: process.env.LCKIT_TENANT ?? '',
  lines: Number.parseInt(process.env.LCKIT_MESSAGES ?? '', 10),
};

const CLOSING = new Set(['ENTITY_REMOVED', 'ENTITY_REMOVED_GDPR', 'ENTITY_LOST_MERGE', 'RELATIONSHIP_REMOVED',
  'RELATIONSHIP_REMOVED_GDPR', 'RELATION_LOST_MERGE', 'INTERACTION_REMOVED', 'CHANGE_REQUEST_REMOVED',
  'GROUP_REMOVED']);
const OPEN = new Set(['ENTITY_CREATED', 'ENTITY_CHANGED', 'ENTITIES_SPLITTED', 'ENTITIES_MATCHES_CHANGED',
  'ENTITY_BUSINESS_PROCESS_CHANGED', 'RELATIONSHIP_CREATED', 'RELATIONSHIP_CHANGED', 'RELATIONSHIP_MERGED',
  'INTERACTION_CREATED', 'INTERACTION_CHANGED', 'CHANGE_REQUEST_CREATED', 'CHANGE_REQUEST_CHANGED',
  'GROUP_CREATED', 'GROUP_CHANGED']);

const inbox = []; // parsed messages in delivery order

function pass1Group(messages) {
  return messages.reduce((acc, m, i) => {
    const h = m.headers ?? {};
    const p = m.payload && typeof m.payload === 'object' ? m.payload : {};
    if (settings.tenant && h.tenantId != null && h.tenantId !== settings.tenant) return acc;
    const type = h.eventType ?? p.type;
    if (!CLOSING.has(type) && !OPEN.has(type)) return acc;
    const uri = h.sourceObjectUri ?? p.uri ?? p.object?.uri;
    if (!uri) return acc;
    const num = Number(h.objectVersion);
    const version = h.objectVersion == null || !Number.isFinite(num) ? 1e15 + i : num;
    (acc[uri] ??= []).push({ version, type, p });
    return acc;
  }, {});
}

function pass2Order(list) {
  const sorted = [...list].sort((a, b) => a.version - b.version);
  return sorted.filter((e, i) => i === 0 || e.version !== sorted[i - 1].version);
}

const idFor = (v) => (v && typeof v === 'object'
  ? (v.id != null ? `@${v.id}` : typeof v.uri === 'string' ? `@${v.uri.split('/').pop()}` : `$${JSON.stringify(v.value)}`)
  : '?');

function withDeltas(attrs, deltas) {
  const items = Array.isArray(deltas?.deltaCollection?.delta) ? deltas.deltaCollection.delta : deltas?.delta;
  if (!Array.isArray(items)) return attrs;
  const out = { ...(attrs ?? {}) };
  for (const d of items) {
    const hit = /\/attributes\/([^/]+)/.exec(typeof d?.attributeType === 'string' ? d.attributeType : '');
    if (!hit) continue;
    const key = hit[1];
    let vs = out[key] ? [...out[key]] : [];
    if (d.type === 'ATTRIBUTE_ADDED') {
      if (d.newValue && !vs.some((x) => idFor(x) === idFor(d.newValue))) vs.push(d.newValue);
    } else if (d.type === 'ATTRIBUTE_CHANGED') {
      if (!d.newValue) continue;
      const at = vs.findIndex((x) => idFor(x) === idFor(d.oldValue));
      if (at >= 0) vs[at] = d.newValue; else vs = vs.length === 1 ? [d.newValue] : [...vs, d.newValue];
    } else if (d.type === 'ATTRIBUTE_REMOVED') {
      vs = vs.filter((x) => idFor(x) !== idFor(d.oldValue));
    } else continue;
    if (vs.length) out[key] = vs; else delete out[key];
  }
  return out;
}

function pass3Walk(events) {
  const rec = { removed: false, attributes: undefined, applied: 0 };
  for (const e of events) {
    const o = e.p.object;
    if (o && typeof o === 'object' && o.attributes && typeof o.attributes === 'object') rec.attributes = o.attributes;
    else if (e.p.deltas && typeof e.p.deltas === 'object') rec.attributes = withDeltas(rec.attributes, e.p.deltas);
    rec.applied++;
    if (CLOSING.has(e.type)) { rec.removed = true; break; }
  }
  return rec;
}

let finished = false;
function finish() {
  if (finished) return;
  finished = true;
  const grouped = pass1Group(inbox);
  const lines = Object.entries(grouped).map(([uri, list]) => {
    const rec = pass3Walk(pass2Order(list));
    return JSON.stringify({ uri, removed: rec.removed, applied: rec.applied, ...(rec.attributes ? { attributes: rec.attributes } : {}) });
  });
  writeFileSync(settings.sink, lines.map((l) => l + '\n').join(''));
  process.exit(0);
}
process.on('SIGTERM', finish);

let readBytes = 0;
let leftover = '';
let count = 0;
const deadline = Date.now() + 40 * 1000;
function pump() {
  if (settings.source) {
    let size = 0;
    try { size = statSync(settings.source).size; } catch { size = 0; }
    if (size > readBytes) {
      const buf = readFileSync(settings.source).subarray(readBytes);
      readBytes += buf.length;
      const parts = (leftover + buf.toString('utf8')).split('\n');
      leftover = parts.pop();
      for (const line of parts) {
        if (!line.trim()) continue;
        count++;
        try { const m = JSON.parse(line); if (m && typeof m === 'object') inbox.push(m); } catch { /* skip */ }
      }
    }
  }
  const enough = !Number.isFinite(settings.lines) || settings.lines <= 0 || count >= settings.lines;
  if (!settings.source || enough || Date.now() > deadline) {
    if (leftover.trim()) { try { inbox.push(JSON.parse(leftover)); } catch { /* skip */ } }
    finish();
  } else setTimeout(pump, 70);
}
pump();
