#!/usr/bin/env node
// Compliance mirror (privacy team): node:stream pipeline, lines -> batches of 8 -> state.
// Within a batch, messages of an object are applied in objectVersion order (stable, unversioned last in arrival
// order); across batches the version check keeps older messages from overwriting newer state.
import { createReadStream, writeFileSync } from 'node:fs';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const env = process.env;
if (!env.LCKIT_EVENTS_FILE || !env.LCKIT_VIEW_FILE) {
  console.error('error: LCKIT_EVENTS_FILE (NDJSON input) and LCKIT_VIEW_FILE (output) are required');
  process.exit(2);
}

const REMOVE = /^(ENTITY_REMOVED(_GDPR)?|ENTITY_LOST_MERGE|RELATIONSHIP_REMOVED(_GDPR)?|RELATION_LOST_MERGE|INTERACTION_REMOVED|CHANGE_REQUEST_REMOVED|GROUP_REMOVED)$/;
const KEEP = /^(ENTITY_(CREATED|CHANGED|BUSINESS_PROCESS_CHANGED)|RELATIONSHIP_(CREATED|CHANGED|MERGED)|INTERACTION_(CREATED|CHANGED)|ENTITIES_(SPLITTED|MATCHES_CHANGED)|CHANGE_REQUEST_(CREATED|CHANGED)|GROUP_(CREATED|CHANGED))$/;

let carry = '';
const lines = new Transform({
  readableObjectMode: true,
  transform(chunk, _enc, done) {
    const parts = (carry + chunk).split(/\r?\n/);
    carry = parts.pop();
    for (const p of parts) if (p.trim()) this.push(p);
    done();
  },
  flush(done) { if (carry.trim()) this.push(carry); done(); },
});

let batch = [];
const batches = new Transform({
  objectMode: true,
  transform(line, _enc, done) { batch.push(line); if (batch.length === 8) { this.push(batch); batch = []; } done(); },
  flush(done) { if (batch.length) this.push(batch); done(); },
});

const state = new Map();
const stats = { messages: 0, duplicates: 0, outdated: 0, unknownTypes: 0 };

function decode(line) {
  let m;
  try { m = JSON.parse(line); } catch { console.error('unreadable line skipped'); return null; }
  const h = m?.headers ?? {}, p = m?.payload ?? {};
  if (env.LCKIT_TENANT && h.tenantId && h.tenantId !== env.LCKIT_TENANT) return null;
  const type = h.eventType ?? p.type;
  const uri = h.sourceObjectUri ?? p.uri ?? p.object?.uri;
  if (!type || !uri) return null;
  if (!REMOVE.test(type) && !KEEP.test(type)) { stats.unknownTypes++; return null; }
  const v = h.objectVersion != null && h.objectVersion !== '' && Number.isFinite(Number(h.objectVersion)) ? Number(h.objectVersion) : undefined;
  const full = p.exceededQueueSizeLimit !== true && p.object !== null && typeof p.object === 'object';
  const partial = !full && (p.exceededQueueSizeLimit === true || p.deltas != null);
  return { type, uri, v, full, partial, removal: REMOVE.test(type), p };
}

function applyOne(e) {
  const s = state.get(e.uri);
  if (s) {
    if (s.erased && (e.v === undefined || s.v === undefined)) { stats.outdated++; return; }
    if (e.v !== undefined && s.v !== undefined) {
      if (e.v < s.v) { stats.outdated++; return; }
      if (e.v === s.v) {
        const completes = (e.removal && !s.removed) || (s.partial && e.full && !e.removal);
        if (!completes) { stats.duplicates++; return; }
      }
    }
  }
  const n = { ...(s ?? { uri: e.uri }), lastEventType: e.type };
  if (e.v !== undefined) n.v = e.v;
  n.removed = e.removal;
  n.erased = e.removal && e.type.endsWith('_GDPR');
  if (e.removal) { n.partial = false; delete n.attrs; }
  else if (e.full) { n.partial = false; if ('attributes' in e.p.object) n.attrs = e.p.object.attributes; }
  else if (e.partial) { n.partial = true; delete n.attrs; }
  state.set(e.uri, n);
}

const sink = new Writable({
  objectMode: true,
  write(lines_, _enc, done) {
    stats.messages += lines_.length;
    const evs = lines_.map(decode).map((e, i) => e && { ...e, i }).filter(Boolean);
    const first = new Map();
    for (const e of evs) if (!first.has(e.uri)) first.set(e.uri, e.i);
    // key: object (by first appearance), versioned before unversioned, version, arrival
    const key = (e) => [first.get(e.uri), e.v === undefined ? 1 : 0, e.v ?? 0, e.i];
    evs.sort((a, b) => { const x = key(a), y = key(b); for (let k = 0; k < 4; k++) if (x[k] !== y[k]) return x[k] - y[k]; return 0; });
    evs.forEach(applyOne);
    done();
  },
});

await pipeline(createReadStream(env.LCKIT_EVENTS_FILE, 'utf8'), lines, batches, sink);
const out = [...state.values()].map((s) => JSON.stringify({
  uri: s.uri,
  removed: s.removed,
  ...(s.v !== undefined ? { objectVersion: s.v } : {}),
  ...(!s.removed && !s.partial && s.attrs !== undefined ? { attributes: s.attrs } : {}),
  ...(s.erased ? { erased: true } : {}),
  ...(!s.removed && s.partial ? { awaitingFullRecord: true } : {}),
  lastEventType: s.lastEventType,
}));
writeFileSync(env.LCKIT_VIEW_FILE, out.length ? `${out.join('\n')}\n` : '');
console.log(JSON.stringify({ ...stats, objects: state.size }));
