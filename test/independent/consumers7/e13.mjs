// Pharmacy-network directory. Holds one state object per URI plus a pending queue of events
// sorted by objectVersion; the queue is drained into the state when input ends.
import fs from 'node:fs';

const env = process.env;
const terminal = ['ENTITY_REMOVED', 'ENTITY_REMOVED_GDPR', 'ENTITY_LOST_MERGE', 'RELATIONSHIP_REMOVED',
  'RELATIONSHIP_REMOVED_GDPR', 'RELATION_LOST_MERGE', 'INTERACTION_REMOVED', 'CHANGE_REQUEST_REMOVED', 'GROUP_REMOVED'];
const ordinary = ['ENTITY_CREATED', 'ENTITY_CHANGED', 'RELATIONSHIP_CREATED', 'RELATIONSHIP_CHANGED',
  'RELATIONSHIP_MERGED', 'GROUP_CREATED', 'GROUP_CHANGED', 'INTERACTION_CREATED', 'INTERACTION_CHANGED',
  'ENTITIES_SPLITTED', 'ENTITIES_MATCHES_CHANGED', 'ENTITY_BUSINESS_PROCESS_CHANGED', 'CHANGE_REQUEST_CREATED',
  'CHANGE_REQUEST_CHANGED'];

const directory = {};
let arrivals = 0;

function entryFor(uri) {
  return (directory[uri] ??= { uri, removed: false, version: null, attributes: null, queue: [] });
}

function receive(msg) {
  const hdr = msg?.headers ?? {};
  const pl = msg?.payload && typeof msg.payload === 'object' ? msg.payload : {};
  if (env.LCKIT_TENANT && hdr.tenantId != null && hdr.tenantId !== env.LCKIT_TENANT) return;
  const type = hdr.eventType ?? pl.type;
  if (!terminal.includes(type) && !ordinary.includes(type)) return;
  const uri = hdr.sourceObjectUri ?? pl.uri ?? pl.object?.uri;
  if (!uri) return;
  arrivals++;
  const ver = hdr.objectVersion == null ? null : Number(hdr.objectVersion);
  const ent = entryFor(uri);
  if (ver !== null && Number.isFinite(ver) && ent.queue.some((q) => q.ver === ver)) return;
  ent.queue.push({ ver: Number.isFinite(ver) ? ver : null, arrival: arrivals, type, pl });
}

function changes(pl) {
  const d = pl.deltas;
  if (d?.deltaCollection && Array.isArray(d.deltaCollection.delta)) return d.deltaCollection.delta;
  return Array.isArray(d?.delta) ? d.delta : [];
}

function drain(ent) {
  ent.queue.sort((x, y) => {
    if (x.ver !== null && y.ver !== null) return x.ver - y.ver || x.arrival - y.arrival;
    if (x.ver === null && y.ver === null) return x.arrival - y.arrival;
    return x.ver === null ? 1 : -1;
  });
  for (const ev of ent.queue) {
    if (ev.ver !== null) ent.version = ev.ver;
    ent.removed = terminal.includes(ev.type);
    if (ev.pl.object && typeof ev.pl.object === 'object') {
      if (ev.pl.object.attributes && typeof ev.pl.object.attributes === 'object') ent.attributes = ev.pl.object.attributes;
    } else if ('deltas' in ev.pl && ev.pl.exceededQueueSizeLimit !== true) {
      const attrs = { ...(ent.attributes ?? {}) };
      for (const c of changes(ev.pl)) {
        if (typeof c?.attributeType !== 'string') continue;
        if (c.type !== 'ATTRIBUTE_CHANGED' && c.type !== 'ATTRIBUTE_ADDED') continue; // value updates only
        const name = c.attributeType.split('/').slice(-1)[0];
        const vals = [...(attrs[name] ?? [])];
        const i = vals.findIndex((v) => c.oldValue?.id !== undefined && v?.id === c.oldValue.id);
        const j = vals.findIndex((v) => c.newValue?.id !== undefined && v?.id === c.newValue.id);
        if (c.newValue == null) continue;
        if (i >= 0) vals[i] = c.newValue;
        else if (j >= 0) vals[j] = c.newValue;
        else vals.push(c.newValue);
        attrs[name] = vals;
      }
      ent.attributes = attrs;
    }
    if (ev.type === 'ENTITY_REMOVED_GDPR') ent.attributes = null;
  }
  ent.queue = [];
}

let finished = false;
function finish() {
  if (finished) return;
  finished = true;
  let text = '';
  for (const ent of Object.values(directory)) {
    drain(ent);
    const line = { uri: ent.uri, removed: ent.removed };
    if (ent.version !== null) line.objectVersion = ent.version;
    if (ent.attributes) line.attributes = ent.attributes;
    text += JSON.stringify(line) + '\n';
  }
  fs.writeFileSync(env.LCKIT_VIEW_FILE, text);
  process.exit(0);
}
process.on('SIGTERM', finish);

const expectedLines = Number(env.LCKIT_MESSAGES) || 0;
const stopAt = Date.now() + 40000;
let linesDone = 0;
let byteOffset = 0;
let partial = Buffer.alloc(0);
function poll() {
  try {
    const st = fs.statSync(env.LCKIT_EVENTS_FILE);
    if (st.size > byteOffset) {
      const fd = fs.openSync(env.LCKIT_EVENTS_FILE, 'r');
      const b = Buffer.alloc(st.size - byteOffset);
      const n = fs.readSync(fd, b, 0, b.length, byteOffset);
      fs.closeSync(fd);
      byteOffset += n;
      partial = Buffer.concat([partial, b.subarray(0, n)]);
    }
  } catch { /* not yet */ }
  let idx;
  while ((idx = partial.indexOf(10)) >= 0) {
    const line = partial.subarray(0, idx).toString('utf8');
    partial = partial.subarray(idx + 1);
    if (!line.trim()) continue;
    linesDone++;
    try { receive(JSON.parse(line)); } catch { /* ignore bad line */ }
  }
  if (linesDone >= expectedLines || Date.now() > stopAt) {
    const tail = partial.toString('utf8');
    if (tail.trim()) { try { receive(JSON.parse(tail)); } catch { /* ignore */ } }
    finish();
    return;
  }
  setTimeout(poll, 100);
}
poll();
