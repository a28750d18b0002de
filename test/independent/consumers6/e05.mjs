// Team "Prism" — analytics snapshotter, written in a reducer style: messages are validated into plain
// "facts", facts are grouped by object, sorted by objectVersion and reduced into the object's state.
// Messages flagged exceededQueueSizeLimit carry no object, so they are treated as truncated copies and
// left out of the fact list; the team relies on the complete message for the state.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';

const { LCKIT_EVENTS_FILE, LCKIT_VIEW_FILE = 'view.ndjson', LCKIT_TENANT, LCKIT_MESSAGES } = process.env;
const expectedLines = Number.parseInt(LCKIT_MESSAGES || '0', 10) || 0;

const DELETE_EVENTS = Object.freeze({
  ENTITY_REMOVED: 1, ENTITY_REMOVED_GDPR: 1, ENTITY_LOST_MERGE: 1, RELATIONSHIP_REMOVED: 1,
  RELATIONSHIP_REMOVED_GDPR: 1, RELATION_LOST_MERGE: 1, INTERACTION_REMOVED: 1, CHANGE_REQUEST_REMOVED: 1,
  GROUP_REMOVED: 1,
});
const UPSERT_EVENTS = Object.freeze({
  ENTITY_CREATED: 1, ENTITY_CHANGED: 1, ENTITIES_SPLITTED: 1, ENTITIES_MATCHES_CHANGED: 1,
  ENTITY_BUSINESS_PROCESS_CHANGED: 1, RELATIONSHIP_CREATED: 1, RELATIONSHIP_CHANGED: 1, RELATIONSHIP_MERGED: 1,
  INTERACTION_CREATED: 1, INTERACTION_CHANGED: 1, CHANGE_REQUEST_CREATED: 1, CHANGE_REQUEST_CHANGED: 1,
  GROUP_CREATED: 1, GROUP_CHANGED: 1,
});

const facts = [];
let ordinal = 0;

const toFact = (raw) => {
  let m;
  try { m = JSON.parse(raw); } catch { return null; }
  const headers = m?.headers ?? {};
  const payload = m?.payload && typeof m.payload === 'object' ? m.payload : {};
  ordinal += 1;
  if (LCKIT_TENANT && headers.tenantId != null && headers.tenantId !== LCKIT_TENANT) return null;
  const event = headers.eventType ?? payload.type;
  if (!(event in DELETE_EVENTS) && !(event in UPSERT_EVENTS)) return null;
  if (payload.exceededQueueSizeLimit === true) return null; // truncated copy, no object to learn from
  const uri = headers.sourceObjectUri ?? payload.uri ?? payload.object?.uri;
  if (!uri) return null;
  const v = Number(headers.objectVersion);
  return {
    uri, event,
    version: headers.objectVersion == null || Number.isNaN(v) ? Number.MAX_SAFE_INTEGER - 1e6 + ordinal : v,
    attributes: payload.object && typeof payload.object.attributes === 'object' && payload.object.attributes !== null
      ? payload.object.attributes : undefined,
    deltas: payload.deltas && typeof payload.deltas === 'object' ? payload.deltas : undefined,
  };
};

const attrKey = (attributeType) => {
  const after = String(attributeType ?? '').split('/attributes/')[1];
  return after ? after.split('/')[0] : undefined;
};
const valueId = (v) => (v?.id != null ? `#${v.id}` : typeof v?.uri === 'string' ? `#${v.uri.split('/').pop()}` : `=${JSON.stringify(v?.value)}`);

const reduceDelta = (attrs, item) => {
  const name = attrKey(item?.attributeType);
  if (!name) return attrs;
  const list = attrs[name] ?? [];
  let next;
  if (item.type === 'ATTRIBUTE_ADDED' && item.newValue) {
    next = list.some((x) => valueId(x) === valueId(item.newValue)) ? list : [...list, item.newValue];
  } else if (item.type === 'ATTRIBUTE_CHANGED' && item.newValue) {
    const idx = list.findIndex((x) => valueId(x) === valueId(item.oldValue));
    next = idx >= 0 ? list.map((x, i) => (i === idx ? item.newValue : x))
      : list.length === 1 ? [item.newValue] : [...list, item.newValue];
  } else if (item.type === 'ATTRIBUTE_REMOVED') {
    next = list.filter((x) => valueId(x) !== valueId(item.oldValue));
  } else return attrs;
  const { [name]: _dropped, ...rest } = attrs;
  return next.length ? { ...rest, [name]: next } : rest;
};

const reduceFact = (state, f) => {
  let attributes = state.attributes;
  if (f.attributes) attributes = f.attributes;
  else if (f.deltas) {
    const items = f.deltas.deltaCollection?.delta ?? f.deltas.delta;
    if (Array.isArray(items)) attributes = items.reduce(reduceDelta, attributes ?? {});
  }
  return { removed: f.event in DELETE_EVENTS, attributes, version: f.version };
};

const buildView = () => {
  const byUri = new Map();
  for (const f of facts) {
    const bucket = byUri.get(f.uri) ?? new Map();
    if (!bucket.has(f.version)) bucket.set(f.version, f); // same version again = re-send
    byUri.set(f.uri, bucket);
  }
  return [...byUri].map(([uri, bucket]) => {
    const ordered = [...bucket.values()].sort((a, b) => a.version - b.version);
    const s = ordered.reduce(reduceFact, { removed: false, attributes: undefined });
    return { uri, removed: s.removed, ...(s.attributes ? { attributes: s.attributes } : {}), facts: ordered.length };
  });
};

let closed = false;
const close = () => {
  if (closed) return;
  closed = true;
  writeFileSync(LCKIT_VIEW_FILE, buildView().map((r) => JSON.stringify(r) + '\n').join(''));
  process.exit(0);
};
process.on('SIGTERM', close);

let taken = 0;
const until = Date.now() + 40_000;
const loop = () => {
  const text = LCKIT_EVENTS_FILE && existsSync(LCKIT_EVENTS_FILE) ? readFileSync(LCKIT_EVENTS_FILE, 'utf8') : '';
  const rows = text.split('\n');
  const whole = rows.slice(0, -1).filter((r) => r.trim());
  whole.slice(taken).forEach((r) => { const f = toFact(r); if (f) facts.push(f); });
  taken = whole.length;
  if (expectedLines <= 0 || taken >= expectedLines || Date.now() > until || !LCKIT_EVENTS_FILE) {
    const last = rows[rows.length - 1];
    if (last.trim()) { const f = toFact(last); if (f) facts.push(f); }
    return close();
  }
  setTimeout(loop, 60);
};
loop();
