// Team "Atlas" — keeps a local catalogue of a tenant's objects for a data-quality dashboard.
// The messages are kept per object in a list sorted by objectVersion (binary insertion); the state is the
// fold of that list. The object a message is about is taken from the message body itself (object.uri, or
// uri for deltas and large-object messages), which the team trusts more than broker-level properties.
import fsp from 'node:fs/promises';
import fs from 'node:fs';

const TENANT = process.env.LCKIT_TENANT;
const TOTAL = Math.max(0, parseInt(process.env.LCKIT_MESSAGES || '0', 10) || 0);
const IN = process.env.LCKIT_EVENTS_FILE;
const OUT = process.env.LCKIT_VIEW_FILE || 'view.ndjson';

const Kind = {
  remove: new Set('ENTITY_REMOVED ENTITY_REMOVED_GDPR ENTITY_LOST_MERGE RELATIONSHIP_REMOVED RELATIONSHIP_REMOVED_GDPR RELATION_LOST_MERGE INTERACTION_REMOVED CHANGE_REQUEST_REMOVED GROUP_REMOVED'.split(' ')),
  keep: new Set('ENTITY_CREATED ENTITY_CHANGED ENTITIES_SPLITTED ENTITIES_MATCHES_CHANGED ENTITY_BUSINESS_PROCESS_CHANGED RELATIONSHIP_CREATED RELATIONSHIP_CHANGED RELATIONSHIP_MERGED INTERACTION_CREATED INTERACTION_CHANGED CHANGE_REQUEST_CREATED CHANGE_REQUEST_CHANGED GROUP_CREATED GROUP_CHANGED'.split(' ')),
};

class Catalogue {
  constructor() { this.lists = new Map(); this.late = 0; }
  add(uri, entry) {
    const list = this.lists.get(uri) ?? [];
    let lo = 0, hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid].version < entry.version) lo = mid + 1; else hi = mid;
    }
    if (lo < list.length && list[lo].version === entry.version) return; // duplicate delivery
    if (lo < list.length) this.late++;
    list.splice(lo, 0, entry);
    this.lists.set(uri, list);
  }
  static fold(uri, list) {
    let removed = false;
    let attrs;
    for (const e of list) {
      removed = Kind.remove.has(e.type);
      const obj = e.payload.object;
      if (obj && typeof obj === 'object' && obj.attributes && typeof obj.attributes === 'object') {
        attrs = structuredClone(obj.attributes);
      } else if (e.payload.deltas && typeof e.payload.deltas === 'object') {
        attrs = Catalogue.applyDeltas(attrs ?? {}, e.payload.deltas);
      }
    }
    return { removed, attrs };
  }
  static applyDeltas(attrs, deltas) {
    const items = deltas.deltaCollection?.delta ?? deltas.delta;
    if (!Array.isArray(items)) return attrs;
    const sameAs = (a, b) => {
      if (!a || !b) return false;
      const ida = a.id ?? (typeof a.uri === 'string' ? a.uri.slice(a.uri.lastIndexOf('/') + 1) : undefined);
      const idb = b.id ?? (typeof b.uri === 'string' ? b.uri.slice(b.uri.lastIndexOf('/') + 1) : undefined);
      return ida !== undefined && idb !== undefined ? ida === idb : JSON.stringify(a.value) === JSON.stringify(b.value);
    };
    for (const it of items) {
      const m = typeof it?.attributeType === 'string' ? it.attributeType.match(/\/attributes\/([^/]+)/) : null;
      if (!m) continue;
      const name = m[1];
      const vals = attrs[name] ? attrs[name].slice() : [];
      if (it.type === 'ATTRIBUTE_ADDED') {
        if (it.newValue && !vals.some((v) => sameAs(v, it.newValue))) vals.push(it.newValue);
      } else if (it.type === 'ATTRIBUTE_CHANGED') {
        if (!it.newValue) continue;
        const k = vals.findIndex((v) => sameAs(v, it.oldValue));
        if (k >= 0) vals[k] = it.newValue;
        else if (vals.length === 1) vals[0] = it.newValue;
        else vals.push(it.newValue);
      } else if (it.type === 'ATTRIBUTE_REMOVED') {
        const k = vals.findIndex((v) => sameAs(v, it.oldValue));
        if (k >= 0) vals.splice(k, 1);
      } else continue;
      if (vals.length) attrs[name] = vals; else delete attrs[name];
    }
    return attrs;
  }
}

const catalogue = new Catalogue();
let arrival = 0;

function handle(line) {
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  arrival++;
  const headers = msg?.headers ?? {};
  const payload = msg?.payload && typeof msg.payload === 'object' ? msg.payload : {};
  if (TENANT && headers.tenantId !== undefined && headers.tenantId !== TENANT) return;
  const type = headers.eventType ?? payload.type;
  if (!Kind.remove.has(type) && !Kind.keep.has(type)) return;
  const uri = (payload.object && payload.object.uri) || payload.uri;
  if (typeof uri !== 'string' || !uri) return;
  const n = Number(headers.objectVersion);
  const version = headers.objectVersion === undefined || headers.objectVersion === null || !Number.isFinite(n)
    ? 1e12 + arrival : n;
  catalogue.add(uri, { version, type, payload });
}

let flushed = false;
function flush() {
  if (flushed) return;
  flushed = true;
  const out = [];
  for (const [uri, list] of catalogue.lists) {
    const { removed, attrs } = Catalogue.fold(uri, list);
    const row = { uri, removed, versionsHeld: list.length };
    if (attrs) row.attributes = attrs;
    out.push(JSON.stringify(row));
  }
  fs.writeFileSync(OUT, out.length ? out.join('\n') + '\n' : '');
  process.exit(0);
}
process.on('SIGTERM', flush);

async function run() {
  if (!IN) return flush();
  const stopAt = Date.now() + 40000;
  let offset = 0, rest = '', lines = 0;
  for (;;) {
    let fh;
    try {
      fh = await fsp.open(IN, 'r');
      const { size } = await fh.stat();
      if (size > offset) {
        const buf = Buffer.alloc(size - offset);
        await fh.read(buf, 0, buf.length, offset);
        offset = size;
        rest += buf.toString('utf8');
      }
    } catch { /* not yet there */ } finally { await fh?.close(); }
    const pieces = rest.split('\n');
    rest = pieces.pop();
    for (const p of pieces) if (p.trim()) { lines++; handle(p); }
    if (TOTAL === 0 || lines >= TOTAL || Date.now() >= stopAt) break;
    await new Promise((r) => setTimeout(r, 75));
  }
  if (rest.trim()) handle(rest);
  flush();
}
run();
