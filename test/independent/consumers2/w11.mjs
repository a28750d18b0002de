#!/usr/bin/env node
// Household linker (marketing tech): keeps the set of live objects and their attributes.
// Event types are mapped to actions through one table; top-level await, built-ins only.
import { open, writeFile } from 'node:fs/promises';

const ACTION = {
  ENTITY_CREATED: 'put', ENTITY_CHANGED: 'put', ENTITY_REMOVED: 'drop', ENTITY_REMOVED_GDPR: 'erase', ENTITY_LOST_MERGE: 'drop',
  // a split takes the merged record apart: the record in the message is gone, its parts arrive as their own objects
  ENTITIES_SPLITTED: 'drop',
  ENTITIES_MATCHES_CHANGED: 'put', ENTITY_BUSINESS_PROCESS_CHANGED: 'put',
  RELATIONSHIP_CREATED: 'put', RELATIONSHIP_CHANGED: 'put', RELATIONSHIP_MERGED: 'put', RELATIONSHIP_REMOVED: 'drop',
  RELATIONSHIP_REMOVED_GDPR: 'erase', RELATION_LOST_MERGE: 'drop',
  INTERACTION_CREATED: 'put', INTERACTION_CHANGED: 'put', INTERACTION_REMOVED: 'drop',
  CHANGE_REQUEST_CREATED: 'put', CHANGE_REQUEST_CHANGED: 'put', CHANGE_REQUEST_REMOVED: 'drop',
  GROUP_CREATED: 'put', GROUP_CHANGED: 'put', GROUP_REMOVED: 'drop',
};

const { LCKIT_EVENTS_FILE, LCKIT_VIEW_FILE, LCKIT_TENANT } = process.env;
if (!LCKIT_EVENTS_FILE || !LCKIT_VIEW_FILE) {
  console.error('error: LCKIT_EVENTS_FILE and LCKIT_VIEW_FILE must be set');
  process.exit(2);
}

const objects = new Map();
const wins = (cur, ver, action, full) => {
  if (!cur) return true;
  if (cur.erased && (ver === undefined || cur.ver === undefined)) return false;
  if (ver === undefined || cur.ver === undefined) return true;
  if (ver !== cur.ver) return ver > cur.ver;
  return (action !== 'put' && !cur.removed) || (action === 'put' && cur.partial && full);
};

const fh = await open(LCKIT_EVENTS_FILE);
let n = 0;
for await (const line of fh.readLines()) {
  if (!line.trim()) continue;
  n++;
  let m;
  try { m = JSON.parse(line); } catch { console.error(`line ${n}: not JSON`); continue; }
  const h = m.headers ?? {}, p = m.payload ?? {};
  if (LCKIT_TENANT && h.tenantId && h.tenantId !== LCKIT_TENANT) continue;
  const type = h.eventType ?? p.type;
  const action = ACTION[type];
  const uri = h.sourceObjectUri ?? p.uri ?? p.object?.uri;
  if (!action || !uri) continue;
  const ver = ['number', 'string'].includes(typeof h.objectVersion) && `${h.objectVersion}`.trim() !== '' && !Number.isNaN(Number(h.objectVersion)) ? Number(h.objectVersion) : undefined;
  const full = p.exceededQueueSizeLimit !== true && p.object != null && typeof p.object === 'object';
  const cur = objects.get(uri);
  if (!wins(cur, ver, action, full)) continue;
  const o = cur ?? { uri };
  if (ver !== undefined) o.ver = ver;
  o.removed = action !== 'put';
  o.erased = action === 'erase';
  if (o.removed) { delete o.attrs; o.partial = false; }
  else if (full) { o.partial = false; if ('attributes' in p.object) o.attrs = p.object.attributes; }
  else if (p.exceededQueueSizeLimit === true || p.deltas != null) { o.partial = true; delete o.attrs; }
  objects.set(uri, o);
}

const text = [...objects.values()].map((o) => JSON.stringify({
  uri: o.uri,
  removed: o.removed,
  ...(o.ver !== undefined && { objectVersion: o.ver }),
  ...(!o.removed && !o.partial && o.attrs !== undefined && { attributes: o.attrs }),
  ...(!o.removed && o.partial && { partial: true }),
})).join('\n');
await writeFile(LCKIT_VIEW_FILE, text ? `${text}\n` : '');
console.log(`lines=${n} objects=${objects.size}`);
