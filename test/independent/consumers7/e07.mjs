// Household-matching service: a pure reducer over each object's version-sorted events.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';

const E = process.env;
const LIFECYCLE = {
  ENTITY_CREATED: 'live', ENTITY_CHANGED: 'live', ENTITY_REMOVED: 'gone', ENTITY_REMOVED_GDPR: 'gone',
  // the loser of a merge lives on inside the winner: keep it as a changed entity
  ENTITY_LOST_MERGE: 'live',
  RELATIONSHIP_CREATED: 'live', RELATIONSHIP_CHANGED: 'live', RELATIONSHIP_REMOVED: 'gone',
  RELATIONSHIP_REMOVED_GDPR: 'gone', RELATION_LOST_MERGE: 'gone', RELATIONSHIP_MERGED: 'live',
  GROUP_CREATED: 'live', GROUP_CHANGED: 'live', GROUP_REMOVED: 'gone',
  INTERACTION_CREATED: 'live', INTERACTION_CHANGED: 'live', INTERACTION_REMOVED: 'gone',
  ENTITIES_SPLITTED: 'live', ENTITIES_MATCHES_CHANGED: 'live', ENTITY_BUSINESS_PROCESS_CHANGED: 'live',
  CHANGE_REQUEST_CREATED: 'live', CHANGE_REQUEST_CHANGED: 'live', CHANGE_REQUEST_REMOVED: 'gone',
};

const parse = (line, n) => {
  try {
    const m = JSON.parse(line);
    const h = m?.headers ?? {};
    const p = m?.payload && typeof m.payload === 'object' ? m.payload : {};
    const type = h.eventType ?? p.type;
    const uri = h.sourceObjectUri ?? p.uri ?? p.object?.uri;
    if (!LIFECYCLE[type] || !uri) return null;
    if (E.LCKIT_TENANT && h.tenantId !== undefined && h.tenantId !== E.LCKIT_TENANT) return null;
    const v = h.objectVersion === undefined || h.objectVersion === null ? null : Number(h.objectVersion);
    return { n, uri, type, p, v: Number.isFinite(v) ? v : null };
  } catch {
    return null;
  }
};

const deltaItems = (d) => [d?.deltaCollection?.delta, d?.delta].find(Array.isArray) ?? [];

const withDelta = (attrs, it) => {
  if (typeof it?.attributeType !== 'string') return attrs;
  const name = it.attributeType.replace(/^.*\//, '');
  const ids = [it.oldValue?.id, it.newValue?.id].filter((x) => x !== undefined);
  const prev = attrs[name] ?? [];
  const pos = prev.findIndex((x) => it.oldValue?.id !== undefined && x?.id === it.oldValue.id);
  const rest = prev.filter((x) => !ids.includes(x?.id));
  const vals = it.type === 'ATTRIBUTE_REMOVED' || it.newValue == null ? rest
    : [...rest.slice(0, pos < 0 ? rest.length : pos), it.newValue, ...rest.slice(pos < 0 ? rest.length : pos)];
  const { [name]: _drop, ...others } = attrs;
  return vals.length ? { ...others, [name]: vals } : others;
};

const reduce = (state, ev) => {
  const next = { ...state, removed: LIFECYCLE[ev.type] === 'gone' };
  if (ev.v !== null) next.objectVersion = ev.v;
  const o = ev.p.object;
  if (o && typeof o === 'object') {
    if (o.attributes && typeof o.attributes === 'object') next.attributes = o.attributes;
  } else if ('deltas' in ev.p && !ev.p.exceededQueueSizeLimit) {
    next.attributes = deltaItems(ev.p.deltas).reduce(withDelta, next.attributes ?? {});
  }
  if (ev.type === 'ENTITY_REMOVED_GDPR') delete next.attributes;
  return next;
};

const project = (events) => {
  const groups = events.reduce((acc, ev) => { (acc[ev.uri] ??= []).push(ev); return acc; }, {});
  return Object.entries(groups).map(([uri, evs]) => {
    const sorted = [...evs].sort((a, b) => (a.v ?? Infinity) - (b.v ?? Infinity) || a.n - b.n);
    const unique = sorted.filter((e, i) => e.v === null || i === 0 || sorted[i - 1].v !== e.v);
    return unique.reduce(reduce, { uri, removed: false });
  });
};

const events = [];
let finished = false;
const finish = () => {
  if (finished) return;
  finished = true;
  writeFileSync(E.LCKIT_VIEW_FILE, project(events).map((r) => JSON.stringify(r) + '\n').join(''));
  process.exit(0);
};
process.on('SIGTERM', finish);

const total = Number(E.LCKIT_MESSAGES ?? 0);
const startedAt = Date.now();
let lineNo = 0;
(function loop() {
  const raw = existsSync(E.LCKIT_EVENTS_FILE) ? readFileSync(E.LCKIT_EVENTS_FILE, 'utf8') : '';
  const lines = raw.split('\n');
  const tail = lines.pop();
  const ready = lines.filter((l) => l.trim());
  if (tail.trim() && ready.length + 1 >= total) ready.push(tail);
  for (const line of ready.slice(lineNo)) {
    lineNo += 1;
    const ev = parse(line, lineNo);
    if (ev) events.push(ev);
  }
  if (lineNo >= total || Date.now() - startedAt > 40000) return finish();
  setTimeout(loop, 100);
})();
