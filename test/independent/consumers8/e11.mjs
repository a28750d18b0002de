// Master-data cache warmer: a synchronous batch job that reads the tenant's event file, keeps the
// events of each object keyed by objectVersion, and writes the resulting cache image.
import { openSync, readSync, closeSync, writeFileSync } from 'node:fs';

const sleepMs = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const ENV = process.env;

const REMOVAL = /^(ENTITY_REMOVED|ENTITY_REMOVED_GDPR|ENTITY_LOST_MERGE|RELATIONSHIP_REMOVED|RELATIONSHIP_REMOVED_GDPR|RELATION_LOST_MERGE|INTERACTION_REMOVED|CHANGE_REQUEST_REMOVED)$/;
const NORMAL = /^(ENTITY_CREATED|ENTITY_CHANGED|RELATIONSHIP_CREATED|RELATIONSHIP_CHANGED|INTERACTION_CREATED|INTERACTION_CHANGED|CHANGE_REQUEST_CREATED|CHANGE_REQUEST_CHANGED|ENTITIES_SPLITTED|ENTITIES_MATCHES_CHANGED|RELATIONSHIP_MERGED|ENTITY_BUSINESS_PROCESS_CHANGED)$/;

const cache = new Map(); // uri -> { versioned: Map, loose: Map(fingerprint -> event) }
let order = 0;

function canonical(x) {
  return Array.isArray(x) ? `[${x.map(canonical)}]`
    : x && typeof x === 'object' ? `{${Object.keys(x).sort().map((k) => `${JSON.stringify(k)}:${canonical(x[k])}`)}}`
    : JSON.stringify(x);
}

function ingest(line) {
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  const hd = msg?.headers || {};
  const pl = msg?.payload && typeof msg.payload === 'object' ? msg.payload : {};
  if (ENV.LCKIT_TENANT && hd.tenantId != null && hd.tenantId !== ENV.LCKIT_TENANT) return;
  const et = hd.eventType || pl.type;
  if (!REMOVAL.test(et ?? '') && !NORMAL.test(et ?? '')) return;
  const uri = hd.sourceObjectUri || pl.uri || pl.object?.uri;
  if (!uri) return;
  if (!cache.has(uri)) cache.set(uri, { versioned: new Map(), loose: new Map() });
  const slot = cache.get(uri);
  const ev = { et, pl, order: order++ };
  if (Number.isInteger(hd.objectVersion)) {
    if (!slot.versioned.has(hd.objectVersion)) slot.versioned.set(hd.objectVersion, ev);
  } else {
    const fp = et + canonical(pl);
    if (!slot.loose.has(fp)) slot.loose.set(fp, ev);
  }
}

function deltaItems(d) {
  if (!d || typeof d !== 'object') return [];
  const c = d.deltaCollection && typeof d.deltaCollection === 'object' ? d.deltaCollection : d;
  return Array.isArray(c.delta) ? c.delta : [];
}

function image(uri, slot) {
  const seq = slot.versioned.size
    ? [...slot.versioned.entries()].sort((a, b) => a[0] - b[0])
    : [...slot.loose.values()].sort((a, b) => a.order - b.order).map((e) => [undefined, e]);
  const img = { uri, removed: false };
  let attributes;
  for (const [ver, { et, pl }] of seq) {
    if (ver !== undefined) img.objectVersion = ver;
    img.removed = REMOVAL.test(et);
    if (et.endsWith('_CREATED') || et.endsWith('_GDPR')) attributes = undefined;
    if (et.endsWith('_GDPR')) continue;
    if (pl.object && typeof pl.object === 'object') {
      attributes = structuredClone(pl.object.attributes ?? {});
      continue;
    }
    for (const d of deltaItems(pl.deltas)) {
      if (typeof d?.attributeType !== 'string' || !d.attributeType.includes('/attributes/')) continue;
      const name = d.attributeType.split('/attributes/')[1].split('/')[0];
      attributes ??= {};
      let vals = attributes[name] ?? [];
      if (d.oldValue) {
        const hit = vals.findIndex((v) => String(v?.uri ?? '').endsWith(`/${d.oldValue.id}`));
        const idx = hit >= 0 ? hit : vals.findIndex((v) => canonical(v?.value) === canonical(d.oldValue.value));
        if (idx >= 0) vals = vals.toSpliced(idx, 1);
      }
      if (d.type !== 'ATTRIBUTE_REMOVED' && d.newValue) {
        const { id, sources, ...val } = d.newValue;
        const u = `${uri}/attributes/${name}/${id}`;
        vals = [...vals.filter((v) => v?.uri !== u), { type: d.attributeType, ...val, uri: u }];
      }
      if (vals.length) attributes[name] = vals; else delete attributes[name];
    }
  }
  if (attributes && !img.removed) img.attributes = attributes;
  img.cachedEvents = seq.length;
  return img;
}

function write() {
  writeFileSync(ENV.LCKIT_VIEW_FILE, [...cache].map(([u, s]) => JSON.stringify(image(u, s)) + '\n').join(''));
  process.exit(0);
}

let sigterm = false;
process.on('SIGTERM', () => { sigterm = true; });

const need = Number(ENV.LCKIT_MESSAGES) || 0;
const giveUp = Date.now() + 40000;
let got = 0, pos = 0, tail = '';
const buf = Buffer.alloc(1 << 16);
while (true) {
  let fd = -1;
  try { fd = openSync(ENV.LCKIT_EVENTS_FILE, 'r'); } catch { /* not yet */ }
  if (fd >= 0) {
    let r;
    while ((r = readSync(fd, buf, 0, buf.length, pos)) > 0) { pos += r; tail += buf.toString('utf8', 0, r); }
    closeSync(fd);
  }
  const chunks = tail.split('\n');
  tail = chunks.pop();
  for (const c of chunks) if (c.trim()) { got++; ingest(c); }
  if (!need || got >= need || Date.now() > giveUp || sigterm) break;
  sleepMs(50);
  await new Promise((r) => setImmediate(r)); // let a pending SIGTERM be delivered
}
if (tail.trim()) ingest(tail);
write();
