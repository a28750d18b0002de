#!/usr/bin/env node
// Customer-360 cache updater (CRM team): folds event messages into one row per object.
// Streams the input; objectVersion may arrive as a number or a numeric string (JMS properties often are strings).
import { createReadStream, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const input = process.env.LCKIT_EVENTS_FILE;
const output = process.env.LCKIT_VIEW_FILE;
const tenant = process.env.LCKIT_TENANT;

const REMOVALS = new Set(['ENTITY_REMOVED', 'ENTITY_REMOVED_GDPR', 'ENTITY_LOST_MERGE', 'RELATIONSHIP_REMOVED',
  'RELATIONSHIP_REMOVED_GDPR', 'RELATION_LOST_MERGE', 'INTERACTION_REMOVED', 'CHANGE_REQUEST_REMOVED', 'GROUP_REMOVED']);
const UPSERTS = new Set(['ENTITY_CREATED', 'ENTITY_CHANGED', 'RELATIONSHIP_CREATED', 'RELATIONSHIP_CHANGED',
  'RELATIONSHIP_MERGED', 'INTERACTION_CREATED', 'INTERACTION_CHANGED', 'ENTITIES_SPLITTED', 'ENTITIES_MATCHES_CHANGED',
  'ENTITY_BUSINESS_PROCESS_CHANGED', 'CHANGE_REQUEST_CREATED', 'CHANGE_REQUEST_CHANGED', 'GROUP_CREATED', 'GROUP_CHANGED']);

const rows = new Map();
const counters = { read: 0, applied: 0, ignoredType: 0, stale: 0 };

const versionOf = (v) => {
  const n = typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
};

function apply(msg) {
  const headers = msg?.headers ?? {};
  const body = msg?.payload ?? {};
  if (tenant && headers.tenantId && headers.tenantId !== tenant) return;
  const type = headers.eventType ?? body.type;
  const uri = headers.sourceObjectUri ?? body.uri ?? body.object?.uri;
  if (!type || !uri) return;
  const removal = REMOVALS.has(type);
  if (!removal && !UPSERTS.has(type)) { counters.ignoredType++; return; } // unsupported or future type
  const version = versionOf(headers.objectVersion);
  const fullObject = body.exceededQueueSizeLimit !== true && body.object && typeof body.object === 'object';

  const row = rows.get(uri);
  if (row) {
    const gdprFinal = row.gdpr && (version === undefined || row.version === undefined);
    let take;
    if (gdprFinal) take = false;
    else if (version === undefined || row.version === undefined) take = true; // no version: delivery order
    else if (version !== row.version) take = version > row.version;
    else take = (removal && !row.removed) || (row.stale && fullObject && !removal); // a re-send that completes what we hold
    if (!take) { counters.stale++; return; }
  }
  counters.applied++;
  const next = row ?? { uri, removed: false, events: 0 };
  next.events++;
  if (version !== undefined) next.version = version;
  if (removal) {
    Object.assign(next, { removed: true, gdpr: type.endsWith('_GDPR'), stale: false });
    delete next.attributes;
  } else {
    next.removed = false;
    next.gdpr = false;
    if (fullObject) {
      next.stale = false;
      if ('attributes' in body.object) next.attributes = body.object.attributes; // absent = filtered out, keep what we had
    } else if (body.exceededQueueSizeLimit === true || body.deltas != null) {
      next.stale = true; // only a pointer or a partial change: the full state must be fetched again
      delete next.attributes;
    }
  }
  rows.set(uri, next);
}

async function run() {
  if (!input || !output) throw new Error('LCKIT_EVENTS_FILE (input NDJSON) and LCKIT_VIEW_FILE (output) must be set');
  const lines = createInterface({ input: createReadStream(input, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    counters.read++;
    let msg;
    try { msg = JSON.parse(line); } catch { console.error(`line ${counters.read}: not JSON, skipped`); continue; }
    apply(msg);
  }
  const out = [...rows.values()]
    .sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0))
    .map((r) => {
      const o = { uri: r.uri, removed: r.removed };
      if (r.version !== undefined) o.objectVersion = r.version;
      if (!r.removed && !r.stale && r.attributes !== undefined) o.attributes = r.attributes;
      if (!r.removed && r.stale) o.stale = true;
      o.events = r.events;
      return JSON.stringify(o);
    });
  writeFileSync(output, out.length ? `${out.join('\n')}\n` : '');
  console.log(JSON.stringify({ ...counters, objects: rows.size }));
}

run().catch((e) => { console.error(`consumer failed: ${e.message}`); process.exit(1); });
