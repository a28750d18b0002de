// Marketing-consent hub. Messages are parsed into a flat record, stored in a Map keyed by
// "uri#version" so re-deliveries overwrite themselves, and projected per object at the end.
import { readFileSync, writeFileSync } from 'node:fs';

const REMOVED_BY = new Set(['ENTITY_REMOVED', 'ENTITY_REMOVED_GDPR', 'ENTITY_LOST_MERGE', 'RELATIONSHIP_REMOVED',
  'RELATIONSHIP_REMOVED_GDPR', 'RELATION_LOST_MERGE', 'INTERACTION_REMOVED', 'CHANGE_REQUEST_REMOVED', 'GROUP_REMOVED']);
const HANDLED = new Set([...REMOVED_BY, 'ENTITY_CREATED', 'ENTITY_CHANGED', 'RELATIONSHIP_CREATED',
  'RELATIONSHIP_CHANGED', 'RELATIONSHIP_MERGED', 'GROUP_CREATED', 'GROUP_CHANGED', 'INTERACTION_CREATED',
  'INTERACTION_CHANGED', 'ENTITIES_SPLITTED', 'ENTITIES_MATCHES_CHANGED', 'ENTITY_BUSINESS_PROCESS_CHANGED',
  'CHANGE_REQUEST_CREATED', 'CHANGE_REQUEST_CHANGED']);

const records = new Map();
let ordinal = 0;

function flatten(m) {
  const headers = m.headers ?? {};
  const body = typeof m.payload === 'object' && m.payload !== null ? m.payload : {};
  // the body is the message: the object it concerns is named by the body itself
  const uri = body.object?.uri ?? body.uri;
  return {
    tenant: headers.tenantId,
    type: body.type ?? headers.eventType,
    uri,
    version: headers.objectVersion != null ? Number(headers.objectVersion) : null,
    body,
  };
}

function keep(rec) {
  if (!HANDLED.has(rec.type) || !rec.uri) return;
  if (process.env.LCKIT_TENANT && rec.tenant !== undefined && rec.tenant !== process.env.LCKIT_TENANT) return;
  ordinal += 1;
  const versioned = Number.isFinite(rec.version);
  const key = versioned ? `${rec.uri}#${rec.version}` : `${rec.uri}@${ordinal}`;
  if (!records.has(key)) records.set(key, { ...rec, versioned, ordinal });
}

function changeList(deltas) {
  const c = deltas?.deltaCollection ?? deltas;
  return Array.isArray(c?.delta) ? c.delta : [];
}

function applyChange(attrs, ch) {
  if (typeof ch?.attributeType !== 'string') return;
  const attr = ch.attributeType.split('/').pop();
  const values = [...(attrs[attr] ?? [])];
  const oldIdx = ch.oldValue?.id === undefined ? -1 : values.findIndex((v) => v?.id === ch.oldValue.id);
  if (ch.type === 'ATTRIBUTE_REMOVED') {
    if (oldIdx >= 0) values.splice(oldIdx, 1);
  } else if (ch.newValue != null) {
    const dupIdx = ch.newValue.id === undefined ? -1 : values.findIndex((v) => v?.id === ch.newValue.id);
    if (oldIdx >= 0) values[oldIdx] = ch.newValue;
    else if (dupIdx >= 0) values[dupIdx] = ch.newValue;
    else values.push(ch.newValue);
  }
  if (values.length) attrs[attr] = values; else delete attrs[attr];
}

function project() {
  const perUri = new Map();
  for (const r of records.values()) {
    if (!perUri.has(r.uri)) perUri.set(r.uri, []);
    perUri.get(r.uri).push(r);
  }
  const lines = [];
  for (const [uri, list] of perUri) {
    list.sort((a, b) => (a.versioned === b.versioned ? (a.versioned ? a.version - b.version : a.ordinal - b.ordinal)
      : a.versioned ? -1 : 1));
    const out = { uri, removed: false };
    let attributes;
    for (const r of list) {
      if (r.versioned) out.objectVersion = r.version;
      out.removed = REMOVED_BY.has(r.type);
      out.lastType = r.type;
      if (r.body.object && typeof r.body.object === 'object') {
        if (r.body.object.attributes && typeof r.body.object.attributes === 'object') attributes = r.body.object.attributes;
      } else if ('deltas' in r.body && !r.body.exceededQueueSizeLimit) {
        attributes = { ...(attributes ?? {}) };
        for (const ch of changeList(r.body.deltas)) applyChange(attributes, ch);
      }
      if (r.type === 'ENTITY_REMOVED_GDPR') attributes = undefined;
    }
    if (attributes !== undefined) out.attributes = attributes;
    lines.push(JSON.stringify(out));
  }
  return lines;
}

let stopped = false;
function stop() {
  if (stopped) return;
  stopped = true;
  const lines = project();
  writeFileSync(process.env.LCKIT_VIEW_FILE, lines.length ? `${lines.join('\n')}\n` : '');
  process.exit(0);
}
process.on('SIGTERM', stop);

const need = Number.parseInt(process.env.LCKIT_MESSAGES ?? '0', 10) || 0;
const until = Date.now() + 40_000;
let taken = 0;
const timer = setInterval(() => {
  let content = '';
  try { content = readFileSync(process.env.LCKIT_EVENTS_FILE, 'utf8'); } catch { content = ''; }
  const parts = content.split('\n');
  const last = parts.pop();
  const full = parts.filter((s) => s.trim() !== '');
  if (last.trim() && full.length + 1 >= need) full.push(last);
  for (let i = taken; i < full.length; i++) {
    taken = i + 1;
    try { const m = JSON.parse(full[i]); if (m && typeof m === 'object') keep(flatten(m)); } catch { /* skip */ }
  }
  if (taken >= need || Date.now() > until) { clearInterval(timer); stop(); }
}, 100);
