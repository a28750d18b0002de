// Entitlement checker: only needs to know which objects of the tenant currently exist and at which
// version. Events wait in a per-object reorder buffer and are released in objectVersion order.
import fs from 'node:fs';

const { LCKIT_EVENTS_FILE: input, LCKIT_VIEW_FILE: output, LCKIT_TENANT: tenant = '', LCKIT_MESSAGES: n = '0' } = process.env;

// lifecycle effect of each event type on whether the object exists
const EFFECT = {
  ENTITY_CREATED: 'exists', ENTITY_CHANGED: 'exists', ENTITY_LOST_MERGE: 'exists', ENTITIES_SPLITTED: 'exists',
  ENTITIES_MATCHES_CHANGED: 'exists', ENTITY_BUSINESS_PROCESS_CHANGED: 'exists',
  ENTITY_REMOVED: 'gone', ENTITY_REMOVED_GDPR: 'gone',
  RELATIONSHIP_CREATED: 'exists', RELATIONSHIP_CHANGED: 'exists', RELATIONSHIP_MERGED: 'exists',
  RELATIONSHIP_REMOVED: 'gone', RELATIONSHIP_REMOVED_GDPR: 'gone', RELATION_LOST_MERGE: 'gone',
  INTERACTION_CREATED: 'exists', INTERACTION_CHANGED: 'exists', INTERACTION_REMOVED: 'gone',
  CHANGE_REQUEST_CREATED: 'exists', CHANGE_REQUEST_CHANGED: 'exists', CHANGE_REQUEST_REMOVED: 'gone',
};

const objects = new Map();

function objectFor(uri) {
  let o = objects.get(uri);
  if (!o) {
    o = { buffer: new Map(), plain: [], fingerprints: new Set(), released: 0, version: undefined, state: undefined };
    objects.set(uri, o);
  }
  return o;
}

function release(o, flushAll) {
  // release contiguous versions; at the end, release whatever is left in ascending order
  const keys = [...o.buffer.keys()].sort((a, b) => a - b);
  for (const v of keys) {
    if (!flushAll && o.version !== undefined && v !== o.version + 1) break;
    if (o.version !== undefined && v <= o.version) { o.buffer.delete(v); continue; }
    o.state = EFFECT[o.buffer.get(v)];
    o.version = v;
    o.released++;
    o.buffer.delete(v);
  }
}

function handle(line) {
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  const headers = msg?.headers ?? {};
  const payload = msg?.payload ?? {};
  if (tenant && headers.tenantId != null && headers.tenantId !== tenant) return;
  const type = headers.eventType ?? payload?.type;
  if (!Object.hasOwn(EFFECT, type)) return;
  const uri = headers.sourceObjectUri ?? payload?.uri ?? payload?.object?.uri;
  if (!uri) return;
  const o = objectFor(uri);
  if (Number.isInteger(headers.objectVersion)) {
    const v = headers.objectVersion;
    if (o.buffer.has(v) || (o.version !== undefined && v <= o.version)) return;
    o.buffer.set(v, type);
    release(o, false);
  } else {
    const fp = type + '\u0000' + canonical(payload);
    if (o.fingerprints.has(fp)) return;
    o.fingerprints.add(fp);
    o.state = EFFECT[type];
    o.released++;
  }
}

function canonical(x) {
  if (Array.isArray(x)) return '[' + x.map(canonical).join(',') + ']';
  if (x && typeof x === 'object') return '{' + Object.keys(x).sort().map((k) => JSON.stringify(k) + ':' + canonical(x[k])).join(',') + '}';
  return JSON.stringify(x);
}

let written = false;
function finish() {
  if (written) return;
  written = true;
  let text = '';
  for (const [uri, o] of objects) {
    release(o, true);
    const rec = { uri, removed: o.state === 'gone' };
    if (o.version !== undefined) rec.objectVersion = o.version;
    rec.exists = o.state !== 'gone';
    text += JSON.stringify(rec) + '\n';
  }
  fs.writeFileSync(output, text);
  process.exit(0);
}
process.on('SIGTERM', finish);

const expected = Number.parseInt(n, 10) || 0;
const startedAt = Date.now();
let consumedLines = 0;
let byteOffset = 0;
let fragment = '';
function tick() {
  if (fs.existsSync(input)) {
    const size = fs.statSync(input).size;
    if (size > byteOffset) {
      const fd = fs.openSync(input, 'r');
      const b = Buffer.alloc(size - byteOffset);
      fs.readSync(fd, b, 0, b.length, byteOffset);
      fs.closeSync(fd);
      byteOffset = size;
      fragment += b.toString('utf8');
      const ls = fragment.split('\n');
      fragment = ls.pop();
      for (const l of ls) if (l.trim()) { consumedLines++; handle(l); }
    }
  }
  if (!expected || consumedLines >= expected || Date.now() - startedAt >= 40000) {
    if (fragment.trim()) handle(fragment);
    return finish();
  }
  setTimeout(tick, 30);
}
tick();
