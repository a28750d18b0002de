// Sales-territory sync: keeps the latest known state of every object of the tenant.
// Reads the delivery file with async polling and folds each object's events in order.
import { open, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

const cfg = {
  tenant: process.env.LCKIT_TENANT,
  file: process.env.LCKIT_EVENTS_FILE,
  view: process.env.LCKIT_VIEW_FILE,
  total: parseInt(process.env.LCKIT_MESSAGES ?? '0', 10) || 0,
};

const deleting = ['ENTITY_REMOVED', 'ENTITY_REMOVED_GDPR', 'ENTITY_LOST_MERGE', 'RELATIONSHIP_REMOVED',
  'RELATIONSHIP_REMOVED_GDPR', 'RELATION_LOST_MERGE', 'INTERACTION_REMOVED', 'CHANGE_REQUEST_REMOVED', 'GROUP_REMOVED'];
const upserting = ['ENTITY_CREATED', 'ENTITY_CHANGED', 'RELATIONSHIP_CREATED', 'RELATIONSHIP_CHANGED', 'GROUP_CREATED',
  'GROUP_CHANGED', 'INTERACTION_CREATED', 'INTERACTION_CHANGED', 'ENTITIES_SPLITTED', 'ENTITIES_MATCHES_CHANGED',
  'RELATIONSHIP_MERGED', 'ENTITY_BUSINESS_PROCESS_CHANGED', 'CHANGE_REQUEST_CREATED', 'CHANGE_REQUEST_CHANGED'];

const objects = {}; // uri -> list of events
let arrived = 0;

function record(text) {
  let m;
  try { m = JSON.parse(text); } catch { return; }
  const h = (m && typeof m.headers === 'object' && m.headers) || {};
  const body = (m && m.payload && typeof m.payload === 'object') ? m.payload : {};
  if (cfg.tenant && 'tenantId' in h && h.tenantId !== cfg.tenant) return;
  const kind = h.eventType ?? body.type;
  if (!deleting.includes(kind) && !upserting.includes(kind)) return;
  const uri = h.sourceObjectUri ?? body.uri ?? body.object?.uri;
  if (!uri) return;
  arrived += 1;
  const version = h.objectVersion == null ? undefined : +h.objectVersion;
  // updatedTime is the business clock of the object; objectVersion breaks ties and covers
  // messages that carry no object
  const when = typeof body.object?.updatedTime === 'number' ? body.object.updatedTime : undefined;
  (objects[uri] ??= []).push({ kind, body, version, when, arrived });
}

function compare(a, b) {
  if (a.when !== undefined && b.when !== undefined && a.when !== b.when) return a.when - b.when;
  if (a.version !== undefined && b.version !== undefined && a.version !== b.version) return a.version - b.version;
  return a.arrived - b.arrived;
}

const itemsOf = (d) => (Array.isArray(d?.deltaCollection?.delta) ? d.deltaCollection.delta
  : Array.isArray(d?.delta) ? d.delta : []);

function patch(attrs, items) {
  const next = { ...attrs };
  for (const it of items) {
    if (typeof it?.attributeType !== 'string') continue;
    const key = it.attributeType.slice(it.attributeType.lastIndexOf('/') + 1);
    const oldId = it.oldValue?.id;
    const newId = it.newValue?.id;
    let vals = next[key] ?? [];
    let at = vals.findIndex((v) => oldId !== undefined && v?.id === oldId);
    if (at < 0) at = vals.findIndex((v) => newId !== undefined && v?.id === newId);
    vals = vals.filter((v) => v?.id === undefined || (v.id !== oldId && v.id !== newId));
    if (it.type !== 'ATTRIBUTE_REMOVED' && it.newValue != null) {
      vals.splice(at >= 0 && at <= vals.length ? at : vals.length, 0, it.newValue);
    }
    if (vals.length) next[key] = vals; else delete next[key];
  }
  return next;
}

function fold(list) {
  const st = { removed: false };
  let attrs;
  const seenVersions = new Set();
  for (const e of [...list].sort(compare)) {
    if (e.version !== undefined) {
      if (seenVersions.has(e.version)) continue;
      seenVersions.add(e.version);
      st.objectVersion = e.version;
    }
    st.removed = deleting.includes(e.kind);
    if (e.body.object && typeof e.body.object === 'object') {
      if (e.body.object.attributes && typeof e.body.object.attributes === 'object') attrs = e.body.object.attributes;
    } else if ('deltas' in e.body && !e.body.exceededQueueSizeLimit) {
      attrs = patch(attrs ?? {}, itemsOf(e.body.deltas));
    }
    if (e.kind === 'ENTITY_REMOVED_GDPR') attrs = undefined;
  }
  if (attrs !== undefined) st.attributes = attrs;
  return st;
}

let written = false;
async function writeView() {
  if (written) return;
  written = true;
  const lines = Object.entries(objects).map(([uri, list]) => JSON.stringify({ uri, ...fold(list) }));
  await writeFile(cfg.view, lines.map((l) => l + '\n').join(''));
  process.exit(0);
}
process.on('SIGTERM', () => { writeView(); });

async function main() {
  const deadline = Date.now() + 40_000;
  let pos = 0;
  let leftover = '';
  let lines = 0;
  while (lines < cfg.total && Date.now() < deadline) {
    try {
      const fh = await open(cfg.file, 'r');
      const { size } = await fh.stat();
      if (size > pos) {
        const buf = Buffer.alloc(size - pos);
        await fh.read(buf, 0, buf.length, pos);
        pos = size;
        leftover += buf.toString('utf8');
      }
      await fh.close();
    } catch { /* not there yet */ }
    const chunks = leftover.split('\n');
    leftover = chunks.pop();
    for (const c of chunks) if (c.trim()) { lines += 1; record(c); }
    if (lines < cfg.total) await sleep(100);
  }
  if (leftover.trim()) record(leftover);
  await writeView();
}
main();
