// Catalogue-sync team: mirrors entities, relations, interactions and change requests into an
// in-memory catalogue. Each object keeps its events sorted by objectVersion and is re-derived when an
// event lands out of order; attribute values are keyed by their value id.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';

const env = process.env;
const KINDS = {
  ENTITY_CREATED: 'create', RELATIONSHIP_CREATED: 'create', INTERACTION_CREATED: 'create', CHANGE_REQUEST_CREATED: 'create',
  ENTITY_CHANGED: 'update', RELATIONSHIP_CHANGED: 'update', INTERACTION_CHANGED: 'update', CHANGE_REQUEST_CHANGED: 'update',
  ENTITIES_SPLITTED: 'update', ENTITIES_MATCHES_CHANGED: 'update', RELATIONSHIP_MERGED: 'update',
  ENTITY_BUSINESS_PROCESS_CHANGED: 'update',
  ENTITY_REMOVED: 'delete', RELATIONSHIP_REMOVED: 'delete', INTERACTION_REMOVED: 'delete', CHANGE_REQUEST_REMOVED: 'delete',
  ENTITY_LOST_MERGE: 'delete', RELATION_LOST_MERGE: 'delete',
  ENTITY_REMOVED_GDPR: 'erase', RELATIONSHIP_REMOVED_GDPR: 'erase',
};

class CatalogueItem {
  constructor(uri) { this.uri = uri; this.events = []; this.arrival = 0; }
  add(evt) {
    if (evt.version != null) {
      if (this.events.some((e) => e.version === evt.version)) return false;
      let i = this.events.length;
      while (i > 0 && this.events[i - 1].version > evt.version) i--;
      this.events.splice(i, 0, evt);
    } else {
      if (this.events.some((e) => e.digest === evt.digest)) return false;
      this.events.push(evt);
    }
    return true;
  }
  derive() {
    const s = { uri: this.uri, removed: false };
    let values = null; // Map name -> Map valueKey -> element
    for (const evt of this.events) {
      const kind = KINDS[evt.type];
      if (evt.version != null) s.objectVersion = evt.version;
      if (kind === 'create' || kind === 'erase') values = null;
      const obj = evt.body.object;
      if (kind !== 'erase' && obj && typeof obj === 'object' && obj.attributes && typeof obj.attributes === 'object') {
        values = new Map();
        for (const [name, list] of Object.entries(obj.attributes)) {
          const m = new Map();
          (Array.isArray(list) ? list : []).forEach((el, n) => m.set(valueKey(el) ?? `#${n}`, el));
          values.set(name, m);
        }
      } else if (kind !== 'erase' && evt.body.deltas) {
        const items = deltaList(evt.body.deltas);
        if (items.length) values = values ?? new Map();
        for (const d of items) patch(this.uri, values, d);
      }
      s.removed = kind === 'delete' || kind === 'erase';
      s.lastType = evt.type;
    }
    if (values && !s.removed) {
      s.attributes = {};
      for (const [name, m] of values) if (m.size) s.attributes[name] = [...m.values()];
    }
    return s;
  }
}

function valueKey(el) {
  if (!el || typeof el !== 'object') return undefined;
  if (typeof el.uri === 'string') return el.uri.split('/').pop();
  return el.id;
}
function deltaList(d) {
  const coll = d.deltaCollection && typeof d.deltaCollection === 'object' ? d.deltaCollection : d;
  return Array.isArray(coll.delta) ? coll.delta : [];
}
function patch(uri, values, d) {
  if (!d || typeof d.attributeType !== 'string') return;
  const name = d.attributeType.split('/attributes/')[1]?.split('/')[0];
  if (!name) return;
  if (!values.has(name)) values.set(name, new Map());
  const m = values.get(name);
  if (d.oldValue && typeof d.oldValue === 'object') {
    if (d.oldValue.id != null && m.has(String(d.oldValue.id))) m.delete(String(d.oldValue.id));
    else for (const [k, el] of m) if (JSON.stringify(el.value) === JSON.stringify(d.oldValue.value)) { m.delete(k); break; }
  }
  if (d.type !== 'ATTRIBUTE_REMOVED' && d.newValue && typeof d.newValue === 'object') {
    const { id, sources, ...rest } = d.newValue;
    m.set(String(id), { type: d.attributeType, ...rest, uri: `${uri}/attributes/${name}/${id}` });
  }
}

const catalogue = new Map();
function ingest(text) {
  let m;
  try { m = JSON.parse(text); } catch { return; }
  const headers = m?.headers ?? {};
  const body = m?.payload && typeof m.payload === 'object' ? m.payload : {};
  if (env.LCKIT_TENANT && headers.tenantId != null && headers.tenantId !== env.LCKIT_TENANT) return;
  const type = headers.eventType ?? body.type;
  if (!(type in KINDS)) return;
  const uri = headers.sourceObjectUri ?? body.uri ?? body.object?.uri;
  if (typeof uri !== 'string' || !uri) return;
  const version = Number.isInteger(headers.objectVersion) ? headers.objectVersion : null;
  if (!catalogue.has(uri)) catalogue.set(uri, new CatalogueItem(uri));
  catalogue.get(uri).add({ type, version, body, digest: type + stable(body) });
}
function stable(v) {
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stable(v[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

let flushed = false;
function flush() {
  if (flushed) return;
  flushed = true;
  const lines = [...catalogue.values()].map((item) => JSON.stringify(item.derive()));
  writeFileSync(env.LCKIT_VIEW_FILE, lines.map((l) => l + '\n').join(''));
  process.exit(0);
}
process.on('SIGTERM', flush);

const want = Number(env.LCKIT_MESSAGES) || 0;
const begin = Date.now();
let handled = 0;
function poll() {
  const text = existsSync(env.LCKIT_EVENTS_FILE) ? readFileSync(env.LCKIT_EVENTS_FILE, 'utf8') : '';
  const lines = text.split('\n');
  const complete = text.endsWith('\n') ? lines.length - 1 : lines.length - 1;
  const nonEmpty = lines.slice(0, complete).filter((l) => l.trim());
  for (let i = handled; i < nonEmpty.length; i++) ingest(nonEmpty[i]);
  handled = Math.max(handled, nonEmpty.length);
  if (!want || handled >= want || Date.now() - begin > 40000) {
    const tail = text.endsWith('\n') ? '' : lines[lines.length - 1];
    if (tail.trim()) ingest(tail);
    return flush();
  }
  setTimeout(poll, 60);
}
poll();
