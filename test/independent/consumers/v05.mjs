#!/usr/bin/env node
// Event consumer: folds CRUD event messages into a view of the objects (Node.js 20, standard library only).
import fs from 'node:fs';
import readline from 'node:readline';

const CFG = {"relRemovedIsChange": true};

const IN = process.env.LCKIT_EVENTS_FILE;
const OUT = process.env.LCKIT_VIEW_FILE;
const TENANT = process.env.LCKIT_TENANT || '';

const UPSERT = new Set([
  'ENTITY_CREATED', 'ENTITY_CHANGED', 'RELATIONSHIP_CREATED', 'RELATIONSHIP_CHANGED', 'INTERACTION_CREATED',
  'INTERACTION_CHANGED', 'ENTITIES_SPLITTED', 'ENTITIES_MATCHES_CHANGED', 'RELATIONSHIP_MERGED',
  'ENTITY_BUSINESS_PROCESS_CHANGED', 'CHANGE_REQUEST_CREATED', 'CHANGE_REQUEST_CHANGED', 'GROUP_CREATED', 'GROUP_CHANGED',
]);
const REMOVE = new Set([
  'ENTITY_REMOVED', 'RELATIONSHIP_REMOVED', 'RELATIONSHIP_REMOVED_GDPR', 'INTERACTION_REMOVED', 'ENTITY_LOST_MERGE',
  'RELATION_LOST_MERGE', 'CHANGE_REQUEST_REMOVED', 'GROUP_REMOVED', 'ENTITY_REMOVED_GDPR',
]);
const GDPR = new Set(['ENTITY_REMOVED_GDPR', 'RELATIONSHIP_REMOVED_GDPR']);
const CHANGED = new Set(['ENTITY_CHANGED', 'RELATIONSHIP_CHANGED']);
const NO_DATA = new Set(['ENTITIES_MATCHES_CHANGED', 'ENTITY_BUSINESS_PROCESS_CHANGED']);
if (CFG.relRemovedIsChange) { REMOVE.delete('RELATIONSHIP_REMOVED'); UPSERT.add('RELATIONSHIP_REMOVED'); }

function classify(et) {
  if (REMOVE.has(et)) return GDPR.has(et) ? 'gdpr' : 'remove';
  if (UPSERT.has(et)) return 'upsert';
  if (CFG.crashOnUnknown) throw new Error(`unknown event type ${et}`);
  return null; // unknown or unsupported event type: ignored
}

