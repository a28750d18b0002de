// Team "Relay" — search-index feeder. Applies events as soon as the next objectVersion of an object is in
// hand; events that arrive early wait in a per-object parking lot. Unknown event types still occupy their
// version slot (as no-ops) so that they do not stall the object. At the end whatever is parked is applied
// in version order.
import { readFile } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';

const env = process.env;
const WANT = parseInt(env.LCKIT_MESSAGES ?? '0', 10) || 0;
const GIVE_UP_AT = Date.now() + 40000;

const terminal = (t) => /^(ENTITY_REMOVED|ENTITY_REMOVED_GDPR|ENTITY_LOST_MERGE|RELATIONSHIP_REMOVED|RELATIONSHIP_REMOVED_GDPR|RELATION_LOST_MERGE|INTERACTION_REMOVED|CHANGE_REQUEST_REMOVED|GROUP_REMOVED)$/.test(t);
const known = (t) => terminal(t) || /^(ENTITY_(CREATED|CHANGED|BUSINESS_PROCESS_CHANGED)|ENTITIES_(SPLITTED|MATCHES_CHANGED)|RELATIONSHIP_(CREATED|CHANGED|MERGED)|INTERACTION_(CREATED|CHANGED)|CHANGE_REQUEST_(CREATED|CHANGED)|GROUP_(CREATED|CHANGED))$/.test(t);

const objects = {}; // uri -> record
const kindOf = (uri) => uri.split('/')[0];

function recordFor(uri) {
  return (objects[uri] ??= { applied: 0, gone: false, attrs: null, parked: new Map(), lastEvent: null, touched: false });
}

function segName(attributeType) {
  const m = /\/attributes\/([^/]+)/.exec(attributeType ?? '');
  return m ? m[1] : null;
}

function matches(held, v) {
  if (!v) return false;
  const hid = held.id ?? (typeof held.uri === 'string' ? held.uri.split('/').pop() : undefined);
  if (hid !== undefined && v.id !== undefined) return String(hid) === String(v.id);
  return JSON.stringify(held.value) === JSON.stringify(v.value);
}

function deltaItems(d) {
  if (Array.isArray(d?.deltaCollection?.delta)) return d.deltaCollection.delta;
  if (Array.isArray(d?.delta)) return d.delta;
  return [];
}

function apply(uri, rec, ev) {
  if (!ev.known) return; // placeholder slot
  rec.touched = true;
  rec.lastEvent = ev.type;
  rec.gone = terminal(ev.type);
  const p = ev.payload;
  if (p.object && typeof p.object === 'object' && p.object.attributes && typeof p.object.attributes === 'object') {
    rec.attrs = JSON.parse(JSON.stringify(p.object.attributes));
    return;
  }
  if (!p.deltas || typeof p.deltas !== 'object') return; // fallback or filtered: keep what we have
  const attrs = rec.attrs ?? {};
  for (const item of deltaItems(p.deltas)) {
    const name = segName(item?.attributeType);
    if (!name) continue;
    let vals = attrs[name] ?? [];
    switch (item.type) {
      case 'ATTRIBUTE_ADDED':
        if (item.newValue && !vals.some((h) => matches(h, item.newValue))) vals = [...vals, item.newValue];
        break;
      case 'ATTRIBUTE_CHANGED': {
        if (!item.newValue) break;
        const i = vals.findIndex((h) => matches(h, item.oldValue));
        if (i >= 0) vals = vals.map((h, j) => (j === i ? item.newValue : h));
        else vals = vals.length === 1 ? [item.newValue] : [...vals, item.newValue];
        break;
      }
      case 'ATTRIBUTE_REMOVED':
        vals = vals.filter((h) => !matches(h, item.oldValue));
        break;
      default:
        break;
    }
    if (vals.length) attrs[name] = vals; else delete attrs[name];
  }
  rec.attrs = attrs;
}

function drain(uri, rec, all = false) {
  for (;;) {
    if (rec.parked.has(rec.applied + 1)) {
      const ev = rec.parked.get(rec.applied + 1);
      rec.parked.delete(rec.applied + 1);
      rec.applied += 1;
      apply(uri, rec, ev);
    } else if (all && rec.parked.size) {
      const next = Math.min(...rec.parked.keys());
      const ev = rec.parked.get(next);
      rec.parked.delete(next);
      rec.applied = next;
      apply(uri, rec, ev);
    } else return;
  }
}

let unversionedClock = 1e9;
function onMessage(text) {
  let m;
  try { m = JSON.parse(text); } catch { return; }
  const headers = (m && typeof m.headers === 'object' && m.headers) || {};
  const payload = (m && typeof m.payload === 'object' && m.payload) || {};
  if (env.LCKIT_TENANT && headers.tenantId !== undefined && headers.tenantId !== env.LCKIT_TENANT) return;
  const uri = headers.sourceObjectUri ?? payload.uri ?? payload.object?.uri;
  if (typeof uri !== 'string' || !uri) return;
  const type = headers.eventType ?? payload.type;
  let version = Number.parseInt(headers.objectVersion, 10);
  const rec = recordFor(uri);
  if (!Number.isFinite(version)) version = Math.max(unversionedClock++, rec.applied + 1);
  if (version <= rec.applied || rec.parked.has(version)) return; // stale or re-sent
  rec.parked.set(version, { type, payload, known: known(type) });
  drain(uri, rec);
}

let done = false;
function emit() {
  if (done) return;
  done = true;
  const rows = [];
  for (const [uri, rec] of Object.entries(objects)) {
    drain(uri, rec, true);
    if (!rec.touched) continue; // only unknown event types ever named it
    const row = { uri, removed: rec.gone, kind: kindOf(uri), lastEvent: rec.lastEvent };
    if (rec.attrs) row.attributes = rec.attrs;
    rows.push(JSON.stringify(row) + '\n');
  }
  writeFileSync(env.LCKIT_VIEW_FILE || 'view.ndjson', rows.join(''));
  process.exit(0);
}
process.once('SIGTERM', emit);

async function main() {
  let handled = 0;
  const file = env.LCKIT_EVENTS_FILE;
  while (file) {
    let all = '';
    try { all = await readFile(file, 'utf8'); } catch { all = ''; }
    const lines = all.split('\n');
    const complete = all.endsWith('\n') ? lines.slice(0, -1) : lines.slice(0, -1);
    const ready = complete.filter((l) => l.trim() !== '');
    for (const l of ready.slice(handled)) onMessage(l);
    handled = Math.max(handled, ready.length);
    const tail = lines[lines.length - 1];
    if (WANT <= 0 || handled >= WANT || Date.now() >= GIVE_UP_AT) {
      if (tail && tail.trim() && !all.endsWith('\n')) onMessage(tail);
      break;
    }
    await new Promise((r) => setTimeout(r, 80));
  }
  emit();
}
main();
