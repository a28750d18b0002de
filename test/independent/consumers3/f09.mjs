#!/usr/bin/env node
// Audit trail builder (compliance team). Node 20, built-ins only.
// Keeps every message of every object of the tenant, and only when the input ends decides each object's
// latest state by replaying its messages in objectVersion order.
// Choices where the interface leaves room: replay at the end rather than as messages arrive; a message
// without objectVersion is placed right after the versioned messages that arrived before it (its
// version is carried forward), arrival order breaking ties; re-sends are recognised by (uri, event type,
// objectVersion) when the version is present, by their full content otherwise; the view is written in
// the order objects first appeared, with the object's last applied event type (lastEventType).
const JOB = 'f09';
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
  'RELATION_LOST_MERGE',
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

const history = new Map(); // sourceObjectUri -> [{ order, rank, removes, full, payload, type }]
const seen = new Set();
let arrival = 0;

function record(msg) {
  if (!msg || typeof msg !== 'object') return;
  const h = msg.headers && typeof msg.headers === 'object' ? msg.headers : {};
  const p = msg.payload && typeof msg.payload === 'object' ? msg.payload : {};
  if (TENANT && h.tenantId !== undefined && h.tenantId !== TENANT) return;
  const uri = h.sourceObjectUri || p.uri || p.object?.uri;
  if (!uri) return;
  const type = h.eventType || p.type;
  const removes = REMOVES.has(type);
  if (!removes && !KEEPS.has(type)) return; // unsupported or unknown: nothing to replay
  const version = versionOf(h);
  const key = version !== null ? `${uri}\u0000${type}\u0000${version}` : canonical(msg);
  if (seen.has(key)) return;
  seen.add(key);
  let list = history.get(uri);
  if (!list) history.set(uri, (list = []));
  const carried = version ?? (list.length ? list[list.length - 1].version : null);
  const full = !removes && p.object && typeof p.object === 'object' && !p.exceededQueueSizeLimit;
  list.push({ version: carried, arrival: arrival++, rank: removes ? 2 : full ? 1 : 0, removes, full, payload: p, type });
}

let lineNo = 0;
const rl = readline.createInterface({ input: fs.createReadStream(IN), crlfDelay: Number.POSITIVE_INFINITY });
for await (const line of rl) {
  lineNo++;
  if (!line.trim()) continue;
  try {
    record(JSON.parse(line));
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    console.error(`${JOB}: line ${lineNo} is not JSON, skipped`);
  }
}

const rows = [];
for (const [uri, list] of history) {
  const ordered = list.slice().sort((a, b) => {
    if (a.version !== null && b.version !== null && a.version !== b.version) return a.version - b.version;
    // at one version a removal beats a snapshot beats a partial message; without versions, arrival decides
    if (a.version !== null && a.version === b.version && a.rank !== b.rank) return a.rank - b.rank;
    return a.arrival - b.arrival;
  });
  let removed = false;
  let attributes;
  let version = null;
  let last = null;
  for (const m of ordered) {
    removed = m.removes;
    if (m.version !== null) version = m.version;
    last = m.type;
    if (m.removes || !m.full) attributes = undefined;
    else if (m.payload.object.attributes !== undefined) attributes = m.payload.object.attributes;
  }
  const row = { uri, removed, lastEventType: last };
  if (version !== null) row.objectVersion = version;
  if (!removed && attributes !== undefined) row.attributes = attributes;
  rows.push(JSON.stringify(row));
}
fs.writeFileSync(OUT, rows.length ? `${rows.join('\n')}\n` : '');
