// Product-catalogue replica. An EventStore keeps, per object, a map of objectVersion -> event
// (so re-deliveries collapse) and projects the current state on demand.
import * as fs from 'node:fs';

class EventStore {
  static REMOVING = new Set(['ENTITY_REMOVED', 'ENTITY_REMOVED_GDPR', 'ENTITY_LOST_MERGE', 'RELATIONSHIP_REMOVED',
    'RELATIONSHIP_REMOVED_GDPR', 'RELATION_LOST_MERGE', 'INTERACTION_REMOVED', 'CHANGE_REQUEST_REMOVED',
    'GROUP_REMOVED']);
  static OTHER = new Set(['ENTITY_CREATED', 'ENTITY_CHANGED', 'RELATIONSHIP_CREATED', 'RELATIONSHIP_CHANGED',
    'GROUP_CREATED', 'GROUP_CHANGED', 'INTERACTION_CREATED', 'INTERACTION_CHANGED', 'ENTITIES_SPLITTED',
    'ENTITIES_MATCHES_CHANGED', 'RELATIONSHIP_MERGED', 'ENTITY_BUSINESS_PROCESS_CHANGED', 'CHANGE_REQUEST_CREATED',
    'CHANGE_REQUEST_CHANGED']);

  constructor(tenant) {
    this.tenant = tenant;
    this.byUri = new Map();
    this.unversioned = 0;
  }

  add(headers, payload) {
    if (this.tenant && headers.tenantId != null && headers.tenantId !== this.tenant) return;
    const type = headers.eventType || payload.type;
    if (!EventStore.REMOVING.has(type) && !EventStore.OTHER.has(type)) return;
    const uri = headers.sourceObjectUri || payload.uri || payload.object?.uri;
    if (!uri) return;
    if (!this.byUri.has(uri)) this.byUri.set(uri, new Map());
    const events = this.byUri.get(uri);
    const hv = headers.objectVersion;
    const key = hv == null || Number.isNaN(Number(hv)) ? `u${String(++this.unversioned).padStart(9, '0')}` : Number(hv);
    if (!events.has(key)) events.set(key, { type, payload });
  }

  static body(payload) {
    // a message of the large-object fallback carries no object: treat it as an empty one
    if (payload.exceededQueueSizeLimit && !payload.object && !payload.deltas) return { object: { attributes: {} } };
    return payload;
  }

  static applyDelta(attrs, deltas) {
    const coll = deltas && typeof deltas === 'object' && deltas.deltaCollection ? deltas.deltaCollection : deltas;
    const list = Array.isArray(coll?.delta) ? coll.delta : [];
    for (const d of list) {
      if (!d || typeof d.attributeType !== 'string') continue;
      const name = d.attributeType.split('/').at(-1);
      const cur = attrs[name] ?? [];
      const oid = d.oldValue?.id;
      const nid = d.newValue?.id;
      const i = oid === undefined ? -1 : cur.findIndex((v) => v?.id === oid);
      let out;
      if (d.type === 'ATTRIBUTE_REMOVED') out = cur.filter((_, j) => j !== i);
      else if (d.newValue == null) out = cur;
      else if (i >= 0) out = cur.map((v, j) => (j === i ? d.newValue : v)).filter((v, j) => j === i || nid === undefined || v?.id !== nid);
      else out = [...cur.filter((v) => nid === undefined || v?.id !== nid), d.newValue];
      if (out.length) attrs[name] = out; else delete attrs[name];
    }
  }

  project(uri) {
    const events = this.byUri.get(uri);
    const keys = [...events.keys()].sort((a, b) => {
      if (typeof a === 'number' && typeof b === 'number') return a - b;
      if (typeof a === 'number') return -1;
      if (typeof b === 'number') return 1;
      return a < b ? -1 : a > b ? 1 : 0;
    });
    const view = { uri, removed: false };
    let attrs;
    for (const k of keys) {
      const { type, payload } = events.get(k);
      if (typeof k === 'number') view.objectVersion = k;
      view.removed = EventStore.REMOVING.has(type);
      const b = EventStore.body(payload);
      if (b.object && typeof b.object === 'object') {
        if (b.object.attributes && typeof b.object.attributes === 'object') attrs = b.object.attributes;
      } else if (b.deltas !== undefined && !b.exceededQueueSizeLimit) {
        attrs = { ...(attrs ?? {}) };
        EventStore.applyDelta(attrs, b.deltas);
      }
      if (type === 'ENTITY_REMOVED_GDPR') attrs = undefined;
    }
    if (attrs !== undefined) view.attributes = attrs;
    view.versionsHeld = keys.length;
    return view;
  }

  dump(file) {
    const out = [];
    for (const uri of this.byUri.keys()) out.push(JSON.stringify(this.project(uri)));
    fs.writeFileSync(file, out.join('\n') + (out.length ? '\n' : ''));
  }
}

const store = new EventStore(process.env.LCKIT_TENANT);
let closed = false;
const close = () => {
  if (closed) return;
  closed = true;
  store.dump(process.env.LCKIT_VIEW_FILE);
  process.exit(0);
};
process.on('SIGTERM', close);

const want = Number(process.env.LCKIT_MESSAGES) || 0;
const t0 = Date.now();
let handled = 0;
const tick = () => {
  let text = '';
  try { text = fs.readFileSync(process.env.LCKIT_EVENTS_FILE, 'utf8'); } catch { /* wait */ }
  const rows = text.split('\n');
  const complete = rows.filter((r, i) => r.trim() && (i < rows.length - 1 || rows.filter((x) => x.trim()).length >= want));
  for (const r of complete.slice(handled)) {
    handled += 1;
    let m;
    try { m = JSON.parse(r); } catch { continue; }
    if (!m || typeof m !== 'object') continue;
    store.add(m.headers && typeof m.headers === 'object' ? m.headers : {},
      m.payload && typeof m.payload === 'object' ? m.payload : {});
  }
  if (handled >= want || Date.now() - t0 > 40_000) close();
  else setTimeout(tick, 120);
};
tick();
