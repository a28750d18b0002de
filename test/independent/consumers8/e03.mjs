// CRM bridge: keeps a replica of the tenant's records for a downstream CRM export.
// Journals events per record (deduplicated by objectVersion) and replays them in version order.
import { open } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const E = process.env;
const DELETE_TYPES = new Set('ENTITY_REMOVED ENTITY_REMOVED_GDPR ENTITY_LOST_MERGE RELATIONSHIP_REMOVED RELATIONSHIP_REMOVED_GDPR RELATION_LOST_MERGE INTERACTION_REMOVED CHANGE_REQUEST_REMOVED'.split(' '));
const UPSERT_TYPES = new Set('ENTITY_CREATED ENTITY_CHANGED RELATIONSHIP_CREATED RELATIONSHIP_CHANGED INTERACTION_CREATED INTERACTION_CHANGED CHANGE_REQUEST_CREATED CHANGE_REQUEST_CHANGED ENTITIES_SPLITTED ENTITIES_MATCHES_CHANGED RELATIONSHIP_MERGED ENTITY_BUSINESS_PROCESS_CHANGED'.split(' '));

const replica = Object.create(null);
let arrival = 0;

function keyOf(v) {
  if (Array.isArray(v)) return '[' + v.map(keyOf) + ']';
  if (v !== null && typeof v === 'object') return '{' + Object.keys(v).sort().map((k) => k + '=' + keyOf(v[k])) + '}';
  return String(JSON.stringify(v));
}

function accept(text) {
  let msg;
  try { msg = JSON.parse(text); } catch { return; }
  if (!msg || typeof msg !== 'object') return;
  const hdr = msg.headers || {};
  const pl = msg.payload && typeof msg.payload === 'object' ? msg.payload : {};
  if (E.LCKIT_TENANT && hdr.tenantId !== undefined && hdr.tenantId !== E.LCKIT_TENANT) return;
  const type = hdr.eventType || pl.type;
  if (!DELETE_TYPES.has(type) && !UPSERT_TYPES.has(type)) return;
  // Oversized notifications carry no record body; the CRM cannot use them, so they are not journaled.
  if (pl.exceededQueueSizeLimit === true) return;
  const uri = hdr.sourceObjectUri || pl.uri || (pl.object && pl.object.uri);
  if (!uri) return;
  const ver = Number.isInteger(hdr.objectVersion) ? hdr.objectVersion : null;
  const rec = (replica[uri] ||= { journal: [] });
  const k = type + keyOf(pl);
  if (rec.journal.some((j) => (ver !== null ? j.ver === ver : j.k === k))) return;
  rec.journal.push({ ver, n: ++arrival, type, pl, k });
}

function fieldName(attributeType) {
  const i = attributeType.indexOf('/attributes/');
  return i < 0 ? '' : attributeType.slice(i + 12).split('/')[0];
}

function materialize(uri, rec) {
  const steps = [...rec.journal].sort((a, b) => (a.ver !== null && b.ver !== null ? a.ver - b.ver : a.n - b.n));
  const out = { uri, removed: false };
  let fields;
  for (const s of steps) {
    if (s.ver !== null) out.objectVersion = s.ver;
    out.removed = DELETE_TYPES.has(s.type);
    if (s.type.endsWith('_CREATED') || s.type.endsWith('_GDPR')) fields = undefined;
    if (s.type.endsWith('_GDPR')) continue;
    const o = s.pl.object;
    if (o && typeof o === 'object' && o.attributes && typeof o.attributes === 'object') {
      fields = JSON.parse(JSON.stringify(o.attributes));
      continue;
    }
    const dc = s.pl.deltas && typeof s.pl.deltas === 'object' ? (s.pl.deltas.deltaCollection || s.pl.deltas) : null;
    const list = dc && Array.isArray(dc.delta) ? dc.delta : [];
    for (const d of list) {
      if (!d || typeof d.attributeType !== 'string') continue;
      const f = fieldName(d.attributeType);
      if (!f) continue;
      fields ||= {};
      let vals = fields[f] || [];
      if (d.oldValue) {
        const idx = vals.findIndex((v) => typeof v.uri === 'string' && v.uri.endsWith('/' + d.oldValue.id));
        const alt = idx >= 0 ? idx : vals.findIndex((v) => keyOf(v.value) === keyOf(d.oldValue.value));
        if (alt >= 0) vals = vals.filter((_, i) => i !== alt);
      }
      if (d.type !== 'ATTRIBUTE_REMOVED' && d.newValue) {
        const nv = { type: d.attributeType };
        for (const [k, v] of Object.entries(d.newValue)) if (k !== 'id' && k !== 'sources') nv[k] = v;
        nv.uri = `${uri}/attributes/${f}/${d.newValue.id}`;
        vals = vals.filter((v) => v.uri !== nv.uri);
        vals.push(nv);
      }
      if (vals.length) fields[f] = vals; else delete fields[f];
    }
  }
  if (fields && !out.removed) out.attributes = fields;
  out.crmSteps = steps.length;
  return out;
}

let closing = false;
function emit() {
  if (closing) return;
  closing = true;
  const body = Object.keys(replica).map((u) => JSON.stringify(materialize(u, replica[u])) + '\n').join('');
  writeFileSync(E.LCKIT_VIEW_FILE, body);
  process.exit(0);
}
process.on('SIGTERM', emit);

const target = Number(E.LCKIT_MESSAGES) || 0;
const until = Date.now() + 40000;
let lines = 0, partial = '', at = 0;
for (;;) {
  try {
    const fh = await open(E.LCKIT_EVENTS_FILE, 'r');
    try {
      const { bytesRead, buffer } = await fh.read({ position: at, buffer: Buffer.alloc(1 << 20) });
      at += bytesRead;
      partial += buffer.toString('utf8', 0, bytesRead);
    } finally { await fh.close(); }
  } catch { /* file not there yet */ }
  const parts = partial.split('\n');
  partial = parts.pop();
  for (const p of parts) if (p.trim()) { lines++; accept(p); }
  if (!target || lines >= target || Date.now() > until) break;
  await sleep(partial ? 5 : 50);
}
if (partial.trim()) accept(partial);
emit();
