// Fraud-screening watchlist mirror (correct). Keeps a compact log per object: an array kept
// sorted by objectVersion with binary insertion; duplicates are refused at insert time.
// It keeps only what it needs in the view and notes the last event type it applied.
import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

const GONE = /^(ENTITY_REMOVED|ENTITY_REMOVED_GDPR|ENTITY_LOST_MERGE|RELATIONSHIP_REMOVED|RELATIONSHIP_REMOVED_GDPR|RELATION_LOST_MERGE|INTERACTION_REMOVED|CHANGE_REQUEST_REMOVED|GROUP_REMOVED)$/;
const STAY = /^(ENTITY_CREATED|ENTITY_CHANGED|RELATIONSHIP_CREATED|RELATIONSHIP_CHANGED|RELATIONSHIP_MERGED|GROUP_CREATED|GROUP_CHANGED|INTERACTION_CREATED|INTERACTION_CHANGED|ENTITIES_SPLITTED|ENTITIES_MATCHES_CHANGED|ENTITY_BUSINESS_PROCESS_CHANGED|CHANGE_REQUEST_CREATED|CHANGE_REQUEST_CHANGED)$/;

const logs = Object.create(null);
let lateSeq = 1e15; // unversioned messages sort after versioned ones, in arrival order

function insert(list, entry) {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid].k < entry.k) lo = mid + 1; else hi = mid;
  }
  if (lo < list.length && list[lo].k === entry.k) return; // this version is already held
  list.splice(lo, 0, entry);
}

function onMessage(msg) {
  if (!msg || typeof msg !== 'object') return;
  const h = msg.headers && typeof msg.headers === 'object' ? msg.headers : {};
  const p = msg.payload && typeof msg.payload === 'object' ? msg.payload : {};
  const t = String(h.eventType ?? p.type ?? '');
  if (!GONE.test(t) && !STAY.test(t)) return;
  if (process.env.LCKIT_TENANT && h.tenantId != null && h.tenantId !== process.env.LCKIT_TENANT) return;
  const uri = h.sourceObjectUri || p.uri || (p.object && p.object.uri);
  if (typeof uri !== 'string' || !uri) return;
  const v = h.objectVersion != null && String(h.objectVersion).trim() !== '' ? Number(h.objectVersion) : NaN;
  insert((logs[uri] ||= []), { k: Number.isFinite(v) ? v : lateSeq++, versioned: Number.isFinite(v), t, p });
}

function deltaArray(d) {
  if (d && typeof d === 'object') {
    if (d.deltaCollection && Array.isArray(d.deltaCollection.delta)) return d.deltaCollection.delta;
    if (Array.isArray(d.delta)) return d.delta;
  }
  return [];
}

function materialise(uri, list) {
  let attrs = null;
  let removed = false;
  let version;
  let last;
  for (const e of list) {
    if (e.versioned) version = e.k;
    removed = GONE.test(e.t);
    last = e.t;
    const o = e.p.object;
    if (o && typeof o === 'object') {
      if (o.attributes && typeof o.attributes === 'object') attrs = o.attributes;
    } else if (e.p.deltas !== undefined && e.p.exceededQueueSizeLimit !== true) {
      const next = Object.assign({}, attrs);
      for (const d of deltaArray(e.p.deltas)) {
        if (!d || typeof d.attributeType !== 'string') continue;
        const name = d.attributeType.substring(d.attributeType.lastIndexOf('/') + 1);
        const oldId = d.oldValue && d.oldValue.id;
        const newId = d.newValue && d.newValue.id;
        const arr = (next[name] || []).slice();
        let at = -1;
        for (let i = 0; i < arr.length; i++) if (oldId !== undefined && arr[i] && arr[i].id === oldId) { at = i; break; }
        if (d.type === 'ATTRIBUTE_REMOVED') {
          if (at >= 0) arr.splice(at, 1);
        } else if (d.newValue != null) {
          if (at >= 0) arr[at] = d.newValue;
          else {
            const same = newId === undefined ? -1 : arr.findIndex((x) => x && x.id === newId);
            if (same >= 0) arr[same] = d.newValue; else arr.push(d.newValue);
          }
        }
        if (arr.length) next[name] = arr; else delete next[name];
      }
      attrs = next;
    }
    if (e.t === 'ENTITY_REMOVED_GDPR') attrs = null;
  }
  const row = { uri, removed, lastEventType: last };
  if (version !== undefined) row.objectVersion = version;
  if (attrs && !removed) row.attributes = attrs;
  return row;
}

let over = false;
function end() {
  if (over) return;
  over = true;
  const text = Object.keys(logs).map((u) => JSON.stringify(materialise(u, logs[u]))).join('\n');
  fs.writeFileSync(process.env.LCKIT_VIEW_FILE, text ? text + '\n' : '');
  process.exit(0);
}
process.on('SIGTERM', end);

const expected = Math.max(0, parseInt(process.env.LCKIT_MESSAGES || '0', 10) || 0);
const limitAt = Date.now() + 40000;
let fd = -1;
let readPos = 0;
let rest = '';
let got = 0;
const chunk = Buffer.alloc(1 << 16);
const decoder = new StringDecoder('utf8');
function pump() {
  if (fd < 0) { try { fd = fs.openSync(process.env.LCKIT_EVENTS_FILE, 'r'); } catch { fd = -1; } }
  if (fd >= 0) {
    for (let guard = 0; guard < 100000; guard++) {
      const n = fs.readSync(fd, chunk, 0, chunk.length, readPos);
      if (n <= 0) break;
      readPos += n;
      rest += decoder.write(chunk.subarray(0, n));
    }
  }
  let nl;
  while ((nl = rest.indexOf('\n')) >= 0) {
    const line = rest.slice(0, nl);
    rest = rest.slice(nl + 1);
    if (!line.trim()) continue;
    got++;
    try { onMessage(JSON.parse(line)); } catch { /* not JSON: skip */ }
  }
  if (got >= expected || Date.now() > limitAt) {
    if (rest.trim()) { try { onMessage(JSON.parse(rest)); } catch { /* skip */ } }
    end();
  } else setTimeout(pump, 80);
}
pump();
