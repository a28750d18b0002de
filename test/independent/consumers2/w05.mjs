#!/usr/bin/env node
// Golden-record replica (MDM ops team). Event handlers registered on an EventEmitter, one per event type.
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import readline from 'node:readline';

const IN = process.env.LCKIT_EVENTS_FILE;
const OUT = process.env.LCKIT_VIEW_FILE;
const TENANT = process.env.LCKIT_TENANT;
if (!IN || !OUT) { console.error('need LCKIT_EVENTS_FILE and LCKIT_VIEW_FILE'); process.exit(2); }

const replica = new Map();
const bus = new EventEmitter();

function accept(uri, version, { removal = false } = {}) {
  const cur = replica.get(uri);
  if (!cur) return true;
  if (cur.gdpr && (version === undefined || cur.version === undefined)) return false;
  if (version === undefined || cur.version === undefined) return true;
  if (version !== cur.version) return version > cur.version;
  return removal ? !cur.removed : false;
}

function upsert({ uri, version, payload }) {
  const cur = replica.get(uri);
  const snapshot = payload.exceededQueueSizeLimit !== true && payload.object && typeof payload.object === 'object';
  if (!accept(uri, version) && !(cur && version === cur.version && cur.pending && snapshot)) return;
  const rec = { ...(cur ?? { uri }), removed: false, gdpr: false };
  if (version !== undefined) rec.version = version;
  if (snapshot) {
    rec.pending = false;
    if ('attributes' in payload.object) rec.attributes = payload.object.attributes;
  } else if (payload.exceededQueueSizeLimit === true || payload.deltas != null) {
    rec.pending = true;
    delete rec.attributes;
  }
  replica.set(uri, rec);
}

function remove({ uri, version, type }) {
  if (!accept(uri, version, { removal: true })) return;
  const rec = { ...(replica.get(uri) ?? { uri }), removed: true, gdpr: type.endsWith('_GDPR'), pending: false };
  if (version !== undefined) rec.version = version;
  delete rec.attributes;
  replica.set(uri, rec);
}

for (const t of ['ENTITY_CREATED', 'ENTITY_CHANGED', 'RELATIONSHIP_CREATED', 'RELATIONSHIP_CHANGED', 'RELATIONSHIP_MERGED',
  'INTERACTION_CREATED', 'INTERACTION_CHANGED', 'ENTITIES_SPLITTED', 'ENTITIES_MATCHES_CHANGED', 'ENTITY_BUSINESS_PROCESS_CHANGED',
  'CHANGE_REQUEST_CREATED', 'CHANGE_REQUEST_CHANGED']) bus.on(t, upsert);
for (const t of ['ENTITY_REMOVED', 'ENTITY_REMOVED_GDPR', 'ENTITY_LOST_MERGE', 'RELATIONSHIP_REMOVED', 'RELATIONSHIP_REMOVED_GDPR',
  'RELATION_LOST_MERGE', 'INTERACTION_REMOVED', 'CHANGE_REQUEST_REMOVED']) bus.on(t, remove);

function dispatch(msg) {
  const h = msg.headers ?? {};
  const payload = msg.payload ?? {};
  if (TENANT && h.tenantId && h.tenantId !== TENANT) return;
  const type = h.eventType ?? payload.type;
  const uri = h.sourceObjectUri ?? payload.uri ?? payload.object?.uri;
  if (!type || !uri) return;
  const version = /^\d+$/.test(String(h.objectVersion ?? '').trim()) ? Number(h.objectVersion) : undefined;
  const evt = { type, uri, version, payload };
  // Anything without a dedicated handler is applied as a generic update of the object.
  if (!bus.emit(type, evt)) upsert(evt);
}

const rl = readline.createInterface({ input: fs.createReadStream(IN, 'utf8'), crlfDelay: Infinity });
let n = 0;
rl.on('line', (line) => {
  if (!line.trim()) return;
  n++;
  try { dispatch(JSON.parse(line)); } catch (e) { console.error(`line ${n}: ${e.message}`); }
});
rl.on('close', () => {
  const rows = [...replica.values()].map((r) => {
    const o = { uri: r.uri, removed: r.removed };
    if (r.version !== undefined) o.objectVersion = r.version;
    if (!r.removed && !r.pending && r.attributes !== undefined) o.attributes = r.attributes;
    if (!r.removed && r.pending) o.pendingRefresh = true;
    return JSON.stringify(o);
  });
  fs.writeFileSync(OUT, rows.length ? rows.join('\n') + '\n' : '');
  console.log(`lines=${n} objects=${replica.size}`);
});