function num(v) {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

const state = new Map(); // uri -> {ver, removed, gdpr, attrs, hasAttrs, incomplete, lastType, ...}
const seenTypeKeys = new Set();
let lines = 0, used = 0;

function deltaItems(d) {
  if (!d || typeof d !== 'object') return [];
  if (Array.isArray(d)) return d;
  if (d.deltaCollection && Array.isArray(d.deltaCollection.delta)) return d.deltaCollection.delta;
  if (Array.isArray(d.delta)) return d.delta;
  return [];
}

function handle(msg) {
  if (!msg || typeof msg !== 'object') return;
  const h = msg.headers && typeof msg.headers === 'object' ? msg.headers : {};
  const p = msg.payload && typeof msg.payload === 'object' ? msg.payload : {};
  if (TENANT && h.tenantId && h.tenantId !== TENANT) return;
  const et = h.eventType || p.type;
  const uri = h.sourceObjectUri || p.uri || (p.object && p.object.uri);
  if (!et || !uri) return;
  const kind = classify(et);
  if (!kind) return;
  if (CFG.skipNoData && NO_DATA.has(et)) return;
  if (CFG.ovChangedOnly && CHANGED.has(et) && p.ovChanged !== true) return;
  if (CFG.dedupByType) {
    const k = `${uri}\u0000${et}`;
    if (seenTypeKeys.has(k)) return;
    seenTypeKeys.add(k);
  }
  const ver = num(h.objectVersion);
  const fallback = p.exceededQueueSizeLimit === true;
  if (fallback && CFG.dropFallback) return;
  const hasObject = p.object && typeof p.object === 'object' && !fallback;
  const isDeltas = !hasObject && p.deltas !== undefined && p.deltas !== null;
  // what this message tells about the data: 'snapshot' | 'partial' | 'none'
  let data = hasObject ? 'snapshot' : fallback || isDeltas ? 'partial' : 'none';

  const s = state.get(uri);
  if (s && !newer(s, { ver, kind, data, p })) return;
  used++;
  const n = s || { uri, ver: undefined, removed: false, gdpr: false, attrs: undefined, incomplete: false };
  if (ver !== undefined) n.ver = ver;
  n.lastType = et;
  n.updatedTime = hasObject ? num(p.object.updatedTime) : undefined;
  if (kind === 'remove' || kind === 'gdpr') {
    n.removed = true;
    n.gdpr = kind === 'gdpr';
    if (n.gdpr) { n.attrs = undefined; n.lastKnown = undefined; }
    n.incomplete = false;
  } else {
    n.removed = false;
    n.gdpr = false;
    if (data === 'snapshot') {
      if ('attributes' in p.object) n.attrs = p.object.attributes;
      n.incomplete = false;
    } else if (data === 'partial') {
      if (fallback && CFG.fallbackEmpty) { n.attrs = {}; n.incomplete = false; }
      else if (isDeltas && CFG.deltasReplace) {
        const a = {};
        for (const d of deltaItems(p.deltas)) {
          if (!d || d.type === 'ATTRIBUTE_REMOVED' || !d.attributeType) continue;
          const name = String(d.attributeType).split('/').pop();
          (a[name] ||= []).push(d.newValue);
        }
        n.attrs = a;
        n.incomplete = false;
      } else {
        if (n.attrs !== undefined && !n.incomplete) n.lastKnown = n.attrs;
        n.attrs = undefined;
        n.incomplete = true;
      }
    }
  }
  state.set(uri, n);
}

// Decides whether an event should replace the state held for its object.
function newer(s, e) {
  if (CFG.order === 'arrival') return true;
  if (s.gdpr && (e.ver === undefined || s.ver === undefined)) return false; // GDPR removal is final
  if (CFG.order === 'updatedTime') {
    const t = e.data === 'snapshot' ? num(e.p.object.updatedTime) : undefined;
    if (t === undefined || s.updatedTime === undefined) return true;
    return t >= s.updatedTime;
  }
  let ev = e.ver, sv = s.ver;
  if (CFG.missingVersionZero) { ev = ev ?? 0; sv = sv ?? 0; }
  if (ev === undefined || sv === undefined) return true; // no objectVersion: delivery order
  if (ev > sv) return true;
  if (ev < sv) return false;
  // same version: a duplicate or a re-send; take it only if it completes what we hold
  if (s.incomplete && e.data === 'snapshot') return true;
  if ((e.kind === 'remove' || e.kind === 'gdpr') && !s.removed) return true;
  if (e.kind === 'gdpr' && !s.gdpr) return true;
  return false;
}

function view(s) {
  const o = { uri: s.uri, removed: s.removed };
  if (CFG.emitVersion !== false && s.ver !== undefined) o.objectVersion = s.ver;
  if (CFG.emitAttributes !== false && !s.removed && !s.incomplete && s.attrs !== undefined) o.attributes = s.attrs;
  if (CFG.markIncomplete && s.incomplete && !s.removed) o.incomplete = true;
  if (CFG.lastKnown && s.incomplete && !s.removed) {
    o.needsRefetch = true;
    if (s.lastKnown !== undefined) o.lastKnownAttributes = s.lastKnown;
  }
  if (CFG.emitLastType) o.lastEventType = s.lastType;
  return o;
}

async function main() {
  if (!IN || !OUT) throw new Error('LCKIT_EVENTS_FILE and LCKIT_VIEW_FILE are required');
  const rl = readline.createInterface({ input: fs.createReadStream(IN, 'utf8'), crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line.trim()) continue;
    lines++;
    let msg;
    try { msg = JSON.parse(line); } catch { console.error(`skipping malformed line ${lines}`); continue; }
    handle(msg);
  }
  const out = [...state.values()].map((s) => JSON.stringify(view(s))).join('\n');
  fs.writeFileSync(OUT, out ? out + '\n' : '');
  const removed = [...state.values()].filter((s) => s.removed).length;
  console.log(`messages=${lines} applied=${used} objects=${state.size} removed=${removed}`);
}

main().catch((e) => { console.error(`error: ${e && e.message ? e.message : e}`); process.exit(1); });
