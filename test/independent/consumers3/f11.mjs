#!/usr/bin/env node
// Relationship graph mirror (graph team). Node 20, built-ins only.
// Mirrors entities and relationships of the tenant from the event stream into the view the graph
// loader reads.
const JOB = 'f11';
import fs from 'node:fs';
import readline from 'node:readline';

const IN = process.env.LCKIT_EVENTS_FILE;
const OUT = process.env.LCKIT_VIEW_FILE;
const TENANT = process.env.LCKIT_TENANT;
if (!IN || !OUT) {
  console.error(`${JOB}: set LCKIT_EVENTS_FILE (input, one event per line) and LCKIT_VIEW_FILE (output)`);
  process.exit(2);
}

// what each documented (and supported) event type does to the object named by sourceObjectUri
const REMOVES = new Set([
  'ENTITY_REMOVED',
  'ENTITY_REMOVED_GDPR',
  'ENTITY_LOST_MERGE',
  'RELATIONSHIP_REMOVED',
  'RELATIONSHIP_REMOVED_GDPR',
  'INTERACTION_REMOVED',
  'CHANGE_REQUEST_REMOVED',
]);
const KEEPS = new Set([
  'ENTITY_CREATED',
  'ENTITY_CHANGED',
  'ENTITIES_SPLITTED',
  'ENTITIES_MATCHES_CHANGED',
  'ENTITY_BUSINESS_PROCESS_CHANGED',
  'RELATIONSHIP_CREATED',
  'RELATIONSHIP_CHANGED',
  'RELATIONSHIP_MERGED',
  'INTERACTION_CREATED',
  'INTERACTION_CHANGED',
  'CHANGE_REQUEST_CREATED',
  'CHANGE_REQUEST_CHANGED',
]);

function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

function versionOf(headers) {
  const v = headers.objectVersion;
  if (v === undefined || v === null || v === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

const objects = new Map(); // sourceObjectUri -> { version, rank, removed, attributes? }
const seen = new Set(); // exact re-sends

function apply(msg) {
  if (!msg || typeof msg !== 'object') return;
  const h = msg.headers && typeof msg.headers === 'object' ? msg.headers : {};
  const p = msg.payload && typeof msg.payload === 'object' ? msg.payload : {};
  if (TENANT && h.tenantId !== undefined && h.tenantId !== TENANT) return; // another tenant's stream
  const uri = h.sourceObjectUri || p.uri || p.object?.uri;
  if (!uri) return;
  const type = h.eventType || p.type;
  const removes = REMOVES.has(type);
  if (!removes && !KEEPS.has(type)) return; // unsupported or unknown type: no state change we understand
  const key = canonical(msg);
  if (seen.has(key)) return;
  seen.add(key);
  const version = versionOf(h);
  const full = !removes && p.object && typeof p.object === 'object' && !p.exceededQueueSizeLimit;
  const rank = removes ? 2 : full ? 1 : 0; // at one version: a removal beats a snapshot beats a partial message
  let s = objects.get(uri);
  if (s && version !== null && s.version !== null && (version < s.version || (version === s.version && rank < s.rank))) return;
  if (!s) {
    s = { version: null };
    objects.set(uri, s);
  }
  if (version !== null) s.version = version;
  s.rank = rank;
  s.removed = removes;
  // removed, or a new state that came without its content (large-object fallback, deltas, change request)
  if (removes || !full) delete s.attributes;
  else if (p.object.attributes !== undefined) s.attributes = p.object.attributes; // absent = filtered out, unchanged
}

let lineNo = 0;
const rl = readline.createInterface({ input: fs.createReadStream(IN), crlfDelay: Number.POSITIVE_INFINITY });
for await (const line of rl) {
  lineNo++;
  if (!line.trim()) continue;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    console.error(`${JOB}: line ${lineNo} is not JSON, skipped`);
    continue;
  }
  apply(msg);
}
const rows = [];
for (const [uri, s] of objects) {
  const row = { uri, removed: s.removed };
  if (s.version !== null) row.objectVersion = s.version;
  if (!s.removed && s.attributes !== undefined) row.attributes = s.attributes;
  rows.push(JSON.stringify(row));
}
fs.writeFileSync(OUT, rows.length ? `${rows.join('\n')}\n` : '');
