// Team "Meridian" — territory-planning service's local copy of accounts and their relations.
// Headers arrive from several broker types as strings or numbers, so the team keeps everything it reads
// from headers as text: each object's history is a Map from the objectVersion header (as text) to the
// message. The view replays each history in version order.
import { promises as fsp, writeFileSync } from 'node:fs';

/** @typedef {{ type: string, body: any }} Step */

const ENV = process.env;
const removalEvents = new Set(['ENTITY_REMOVED', 'ENTITY_REMOVED_GDPR', 'ENTITY_LOST_MERGE', 'RELATIONSHIP_REMOVED',
  'RELATIONSHIP_REMOVED_GDPR', 'RELATION_LOST_MERGE', 'INTERACTION_REMOVED', 'CHANGE_REQUEST_REMOVED', 'GROUP_REMOVED']);
const liveEvents = new Set(['ENTITY_CREATED', 'ENTITY_CHANGED', 'ENTITIES_SPLITTED', 'ENTITIES_MATCHES_CHANGED',
  'ENTITY_BUSINESS_PROCESS_CHANGED', 'RELATIONSHIP_CREATED', 'RELATIONSHIP_CHANGED', 'RELATIONSHIP_MERGED',
  'INTERACTION_CREATED', 'INTERACTION_CHANGED', 'CHANGE_REQUEST_CREATED', 'CHANGE_REQUEST_CHANGED',
  'GROUP_CREATED', 'GROUP_CHANGED']);

/** @type {Map<string, Map<string, Step>>} */
const histories = new Map();
/** @type {Map<string, Step[]>} */
const unnumbered = new Map();

function accept(text) {
  let msg;
  try { msg = JSON.parse(text); } catch { return; }
  if (!msg || typeof msg !== 'object') return;
  const hdr = msg.headers && typeof msg.headers === 'object' ? msg.headers : {};
  const body = msg.payload && typeof msg.payload === 'object' ? msg.payload : {};
  if (ENV.LCKIT_TENANT && hdr.tenantId != null && String(hdr.tenantId) !== ENV.LCKIT_TENANT) return;
  const type = String(hdr.eventType ?? body.type ?? '');
  if (!removalEvents.has(type) && !liveEvents.has(type)) return;
  const uri = String(hdr.sourceObjectUri ?? body.uri ?? body.object?.uri ?? '');
  if (!uri) return;
  if (hdr.objectVersion == null || String(hdr.objectVersion).trim() === '') {
    if (!unnumbered.has(uri)) unnumbered.set(uri, []);
    unnumbered.get(uri).push({ type, body });
    return;
  }
  const v = String(hdr.objectVersion).trim();
  if (!histories.has(uri)) histories.set(uri, new Map());
  const h = histories.get(uri);
  if (!h.has(v)) h.set(v, { type, body });
}

function valueIdentity(v) {
  if (!v || typeof v !== 'object') return `raw:${JSON.stringify(v)}`;
  if (v.id !== undefined && v.id !== null) return `id:${v.id}`;
  if (typeof v.uri === 'string') return `id:${v.uri.substring(v.uri.lastIndexOf('/') + 1)}`;
  return `val:${JSON.stringify(v.value)}`;
}

function mergeDeltas(current, deltas) {
  const coll = deltas?.deltaCollection && typeof deltas.deltaCollection === 'object' ? deltas.deltaCollection : deltas;
  if (!coll || !Array.isArray(coll.delta)) return current;
  const attrs = current ? { ...current } : {};
  for (const change of coll.delta) {
    if (!change || typeof change.attributeType !== 'string') continue;
    const idx = change.attributeType.indexOf('/attributes/');
    if (idx < 0) continue;
    const attr = change.attributeType.slice(idx + '/attributes/'.length).split('/')[0];
    const was = attrs[attr] ?? [];
    let now = was;
    const oldId = change.oldValue ? valueIdentity(change.oldValue) : null;
    switch (change.type) {
      case 'ATTRIBUTE_ADDED':
        if (change.newValue && !was.some((x) => valueIdentity(x) === valueIdentity(change.newValue))) now = [...was, change.newValue];
        break;
      case 'ATTRIBUTE_CHANGED': {
        if (!change.newValue) break;
        const at = was.findIndex((x) => valueIdentity(x) === oldId);
        if (at >= 0) now = was.map((x, i) => (i === at ? change.newValue : x));
        else now = was.length === 1 ? [change.newValue] : [...was, change.newValue];
        break;
      }
      case 'ATTRIBUTE_REMOVED':
        now = was.filter((x) => valueIdentity(x) !== oldId);
        break;
      default:
        continue;
    }
    if (now.length) attrs[attr] = now; else delete attrs[attr];
  }
  return attrs;
}

function replay(uri) {
  const h = histories.get(uri) ?? new Map();
  const order = [...h.keys()].sort();
  const steps = order.map((k) => h.get(k)).concat(unnumbered.get(uri) ?? []);
  let removed = false;
  let attributes;
  for (const s of steps) {
    removed = removalEvents.has(s.type);
    const obj = s.body.object;
    if (obj && typeof obj === 'object' && obj.attributes && typeof obj.attributes === 'object') attributes = obj.attributes;
    else if (s.body.deltas && typeof s.body.deltas === 'object') attributes = mergeDeltas(attributes, s.body.deltas);
  }
  return { uri, removed, versions: order, ...(attributes ? { attributes } : {}) };
}

let closed = false;
function close() {
  if (closed) return;
  closed = true;
  const uris = new Set([...histories.keys(), ...unnumbered.keys()]);
  writeFileSync(ENV.LCKIT_VIEW_FILE || 'view.ndjson', [...uris].map((u) => JSON.stringify(replay(u)) + '\n').join(''));
  process.exit(0);
}
process.on('SIGTERM', close);

async function readFrom(path, start) {
  // reads whole lines from byte offset `start`; returns the new offset (just past the last newline)
  let size;
  try { size = (await fsp.stat(path)).size; } catch { return { next: start, lines: 0 }; }
  if (size <= start) return { next: start, lines: 0 };
  const fh = await fsp.open(path, 'r');
  const chunk = Buffer.alloc(size - start);
  try { await fh.read(chunk, 0, chunk.length, start); } finally { await fh.close(); }
  const lastNl = chunk.lastIndexOf(0x0a);
  if (lastNl < 0) return { next: start, lines: 0 };
  const complete = chunk.subarray(0, lastNl + 1).toString('utf8').split('\n').slice(0, -1);
  let n = 0;
  for (const line of complete) if (line.trim()) { n++; accept(line); }
  return { next: start + lastNl + 1, lines: n, tail: chunk.subarray(lastNl + 1).toString('utf8') };
}

async function main() {
  const path = ENV.LCKIT_EVENTS_FILE;
  const want = Number(ENV.LCKIT_MESSAGES) || 0;
  const stop = Date.now() + 40000;
  let offset = 0, seen = 0, tail = '';
  while (path) {
    const r = await readFrom(path, offset);
    offset = r.next; seen += r.lines; if (r.tail !== undefined) tail = r.tail;
    if (want <= 0 || seen >= want || Date.now() > stop) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  if (tail.trim()) accept(tail);
  close();
}
main();
