// Audit-trail service: keeps, for each object of the tenant, its lifecycle status, version, display
// label and attribute values. Implemented as a pure reducer over the events of one object.
import fs from 'node:fs';

const settings = Object.freeze({
  events: process.env.LCKIT_EVENTS_FILE,
  view: process.env.LCKIT_VIEW_FILE,
  tenant: process.env.LCKIT_TENANT ?? '',
  total: Number.parseInt(process.env.LCKIT_MESSAGES ?? '', 10) || 0,
});

function lifecycle(type) {
  switch (type) {
    case 'ENTITY_CREATED': case 'RELATIONSHIP_CREATED': case 'INTERACTION_CREATED': case 'CHANGE_REQUEST_CREATED':
      return 'born';
    case 'ENTITY_CHANGED': case 'RELATIONSHIP_CHANGED': case 'INTERACTION_CHANGED': case 'CHANGE_REQUEST_CHANGED':
    case 'ENTITIES_SPLITTED': case 'ENTITIES_MATCHES_CHANGED': case 'RELATIONSHIP_MERGED': case 'ENTITY_BUSINESS_PROCESS_CHANGED':
      return 'touched';
    case 'ENTITY_REMOVED_GDPR': case 'RELATIONSHIP_REMOVED_GDPR':
      return 'erased';
    case 'ENTITY_REMOVED': case 'ENTITY_LOST_MERGE': case 'RELATIONSHIP_REMOVED': case 'RELATION_LOST_MERGE':
    case 'INTERACTION_REMOVED': case 'CHANGE_REQUEST_REMOVED':
      return 'dead';
    default:
      return null;
  }
}

const normalize = (v) => (Array.isArray(v) ? v.map(normalize)
  : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, normalize(v[k])])) : v);

function reduce(state, ev) {
  const phase = lifecycle(ev.type);
  const next = { ...state, version: ev.version ?? state.version, phase, last: ev.type };
  if (phase === 'born' || phase === 'erased') { next.attributes = undefined; next.label = undefined; }
  if (phase === 'erased') return next;
  const obj = ev.body.object;
  if (obj && typeof obj === 'object') {
    if (obj.attributes && typeof obj.attributes === 'object') next.attributes = structuredClone(obj.attributes);
    if (typeof obj.label === 'string') next.label = obj.label;
    return next;
  }
  const d = ev.body.deltas;
  const list = d?.deltaCollection?.delta ?? d?.delta;
  if (!Array.isArray(list) || !list.length) return next;
  const attrs = structuredClone(next.attributes ?? {});
  for (const item of list) {
    const name = typeof item?.attributeType === 'string' ? item.attributeType.split('/attributes/')[1]?.split('/')[0] : undefined;
    if (!name) continue;
    let values = attrs[name] ?? [];
    if (item.oldValue) {
      const byId = values.findIndex((x) => x?.uri?.endsWith?.('/' + item.oldValue.id));
      const at = byId >= 0 ? byId : values.findIndex((x) => JSON.stringify(normalize(x?.value)) === JSON.stringify(normalize(item.oldValue.value)));
      if (at >= 0) values = values.filter((_, i) => i !== at);
    }
    if (item.type !== 'ATTRIBUTE_REMOVED' && item.newValue) {
      const { id, sources, ...v } = item.newValue;
      const u = `${ev.uri}/attributes/${name}/${id}`;
      values = values.filter((x) => x?.uri !== u).concat({ type: item.attributeType, ...v, uri: u });
    }
    if (values.length) attrs[name] = values; else delete attrs[name];
  }
  next.attributes = attrs;
  return next;
}

const streams = new Map(); // uri -> events[]
let arrivalNo = 0;

function onLine(line) {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  const headers = m?.headers ?? {};
  const body = m?.payload && typeof m.payload === 'object' ? m.payload : {};
  if (settings.tenant && headers.tenantId !== undefined && headers.tenantId !== settings.tenant) return;
  const type = headers.eventType ?? body.type;
  if (!lifecycle(type)) return;
  // the object an event is about: the payload names it (deltas and fallbacks by uri, snapshots in the object)
  const uri = body.uri ?? body.object?.uri;
  if (typeof uri !== 'string') return;
  const version = Number.isInteger(headers.objectVersion) ? headers.objectVersion : undefined;
  const evs = streams.get(uri) ?? [];
  streams.set(uri, evs);
  const print = type + JSON.stringify(normalize(body));
  if (evs.some((e) => (version !== undefined ? e.version === version : e.print === print))) return;
  evs.push({ uri, type, version, body, print, n: arrivalNo++ });
}

function render() {
  const out = [];
  for (const [uri, evs] of streams) {
    const ordered = evs.every((e) => e.version !== undefined) ? [...evs].sort((a, b) => a.version - b.version) : [...evs].sort((a, b) => a.n - b.n);
    const s = ordered.reduce(reduce, { phase: null });
    const removed = s.phase === 'dead' || s.phase === 'erased';
    const rec = { uri, removed };
    if (s.version !== undefined) rec.objectVersion = s.version;
    if (!removed && s.attributes) rec.attributes = s.attributes;
    if (!removed && s.label) rec.label = s.label;
    rec.lastEvent = s.last;
    out.push(JSON.stringify(rec));
  }
  fs.writeFileSync(settings.view, out.length ? out.join('\n') + '\n' : '');
  process.exit(0);
}
process.on('SIGTERM', render);

let offset = 0, carry = '', lines = 0;
const stopAt = Date.now() + 40000;
const again = () => {
  let data = '';
  try {
    const st = fs.statSync(settings.events);
    if (st.size > offset) {
      const fd = fs.openSync(settings.events, 'r');
      const b = Buffer.allocUnsafe(st.size - offset);
      const got = fs.readSync(fd, b, 0, b.length, offset);
      fs.closeSync(fd);
      offset += got;
      data = b.subarray(0, got).toString('utf8');
    }
  } catch { /* not created yet */ }
  carry += data;
  let nl;
  while ((nl = carry.indexOf('\n')) !== -1) {
    const l = carry.slice(0, nl);
    carry = carry.slice(nl + 1);
    if (l.trim()) { lines++; onLine(l); }
  }
  if (!settings.total || lines >= settings.total || Date.now() > stopAt) {
    if (carry.trim()) onLine(carry);
    render();
  } else setTimeout(again, 50);
};
again();
