// Ledger team: presence ledger of a tenant's objects (no attribute content kept).
// Keeps, per object, every distinct event it has seen and folds them by objectVersion at the end.
import fs from 'node:fs';

const TENANT = process.env.LCKIT_TENANT || '';
const SRC = process.env.LCKIT_EVENTS_FILE;
const OUT = process.env.LCKIT_VIEW_FILE;
const EXPECTED = Number.parseInt(process.env.LCKIT_MESSAGES || '0', 10) || 0;

const GONE = new Set(['ENTITY_REMOVED', 'ENTITY_REMOVED_GDPR', 'ENTITY_LOST_MERGE', 'RELATIONSHIP_REMOVED',
  'RELATIONSHIP_REMOVED_GDPR', 'RELATION_LOST_MERGE', 'INTERACTION_REMOVED', 'CHANGE_REQUEST_REMOVED']);
const LIVE = new Set(['ENTITY_CREATED', 'ENTITY_CHANGED', 'RELATIONSHIP_CREATED', 'RELATIONSHIP_CHANGED',
  'INTERACTION_CREATED', 'INTERACTION_CHANGED', 'ENTITIES_SPLITTED', 'ENTITIES_MATCHES_CHANGED',
  'RELATIONSHIP_MERGED', 'ENTITY_BUSINESS_PROCESS_CHANGED', 'CHANGE_REQUEST_CREATED', 'CHANGE_REQUEST_CHANGED']);

const ledger = new Map(); // uri -> { versioned: Map<version, type>, unversioned: [type...], seenKeys:Set }
let consumed = 0;
let carry = '';
let offset = 0;
let done = false;

function canon(v) {
  if (Array.isArray(v)) return '[' + v.map(canon).join(',') + ']';
  if (v && typeof v === 'object') return '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + canon(v[k])).join(',') + '}';
  return JSON.stringify(v);
}

function take(line) {
  if (!line.trim()) return;
  consumed++;
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  const h = (msg && msg.headers) || {};
  const body = (msg && msg.payload) || {};
  if (TENANT && h.tenantId !== undefined && h.tenantId !== TENANT) return;
  const kind = h.eventType || body.type;
  if (!GONE.has(kind) && !LIVE.has(kind)) return; // unused, unsupported or unknown types
  const uri = h.sourceObjectUri || body.uri || (body.object && body.object.uri);
  if (!uri) return;
  let rec = ledger.get(uri);
  if (!rec) { rec = { versioned: new Map(), unversioned: [], seenKeys: new Set() }; ledger.set(uri, rec); }
  const v = h.objectVersion;
  if (Number.isInteger(v)) {
    if (!rec.versioned.has(v)) rec.versioned.set(v, kind);
  } else {
    const key = canon(body) + '|' + kind;
    if (rec.seenKeys.has(key)) return;
    rec.seenKeys.add(key);
    rec.unversioned.push(kind);
  }
}

function pump() {
  let size;
  try { size = fs.statSync(SRC).size; } catch { return; }
  if (size <= offset) return;
  const fd = fs.openSync(SRC, 'r');
  try {
    const buf = Buffer.alloc(size - offset);
    fs.readSync(fd, buf, 0, buf.length, offset);
    offset = size;
    carry += buf.toString('utf8');
  } finally { fs.closeSync(fd); }
  const parts = carry.split('\n');
  carry = parts.pop();
  for (const p of parts) take(p);
}

function finish() {
  if (done) return;
  done = true;
  if (carry) { take(carry); carry = ''; }
  const out = [];
  for (const [uri, rec] of ledger) {
    const line = { uri, removed: false };
    if (rec.versioned.size) {
      const top = Math.max(...rec.versioned.keys());
      line.removed = GONE.has(rec.versioned.get(top));
      line.objectVersion = top;
    }
    if (rec.unversioned.length) line.removed = GONE.has(rec.unversioned[rec.unversioned.length - 1]);
    line.eventsSeen = rec.versioned.size + rec.unversioned.length;
    out.push(JSON.stringify(line));
  }
  fs.writeFileSync(OUT, out.join('\n') + (out.length ? '\n' : ''));
  process.exit(0);
}

process.on('SIGTERM', finish);
const started = Date.now();
(function loop() {
  pump();
  if ((EXPECTED && consumed >= EXPECTED) || !EXPECTED || Date.now() - started > 40000) return finish();
  setTimeout(loop, 40);
})();
