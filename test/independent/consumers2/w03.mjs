#!/usr/bin/env node
// Event-to-view projector (data platform team). Reads the whole file, then reduces the messages per object.
// Headers are kept as strings, the way the team's broker adapter delivers message properties.
import { readFileSync, writeFileSync } from 'node:fs';

const { LCKIT_EVENTS_FILE: src, LCKIT_VIEW_FILE: dst, LCKIT_TENANT: tenant } = process.env;
if (!src || !dst) {
  console.error('LCKIT_EVENTS_FILE and LCKIT_VIEW_FILE are required (input NDJSON, output NDJSON)');
  process.exit(2);
}

const kindOf = (t) => {
  if (/^(ENTITY_REMOVED|ENTITY_REMOVED_GDPR|ENTITY_LOST_MERGE|RELATIONSHIP_REMOVED|RELATIONSHIP_REMOVED_GDPR|RELATION_LOST_MERGE|INTERACTION_REMOVED|CHANGE_REQUEST_REMOVED|GROUP_REMOVED)$/.test(t)) return 'delete';
  if (/^(ENTITY_CREATED|ENTITY_CHANGED|RELATIONSHIP_CREATED|RELATIONSHIP_CHANGED|RELATIONSHIP_MERGED|INTERACTION_CREATED|INTERACTION_CHANGED|ENTITIES_SPLITTED|ENTITIES_MATCHES_CHANGED|ENTITY_BUSINESS_PROCESS_CHANGED|CHANGE_REQUEST_CREATED|CHANGE_REQUEST_CHANGED|GROUP_CREATED|GROUP_CHANGED)$/.test(t)) return 'put';
  return null;
};

const toProps = (h) => Object.fromEntries(Object.entries(h ?? {}).map(([k, v]) => [k, v == null ? undefined : String(v)]));

const messages = readFileSync(src, 'utf8').split(/\r?\n/).filter((l) => l.trim()).flatMap((l, i) => {
  try { return [JSON.parse(l)]; } catch { console.error(`line ${i + 1}: invalid JSON`); return []; }
});

const view = messages.reduce((acc, m) => {
  const props = toProps(m.headers);
  const p = m.payload ?? {};
  if (tenant && props.tenantId && props.tenantId !== tenant) return acc;
  const type = props.eventType ?? p.type;
  const uri = props.sourceObjectUri ?? p.uri ?? p.object?.uri;
  const kind = kindOf(type);
  if (!uri || !kind) return acc;
  const version = props.objectVersion; // string or undefined
  const cur = acc.get(uri);
  const complete = p.exceededQueueSizeLimit !== true && p.object && typeof p.object === 'object';
  if (cur) {
    if (cur.gdpr && (version === undefined || cur.version === undefined)) return acc;
    if (version !== undefined && cur.version !== undefined) {
      if (version < cur.version) return acc;
      if (version === cur.version && !((kind === 'delete' && !cur.removed) || (cur.partial && complete && kind === 'put'))) return acc;
    }
  }
  const next = { ...(cur ?? { uri }), removed: kind === 'delete', gdpr: type.endsWith('_GDPR') };
  if (version !== undefined) next.version = version;
  if (kind === 'delete') { delete next.attributes; next.partial = false; }
  else if (complete) { next.partial = false; if ('attributes' in p.object) next.attributes = p.object.attributes; }
  else if (p.exceededQueueSizeLimit === true || p.deltas != null) { next.partial = true; delete next.attributes; }
  acc.set(uri, next);
  return acc;
}, new Map());

const lines = [...view.values()].map(({ uri, removed, version, attributes, partial }) => JSON.stringify({
  uri,
  removed,
  ...(version !== undefined && { objectVersion: Number(version) }),
  ...(!removed && !partial && attributes !== undefined && { attributes }),
  ...(!removed && partial && { partial: true }),
}));
writeFileSync(dst, lines.length ? `${lines.join('\n')}\n` : '');
console.log(`messages=${messages.length} objects=${view.size}`);
