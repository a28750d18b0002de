// "Kestrel Reference Data" — one server of the whole HTTP part of the lookup-data / token-quota interface.
// Node 20, node:http only. Layers: Switches -> Seed -> Directory (customers, clients) -> TokenDesk ->
// Catalog (lookups, statistics, blocked values) -> Query (filter, sort) -> ScrollBook -> Endpoints -> wire.
// Usage: node server.mjs --port 0   (prints "listening <port>", binds 127.0.0.1)
//        FAULT=<name> switches on one fault, CHOICES=<a,b> legal variants.
import http from 'node:http';
import { randomBytes } from 'node:crypto';

// ------------------------------------------------------------------------------------------ switches
const FAULTS = [
  'scan-cache-stale-after-delete', 'scroll-skips-after-delete', 'scroll-evicts-at-three',
  'tie-order-unstable-across-pages', 'sort-within-page-only', 'numeric-sort-as-text',
  'stats-sort-drops-missing', 'type-scan-drops-uncandidated', 'filter-page-empty-ends-scan',
  'type-filter-needs-uri', 'blocked-order-drifts', 'blocked-page-overruns-type',
  'config-write-resets-scrolls', 'scroll-crosses-tenant', 'delete-resurrects-after-ttl',
  'delete-type-prefix-match', 'delete-uris-cross-tenant', 'blocked-limit-default-only-without-offset',
];
const CHOICES = [
  'scroll-single-use', 'end-empty-page-keeps-scrollid', 'sort-missing-first', 'version-json-number',
  'post-merges', 'task-async', 'equals-case-sensitive', 'lookup-default-limit-10',
];
const fault = (process.env.FAULT || '').trim();
const choiceList = (process.env.CHOICES || '').split(',').map(s => s.trim()).filter(Boolean);
if (fault && !FAULTS.includes(fault)) {
  process.stderr.write(`unknown FAULT "${fault}"; valid names: ${FAULTS.join(', ')}\n`);
  process.exit(2);
}
for (const c of choiceList) {
  if (!CHOICES.includes(c)) {
    process.stderr.write(`unknown CHOICES entry "${c}"; valid names: ${CHOICES.join(', ')}\n`);
    process.exit(2);
  }
}
const F = name => fault === name;
const C = name => choiceList.includes(name);

// ------------------------------------------------------------------------------------------ seed
// Deterministic generator so every start serves the same data.
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rnd = prng(20251206);
const pick = arr => arr[Math.floor(rnd() * arr.length)];
const T0 = 1735689600000; // 2025-01-01T00:00:00Z

const TENANTS = {
  acme: { authMode: 'cassandra' },
  globex: { authMode: 'cassandra' },
  legacy: { authMode: 'rdbms' },
};
const TYPE_PREFIX = 'rdm/lookupTypes/';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
function codeList(n, len, offset) {
  const out = [];
  for (let i = 0; out.length < n; i++) {
    let k = i * 7 + offset, s = '';
    for (let j = 0; j < len; j++) { s = LETTERS[k % 26] + s; k = Math.floor(k / 26); }
    if (!out.includes(s)) out.push(s);
  }
  return out;
}

let seq = 0;
function makeLookup(tenantId, typeName, code, i) {
  const rec = {
    _seq: ++seq,
    tenantId,
    updatedBy: pick(['loader@kestrel', 'ana.ruiz', 'svc-sync']),
    updateDate: T0 + (i % 9) * 3600000, // few distinct values: ties for sort=updateDate
    version: 1 + (i % 3),
    type: TYPE_PREFIX + typeName,
    code,
    enabled: rnd() > 0.17,
    sourceMappings: [{
      source: pick(['SAP', 'Salesforce', 'Reltio']),
      values: [{ code, value: `${typeName} ${code}`, enabled: true, canonicalValue: true, downStreamDefaultValue: rnd() > 0.5 }],
    }],
    attributes: i % 4 === 0 ? [] : [{ name: 'rank', value: String(i % 11) }],
  };
  if (i % 5 !== 0) rec.localizations = [];
  if (typeName === 'CountrySubdivision') rec.parents = [`${TYPE_PREFIX}Country/${code.slice(0, 2)}`];
  else if (i % 6 !== 0) rec.parents = [];
  if (i % 3 !== 0) { rec.startDate = T0 - 86400000 * (i % 40); }
  if (i % 3 === 1) { rec.endDate = T0 + 86400000 * (300 + (i % 17)); }
  return rec;
}

function seedLookups(tenantId, plan) {
  const out = [];
  for (const [typeName, n, len, off] of plan) {
    codeList(n, len, off).forEach((code, i) => out.push(makeLookup(tenantId, typeName, code, i)));
  }
  return out;
}

const STATUSES = ['LOOKUP_CREATED', 'MISSPELLED', 'AUTOMAPPED', 'MANUALLY_MAPPED', 'TRACKING'];
function seedStats(tenantId, types, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const lookupType = types[i % types.length];
    const status = STATUSES[(i * 7 + Math.floor(i / 5)) % STATUSES.length];
    const createdAt = T0 + Math.floor(i / 3) * 600000; // groups of three share createdAt
    const bucket = createdAt - (createdAt % 3600000);
    const freq = [3, 9, 12, 27, 40, 100, 250, 1000, 1500, 7][i % 10] + (i % 4);
    const r = {
      _seq: ++seq,
      tenantId,
      lookupType,
      source: pick(['SAP', 'Salesforce', 'Workday']),
      unmappedValue: `${lookupType.toLowerCase()}-raw-${String(i).padStart(3, '0')}`,
      semanticScore: Math.round(rnd() * 1000) / 1000,
      centroidMatch: rnd() > 0.5,
      currentFrequency: freq,
      requiredFrequency: 5 + (i % 6),
      frequencyAtMapping: freq - (i % 3),
      frequencyWindowHours: [24, 48, 168][i % 3],
      status,
      createdAt,
      sourceFrequency: { totalCount: freq + 2, hourlyFrequency: { [String(bucket)]: freq, [String(bucket - 3600000)]: 2 } },
      updateDate: createdAt + 60000 * (i % 7),
      aiConfidence: Math.round(rnd() * 100) / 100,
      aiReasoning: `closest candidate by embedding distance (${i % 13})`,
      configVersion: 1 + (i % 4),
    };
    if (status !== 'TRACKING' && i % 11 !== 0) {
      r.candidateLookupCode = `C${String(i % 97).padStart(2, '0')}`;
      r.candidateValue = `Candidate ${i % 97}`;
    }
    if (status === 'AUTOMAPPED' || status === 'MANUALLY_MAPPED' || status === 'LOOKUP_CREATED') {
      r.mappedAt = createdAt + 1800000;
      r.mappedBy = status === 'AUTOMAPPED' ? 'SYSTEM' : pick(['ana.ruiz', 'li.wong']);
    }
    if (i % 9 === 4) r.dcrId = `dcr-${tenantId}-${1000 + i}`;
    out.push(r);
  }
  return out;
}

function seedBlocked(tenantId, plan) {
  const out = [];
  for (const [typeName, n] of plan) {
    for (let i = 0; i < n; i++) {
      out.push({
        _seq: ++seq,
        tenantId,
        lookupType: TYPE_PREFIX + typeName,
        value: `${typeName.toLowerCase()}-blocked-${String(i).padStart(3, '0')}`,
        createdAt: T0 + Math.floor(i / 4) * 60000,
        createdBy: pick(['ana.ruiz', 'li.wong', 'svc-autopilot']),
      });
    }
  }
  return out;
}

const DATA = {
  acme: {
    lookups: seedLookups('acme', [['Country', 96, 2, 0], ['CountrySubdivision', 64, 4, 3], ['Currency', 44, 3, 5], ['Unit', 34, 2, 21], ['Language', 30, 2, 14]]),
    stats: seedStats('acme', ['Country', 'Currency', 'Unit', 'Language'], 318),
    blocked: seedBlocked('acme', [['Country', 172], ['Currency', 41], ['Unit', 23]]),
  },
  globex: {
    lookups: seedLookups('globex', [['Country', 30, 2, 1], ['Segment', 18, 3, 4]]),
    stats: seedStats('globex', ['Country', 'Segment'], 44),
    blocked: seedBlocked('globex', [['Country', 21]]),
  },
  legacy: {
    lookups: seedLookups('legacy', [['Plant', 12, 3, 9]]),
    stats: seedStats('legacy', ['Plant'], 8),
    blocked: seedBlocked('legacy', [['Plant', 5]]),
  },
};

// ------------------------------------------------------------------------------------------ directory
const CLIENTS = new Map();
function addClient(clientId, secret, customerId, tenants, roles) {
  CLIENTS.set(clientId, {
    clientId, secret, customerId, tenants, roles,
    accessTokenValidity: 3600, validityEpoch: 0,
    profile: { clientId, scope: ['entities_api', 'configuration_api'], authorities: ['ROLE_API'], resourceIds: [], authorizedGrantTypes: ['client_credentials'], redirectUri: [], accessTokenValidity: 3600, refreshTokenValidity: 86400 },
  });
}
addClient('kst-acme-admin', 'kst-pw-acme-admin-5521', 'cust-acme', ['acme'], ['ROLE_ADMIN_TENANT_acme']);
addClient('kst-acme-editor', 'kst-pw-acme-editor-8f02', 'cust-acme', ['acme'], ['ROLE_RDM_EDIT']);
addClient('kst-acme-viewer', 'kst-pw-acme-viewer-a7c9', 'cust-acme', ['acme'], ['ROLE_RDM']);
addClient('kst-acme-quota', 'kst-pw-acme-quota-31d6', 'cust-acme', ['acme'], ['ROLE_RDM']);
addClient('kst-globex-admin', 'kst-pw-globex-admin-e40b', 'cust-globex', ['globex'], ['ROLE_ADMIN_TENANT_globex']);
addClient('kst-legacy-admin', 'kst-pw-legacy-admin-9b17', 'cust-legacy', ['legacy'], ['ROLE_ADMIN_TENANT_legacy']);

const CUSTOMERS = new Map();
for (const [id, tenant] of [['cust-acme', 'acme'], ['cust-globex', 'globex'], ['cust-legacy', 'legacy']]) {
  CUSTOMERS.set(id, {
    id, tenants: [tenant], externalProviderConfig: [], description: `${tenant} customer`, caseSensitiveLoginEnabled: false,
    applicationClients: [...CLIENTS.values()].filter(c => c.customerId === id).map(c => c.clientId), customerSpecificRoles: [],
  });
}
const DEFAULT_MAX_ACTIVE = 20; // document: default when unset not shown

// ------------------------------------------------------------------------------------------ errors
class Refusal extends Error {
  constructor(status, error, description, extra = {}) { super(description); this.status = status; this.error = error; this.extra = extra; }
}
const bad = msg => new Refusal(400, 'invalid_request', msg);

// ------------------------------------------------------------------------------------------ token desk
const TOKENS = new Map(); // token -> { clientId, issuedAt, expiresAt }
const lastToken = new Map(); // clientId -> { token, epoch }
const newId = (p, n = 12) => p + randomBytes(n).toString('hex');

function activeCount(clientId, now) {
  let n = 0;
  for (const t of TOKENS.values()) if (t.clientId === clientId && t.expiresAt > now) n++;
  return n;
}
function multiTokenMax(client) {
  const mt = CUSTOMERS.get(client.customerId)?.multitokenConfig;
  if (!mt) return null;
  return mt.clientCredentialsMultiTokenConfig?.maxActiveTokensAllowed ?? DEFAULT_MAX_ACTIVE;
}
function issueToken(client) {
  const now = Date.now();
  const max = multiTokenMax(client);
  if (max === null) {
    const last = lastToken.get(client.clientId);
    const rec = last && TOKENS.get(last.token);
    if (rec && rec.expiresAt > now && last.epoch === client.validityEpoch) return [last.token, rec];
  } else if (activeCount(client.clientId, now) >= max) {
    throw new Refusal(429, 'limit_exceeded', `active token limit exceeded: ${max} active tokens allowed for client ${client.clientId}; wait for a token to expire or raise maxActiveTokensAllowed`);
  }
  const token = newId('kst.', 20);
  const rec = { clientId: client.clientId, issuedAt: now, expiresAt: now + client.accessTokenValidity * 1000 };
  TOKENS.set(token, rec);
  lastToken.set(client.clientId, { token, epoch: client.validityEpoch });
  return [token, rec];
}

function tokenEndpoint(req, url, rawBody) {
  const ctype = (req.headers['content-type'] || '').split(';')[0].trim().toLowerCase();
  const form = ctype === 'application/x-www-form-urlencoded' ? new URLSearchParams(rawBody.toString('utf8')) : new URLSearchParams();
  const param = k => form.get(k) ?? url.searchParams.get(k);
  let id, secret, viaBasic = false;
  const auth = req.headers.authorization || '';
  if (/^basic /i.test(auth)) {
    viaBasic = true;
    const dec = Buffer.from(auth.slice(6).trim(), 'base64').toString('utf8');
    const i = dec.indexOf(':');
    id = decodeURIComponent(i < 0 ? dec : dec.slice(0, i));
    secret = decodeURIComponent(i < 0 ? '' : dec.slice(i + 1));
  } else {
    id = param('client_id');
    secret = param('client_secret');
  }
  const grant = param('grant_type');
  if (!grant) throw new Refusal(400, 'invalid_request', 'grant_type is missing; send grant_type=client_credentials');
  if (grant !== 'client_credentials') throw new Refusal(400, 'unsupported_grant_type', `grant_type ${grant} is not supported here; use client_credentials`);
  const client = id ? CLIENTS.get(id) : undefined;
  if (!client || client.secret !== secret) {
    throw new Refusal(401, 'invalid_client', 'client authentication failed', viaBasic ? { headers: { 'WWW-Authenticate': 'Basic realm="oauth"' } } : {});
  }
  const [token, rec] = issueToken(client);
  return {
    status: 200, headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
    body: { access_token: token, token_type: 'bearer', expires_in: Math.max(0, Math.ceil((rec.expiresAt - Date.now()) / 1000)), scope: client.profile.scope.join(' ') },
  };
}

function principal(req) {
  const auth = req.headers.authorization || '';
  const m = /^bearer\s+(\S+)$/i.exec(auth.trim());
  if (!m) throw new Refusal(401, 'unauthorized', 'Authorization header with a Bearer access token is required', { headers: { 'WWW-Authenticate': 'Bearer' } });
  const rec = TOKENS.get(m[1]);
  if (!rec) throw new Refusal(401, 'invalid_token', 'access token is not recognised', { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
  if (rec.expiresAt <= Date.now()) throw new Refusal(401, 'invalid_token', 'Access token expired', { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token", error_description="expired"' } });
  return CLIENTS.get(rec.clientId);
}
const isAdminOf = (p, t) => p.roles.includes(`ROLE_ADMIN_TENANT_${t}`);
function needTenant(p, tenant, write) {
  if (!TENANTS[tenant]) throw new Refusal(404, 'not_found', `tenant ${tenant} does not exist`);
  const inList = p.tenants.includes(tenant);
  const ok = isAdminOf(p, tenant) || (inList && (p.roles.includes('ROLE_RDM_EDIT') || (!write && p.roles.includes('ROLE_RDM'))));
  if (!ok) throw new Refusal(403, 'forbidden', `client ${p.clientId} may not ${write ? 'change' : 'read'} data of tenant ${tenant}`);
}

// ------------------------------------------------------------------------------------------ catalog
const DELETE_TTL_MS = 3000; // only used by the delete-resurrects-after-ttl fault
function visible(rec) {
  if (rec._deletedAt === undefined) return true;
  return F('delete-resurrects-after-ttl') && Date.now() - rec._deletedAt > DELETE_TTL_MS;
}
const typeNameOf = uri => (uri.startsWith(TYPE_PREFIX) ? uri.slice(TYPE_PREFIX.length) : uri);

// ------------------------------------------------------------------------------------------ query
const LOOKUP_FIELDS = ['tenantId', 'updatedBy', 'updateDate', 'version', 'type', 'code', 'enabled', 'startDate', 'endDate'];
const STAT_FIELDS = ['tenantId', 'lookupType', 'source', 'unmappedValue', 'candidateLookupCode', 'candidateValue', 'semanticScore', 'centroidMatch', 'currentFrequency', 'requiredFrequency', 'frequencyAtMapping', 'frequencyWindowHours', 'status', 'mappedAt', 'mappedBy', 'createdAt', 'updateDate', 'aiConfidence', 'dcrId', 'configVersion', 'sourceFrequency.totalCount'];
const fieldOf = (rec, path) => path.split('.').reduce((o, k) => (o == null ? undefined : o[k]), rec);

// filter := or ; or := and ('or' and)* ; and := atom ('and' atom)* ; atom := equals(field,value) | '(' or ')'
function parseFilter(text, fields) {
  let i = 0;
  const ws = () => { while (i < text.length && /\s/.test(text[i])) i++; };
  const fail = why => { throw bad(`filter "${text}" is not understood at position ${i}: ${why}. Supported: equals(field,'value') combined with and / or and parentheses`); };
  const word = w => { ws(); if (text.slice(i, i + w.length).toLowerCase() === w && !/\w/.test(text[i + w.length] || '')) { i += w.length; return true; } return false; };
  function atom() {
    ws();
    if (text[i] === '(') { i++; const e = or(); ws(); if (text[i] !== ')') fail('expected )'); i++; return e; }
    if (!word('equals')) fail('expected equals(');
    ws(); if (text[i] !== '(') fail('expected ('); i++; ws();
    const m = /^[A-Za-z][\w.]*/.exec(text.slice(i));
    if (!m) fail('expected a field name');
    const field = m[0]; i += field.length; ws();
    if (!fields.includes(field)) throw bad(`filter field ${field} is not filterable; use one of ${fields.join(', ')}`);
    if (text[i] !== ',') fail('expected ,'); i++; ws();
    let value;
    if (text[i] === "'" || text[i] === '"') {
      const q = text[i]; const end = text.indexOf(q, i + 1);
      if (end < 0) fail('unterminated quoted value');
      value = text.slice(i + 1, end); i = end + 1;
    } else {
      const end = text.indexOf(')', i);
      if (end < 0) fail('expected )');
      value = text.slice(i, end).trim(); i = end;
    }
    ws(); if (text[i] !== ')') fail('expected )'); i++;
    return { op: 'equals', field, value };
  }
  function and() { let l = atom(); while (word('and')) l = { op: 'and', l, r: atom() }; return l; }
  function or() { let l = and(); while (word('or')) l = { op: 'or', l, r: and() }; return l; }
  const tree = or(); ws();
  if (i !== text.length) fail('unexpected trailing text');
  return tree;
}
function same(a, b) { return C('equals-case-sensitive') ? a === b : a.toLowerCase() === b.toLowerCase(); }
function matches(node, rec) {
  if (node.op === 'and') return matches(node.l, rec) && matches(node.r, rec);
  if (node.op === 'or') return matches(node.l, rec) || matches(node.r, rec);
  const v = fieldOf(rec, node.field);
  if (v === undefined || v === null || typeof v === 'object') return false;
  const s = String(v);
  if (node.field === 'type' && typeof v === 'string' && v.startsWith(TYPE_PREFIX)) {
    // the document's sample filters on the type name; the stored value is the type URI
    return same(s, node.value) || (!F('type-filter-needs-uri') && same(typeNameOf(s), node.value));
  }
  return same(s, node.value);
}

function compareValues(a, b) {
  if (F('numeric-sort-as-text')) { a = String(a); b = String(b); }
  if (typeof a === 'boolean') { a = a ? 1 : 0; b = b ? 1 : 0; }
  return a < b ? -1 : a > b ? 1 : 0;
}
// Sorted copy; ties keep storage order (stable), missing values go last unless sort-missing-first.
function sortRecords(list, sort, desc, tieSalt) {
  if (!sort) return list.slice();
  const dir = desc ? -1 : 1;
  const tie = tieSalt === undefined ? (a, b) => a._seq - b._seq : (a, b) => hashSeq(a._seq, tieSalt) - hashSeq(b._seq, tieSalt);
  return list.slice().sort((x, y) => {
    const a = fieldOf(x, sort), b = fieldOf(y, sort);
    const ma = a === undefined || a === null, mb = b === undefined || b === null;
    if (ma || mb) {
      if (ma && mb) return tie(x, y);
      const missingFirst = C('sort-missing-first') ? !desc : false;
      return (ma ? -1 : 1) * (missingFirst ? 1 : -1);
    }
    return dir * compareValues(a, b) || tie(x, y);
  });
}
function hashSeq(n, salt) { let h = (n * 2654435761 + salt * 40503) >>> 0; h ^= h >>> 13; return Math.imul(h, 0x5bd1e995) >>> 0; }

function intParam(url, name, { dflt, min, max, maxName }) {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return dflt;
  if (!/^-?\d+$/.test(raw)) throw bad(`${name} must be an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min) throw bad(`${name} must be at least ${min}, got ${n}`);
  if (max !== undefined && n > max) throw bad(`${name} must be at most ${max}${maxName ? ` (${maxName})` : ''}, got ${n}`);
  return n;
}

// ------------------------------------------------------------------------------------------ scroll book
// A scroll is a session holding the ordered snapshot of what matched at its first request; each page
// gets its own id that names (session, position), so an id replays its page (unless scroll-single-use).
const SESSIONS = new Map(); // sid -> session (Map order = least recently used first)
const PAGE_IDS = new Map(); // page id -> { sid, pos }
const SESSION_CAP = F('scroll-evicts-at-three') ? 2 : 2000;
const FIRST_PAGE_CACHE = new Map(); // only used by the scan-cache-stale-after-delete fault

function openSession(s) {
  const sid = newId('s', 6);
  SESSIONS.set(sid, s);
  while (SESSIONS.size > SESSION_CAP) {
    const oldest = SESSIONS.keys().next().value;
    SESSIONS.delete(oldest);
  }
  return sid;
}
function touch(sid) { const s = SESSIONS.get(sid); SESSIONS.delete(sid); SESSIONS.set(sid, s); return s; }
function pageIdFor(sid, pos) { const id = newId('p', 9); PAGE_IDS.set(id, { sid, pos }); return id; }
function resetScrolls() { SESSIONS.clear(); PAGE_IDS.clear(); }

function scrollIdFromBody(raw) {
  const text = raw.toString('utf8').trim();
  if (text === '' || text === 'null') return null;
  if (text.startsWith('{')) {
    let o; try { o = JSON.parse(text); } catch { throw bad('scan body is not valid JSON; send the scrollId as raw text, a JSON string or {"scrollId": "..."}'); }
    if (o === null || typeof o.scrollId !== 'string') throw bad('scan body object needs a string scrollId');
    return o.scrollId;
  }
  if (text.startsWith('"')) {
    let s; try { s = JSON.parse(text); } catch { throw bad('scan body is a malformed JSON string'); }
    return s;
  }
  return text;
}

// kind: { name, tenant, source(): records, fields, limit: {dflt, max}, typeName?, strip(rec) }
function runScan(kind, url, rawBody) {
  const sidIn = scrollIdFromBody(rawBody);
  if (sidIn === null) return firstPage(kind, url);
  const ref = PAGE_IDS.get(sidIn);
  const s = ref && SESSIONS.get(ref.sid);
  if (!s) throw new Refusal(404, 'scroll_not_found', `scrollId ${sidIn.slice(0, 40)} is unknown, used up or expired; start a new scan without a body`);
  const boundOk = s.kind === kind.name && s.typeName === kind.typeName && (s.tenant === kind.tenant || F('scroll-crosses-tenant'));
  if (!boundOk) throw new Refusal(404, 'scroll_not_found', `scrollId ${sidIn.slice(0, 40)} does not belong to this scan; start a new scan without a body`);
  if (C('scroll-single-use')) PAGE_IDS.delete(sidIn);
  touch(ref.sid);
  return page(ref.sid, s, ref.pos);
}

function firstPage(kind, url) {
  const filterText = url.searchParams.get('filter');
  const filter = filterText ? parseFilter(filterText, kind.fields) : null;
  const sort = url.searchParams.get('sort') || null;
  if (sort && !kind.fields.includes(sort)) throw bad(`sort field ${sort} is not sortable; use one of ${kind.fields.join(', ')}`);
  const order = url.searchParams.get('order');
  if (order !== null && order !== 'asc' && order !== 'desc') throw bad(`order must be asc or desc, got "${order}"`);
  const limit = intParam(url, 'limit', { dflt: kind.limit.dflt, min: 1, max: kind.limit.max, maxName: 'maximum page size' });
  const cacheKey = `${kind.name}|${kind.tenant}|${kind.typeName || ''}|${url.search}`;
  if (F('scan-cache-stale-after-delete') && kind.name === 'lookups' && FIRST_PAGE_CACHE.has(cacheKey)) {
    return FIRST_PAGE_CACHE.get(cacheKey);
  }
  const s = { kind: kind.name, tenant: kind.tenant, typeName: kind.typeName, filter, sort, desc: order === 'desc', limit, source: kind.source, strip: kind.strip, pages: 0 };
  s.snapshot = selectAndOrder(s);
  const sid = openSession(s);
  const out = page(sid, s, 0);
  if (F('scan-cache-stale-after-delete') && kind.name === 'lookups') FIRST_PAGE_CACHE.set(cacheKey, out);
  return out;
}

function selectAndOrder(s, tieSalt) {
  let list = s.source().filter(visible);
  if (F('type-scan-drops-uncandidated') && s.kind === 'stats-type') list = list.filter(r => r.candidateLookupCode !== undefined);
  if (F('stats-sort-drops-missing') && s.kind.startsWith('stats') && s.sort) list = list.filter(r => fieldOf(r, s.sort) !== undefined);
  if (F('filter-page-empty-ends-scan')) return sortRecords(list, s.sort, s.desc, tieSalt); // filtered per page below
  if (s.filter) list = list.filter(r => matches(s.filter, r));
  if (F('sort-within-page-only')) return list;
  return sortRecords(list, s.sort, s.desc, tieSalt);
}

function page(sid, s, pos) {
  let values, next, ended;
  s.pages++;
  if (F('filter-page-empty-ends-scan') && s.filter) {
    // limit taken from the unfiltered order, then filtered: an all-miss page ends the scan
    const raw = s.snapshot.slice(pos, pos + s.limit);
    values = raw.filter(r => visible(r) && matches(s.filter, r));
    next = pos + raw.length;
    ended = next >= s.snapshot.length || values.length === 0;
  } else {
    let order = s.snapshot;
    if (F('scroll-skips-after-delete') || (F('tie-order-unstable-across-pages') && s.sort)) {
      // recomputes the ordered result on every page and slices by position
      order = selectAndOrder(s, F('tie-order-unstable-across-pages') ? s.pages : undefined);
    }
    const slice = order.slice(pos, pos + s.limit);
    values = slice.filter(visible);
    if (F('sort-within-page-only')) values = sortRecords(values, s.sort, s.desc);
    next = pos + slice.length;
    ended = next >= order.length;
  }
  const body = { values: values.map(s.strip) };
  if (C('end-empty-page-keeps-scrollid')) {
    // every response carries a scrollId; the end shows as an empty page
    body.scrollId = pageIdFor(sid, next);
  } else if (!ended) {
    body.scrollId = pageIdFor(sid, next);
  }
  return { status: 200, body: { scrollId: body.scrollId, values: body.values } };
}

const stripInternal = rec => {
  const o = {};
  for (const [k, v] of Object.entries(rec)) if (!k.startsWith('_')) o[k] = v;
  return o;
};
const stripTypeScan = rec => { const o = stripInternal(rec); delete o.dcrId; return o; };

// ------------------------------------------------------------------------------------------ endpoints
function readJson(raw, what) {
  const text = raw.toString('utf8').trim();
  if (text === '') throw bad(`${what}: a JSON body is required`);
  try { return JSON.parse(text); } catch (e) { throw bad(`${what}: body is not valid JSON (${e.message})`); }
}

const isStrArray = v => Array.isArray(v) && v.every(x => typeof x === 'string');
function validateCustomer(body, existing) {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw bad('customer body must be a JSON object');
  if (body.id !== undefined && body.id !== existing.id) throw bad(`body id ${body.id} differs from the path customerId ${existing.id}`);
  if (body.tenants !== undefined) {
    if (!isStrArray(body.tenants)) throw bad('tenants must be an array of strings');
    const a = [...body.tenants].sort().join(','), b = [...existing.tenants].sort().join(',');
    if (a !== b) throw bad(`tenants of ${existing.id} are ${existing.tenants.join(', ')} and cannot be changed here`);
  }
  for (const k of ['applicationClients', 'customerSpecificRoles']) if (body[k] !== undefined && !isStrArray(body[k])) throw bad(`${k} must be an array of strings`);
  if (body.externalProviderConfig !== undefined && !Array.isArray(body.externalProviderConfig)) throw bad('externalProviderConfig must be an array');
  if (body.description !== undefined && typeof body.description !== 'string') throw bad('description must be a string');
  if (body.caseSensitiveLoginEnabled !== undefined && typeof body.caseSensitiveLoginEnabled !== 'boolean') throw bad('caseSensitiveLoginEnabled must be a boolean');
  const mt = body.multitokenConfig;
  if (mt !== undefined && mt !== null) {
    if (typeof mt !== 'object' || Array.isArray(mt)) throw bad('multitokenConfig must be an object');
    const rdbms = existing.tenants.filter(t => TENANTS[t]?.authMode === 'rdbms');
    if (rdbms.length) {
      throw new Refusal(400, 'validation_error', `multitokenConfig is supported only for tenants with Cassandra-based authorization; tenant ${rdbms.join(', ')} uses auth.migration.mode=rdbms`);
    }
    const cc = mt.clientCredentialsMultiTokenConfig;
    if (cc !== undefined && cc !== null) {
      if (typeof cc !== 'object' || Array.isArray(cc)) throw bad('multitokenConfig.clientCredentialsMultiTokenConfig must be an object');
      const m = cc.maxActiveTokensAllowed;
      if (m !== undefined && (!Number.isInteger(m) || m < 1 || m > 200)) {
        throw new Refusal(400, 'validation_error', `maxActiveTokensAllowed must be an integer from 1 to 200 (hard platform limit), got ${JSON.stringify(m)}`);
      }
    }
  }
}

function customerEndpoint(p, method, customerId, raw) {
  const existing = CUSTOMERS.get(customerId);
  if (!existing) throw new Refusal(404, 'not_found', `customer ${customerId} does not exist`);
  if (!existing.tenants.some(t => isAdminOf(p, t))) throw new Refusal(403, 'forbidden', `client ${p.clientId} is not a tenant admin of customer ${customerId}`);
  const body = readJson(raw, 'customer');
  validateCustomer(body, existing);
  const merge = method === 'POST' && C('post-merges');
  const next = merge ? { ...existing } : { id: existing.id, tenants: existing.tenants, applicationClients: existing.applicationClients };
  for (const k of ['externalProviderConfig', 'description', 'caseSensitiveLoginEnabled', 'applicationClients', 'customerSpecificRoles']) if (body[k] !== undefined) next[k] = body[k];
  if (body.multitokenConfig === null) delete next.multitokenConfig;
  else if (body.multitokenConfig !== undefined) next.multitokenConfig = body.multitokenConfig;
  else if (!merge) delete next.multitokenConfig;
  CUSTOMERS.set(customerId, next);
  if (F('config-write-resets-scrolls')) resetScrolls();
  return { status: 200, body: next };
}

function clientsEndpoint(p, customerId, raw) {
  const existing = CUSTOMERS.get(customerId);
  if (!existing) throw new Refusal(404, 'not_found', `customer ${customerId} does not exist`);
  if (!existing.tenants.some(t => isAdminOf(p, t))) throw new Refusal(403, 'forbidden', `client ${p.clientId} is not a tenant admin of customer ${customerId}`);
  const body = readJson(raw, 'clients');
  if (!Array.isArray(body)) throw bad('body must be an array of Client objects');
  const staged = [];
  body.forEach((c, i) => {
    if (!c || typeof c !== 'object' || typeof c.clientId !== 'string') throw bad(`clients[${i}].clientId must be a string`);
    const target = CLIENTS.get(c.clientId);
    if (!target || target.customerId !== customerId) throw bad(`clients[${i}]: client ${c.clientId} does not belong to customer ${customerId}`);
    if (c.accessTokenValidity !== undefined && (!Number.isInteger(c.accessTokenValidity) || c.accessTokenValidity < 1)) throw bad(`clients[${i}].accessTokenValidity must be a positive integer (seconds)`);
    for (const k of ['scope', 'authorities', 'resourceIds', 'authorizedGrantTypes', 'redirectUri']) if (c[k] !== undefined && !isStrArray(c[k])) throw bad(`clients[${i}].${k} must be an array of strings`);
    staged.push([target, c]);
  });
  for (const [target, c] of staged) {
    for (const k of ['scope', 'authorities', 'resourceIds', 'authorizedGrantTypes', 'redirectUri', 'refreshTokenValidity']) if (c[k] !== undefined) target.profile[k] = c[k];
    if (c.accessTokenValidity !== undefined) {
      target.accessTokenValidity = c.accessTokenValidity;
      target.profile.accessTokenValidity = c.accessTokenValidity;
      target.validityEpoch++; // tokens issued from now on carry the new validity
    }
  }
  if (F('config-write-resets-scrolls')) resetScrolls();
  return { status: 200, body: staged.map(([t]) => ({ ...t.profile })) };
}

let taskSeq = 0;
function taskEndpoint(p, tenant, raw) {
  needTenant(p, tenant, true);
  const body = readJson(raw, 'task');
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw bad('task body must be a JSON object');
  if (body.type !== 'delete') throw bad(`task type must be "delete", got ${JSON.stringify(body.type)}`);
  const prm = body.parameters;
  if (prm !== undefined && prm !== null && (typeof prm !== 'object' || Array.isArray(prm))) throw bad('parameters must be an object');
  const pType = prm?.type, pUris = prm?.uris;
  if (pType !== undefined && typeof pType !== 'string') throw bad('parameters.type must be a lookup type URI string (rdm/lookupTypes/<type_name>)');
  if (pUris !== undefined && !isStrArray(pUris)) throw bad('parameters.uris must be an array of lookup URI strings (<tenant_id>/<type_name>/<code>)');
  const targets = []; // [tenant, typeName, code]
  for (const u of pUris || []) {
    const parts = u.split('/');
    if (parts.length < 3 || parts.some(x => x === '')) throw bad(`lookup URI "${u}" must have the shape <tenant_id>/<type_name>/<code>`);
    const [ut, ty, ...rest] = parts;
    if (ut !== tenant && !F('delete-uris-cross-tenant')) throw bad(`lookup URI "${u}" belongs to tenant ${ut}, not ${tenant}`);
    targets.push([ut, ty, rest.join('/')]);
  }
  const typeName = pType === undefined ? undefined : typeNameOf(pType);
  const typeHit = rec => (F('delete-type-prefix-match') ? typeNameOf(rec.type).startsWith(typeName) : typeNameOf(rec.type) === typeName);
  const victims = [];
  if (pUris !== undefined) {
    for (const [ut, ty, code] of targets) {
      const rec = (DATA[ut]?.lookups || []).find(r => r._deletedAt === undefined && typeNameOf(r.type) === ty && r.code === code);
      if (rec && (typeName === undefined || typeHit(rec))) victims.push(rec);
    }
  } else {
    for (const rec of DATA[tenant].lookups) if (rec._deletedAt === undefined && (typeName === undefined || typeHit(rec))) victims.push(rec);
  }
  const task = {
    id: `task-${++taskSeq}`, type: 'delete', tenantId: tenant, createdBy: p.clientId, createdTime: Date.now(),
    status: C('task-async') ? 'NOT_STARTED' : 'COMPLETED', parameters: prm ?? {},
  };
  const apply = () => { const now = Date.now(); for (const r of victims) r._deletedAt = now; };
  if (C('task-async')) { setTimeout(apply, 1000).unref(); return { status: 202, body: task }; }
  apply();
  return { status: 200, body: { ...task, deletedCount: victims.length } };
}

function blockedEndpoint(url, tenant, typeName) {
  const offset = intParam(url, 'offset', { dflt: 0, min: 0 });
  const limitGiven = url.searchParams.get('limit') !== null && url.searchParams.get('limit') !== '';
  let limit = intParam(url, 'limit', { dflt: 100, min: 1, max: 100, maxName: 'maximum page size' });
  if (F('blocked-limit-default-only-without-offset') && !limitGiven && url.searchParams.has('offset')) limit = Infinity;
  const all = DATA[tenant].blocked;
  let list = all.filter(b => typeNameOf(b.lookupType) === typeName);
  if (F('blocked-page-overruns-type') && list.length) {
    const start = all.indexOf(list[0]);
    return { status: 200, body: all.slice(start + offset, start + offset + limit).map(stripInternal) };
  }
  if (F('blocked-order-drifts') && list.length) {
    const key = `${tenant}|${typeName}`;
    const n = (BLOCKED_READS.get(key) || 0) + 1;
    BLOCKED_READS.set(key, n);
    const k = (n * 7) % list.length;
    list = [...list.slice(k), ...list.slice(0, k)];
  }
  return { status: 200, body: list.slice(offset, offset + limit).map(stripInternal) };
}
const BLOCKED_READS = new Map();

const STATS_LIMIT = { dflt: 100, max: 100 };
const LOOKUP_LIMIT = { dflt: C('lookup-default-limit-10') ? 10 : 100, max: 1000 };

// ------------------------------------------------------------------------------------------ routes
// Each route: method, path template (segments; ":x" binds), handler(ctx). Matched segment by segment.
const ROUTES = [
  ['POST', 'oauth/token', ctx => tokenEndpoint(ctx.req, ctx.url, ctx.raw), { open: true }],
  ['GET', 'healthcheck', () => ({ status: 200, body: { status: 'OK' } })],
  ['GET', 'status', () => ({ status: 200, body: { status: 'OK' } })],
  ['GET', 'version', () => (C('version-json-number')
    ? { status: 200, rawJson: '{"rdm-service": 2025.3}' }
    : { status: 200, body: { 'rdm-service': '2025.3.1.0.12' } })],
  ['PUT', 'oauth/customers/:customerId', ctx => customerEndpoint(ctx.p, 'PUT', ctx.params.customerId, ctx.raw)],
  ['POST', 'oauth/customers/:customerId', ctx => customerEndpoint(ctx.p, 'POST', ctx.params.customerId, ctx.raw)],
  ['PUT', 'oauth/customers/:customerId/clients', ctx => clientsEndpoint(ctx.p, ctx.params.customerId, ctx.raw)],
  ['POST', 'tasks/:tenantId', ctx => taskEndpoint(ctx.p, ctx.params.tenantId, ctx.raw)],
  ['POST', 'lookups/:tenantId/_scan', ctx => {
    const t = ctx.params.tenantId; needTenant(ctx.p, t, false);
    return runScan({ name: 'lookups', tenant: t, source: () => DATA[t].lookups, fields: LOOKUP_FIELDS, limit: LOOKUP_LIMIT, strip: stripInternal }, ctx.url, ctx.raw);
  }],
  ['POST', 'configuration/:tenantId/autopilot/stats/_scan', ctx => {
    const t = ctx.params.tenantId; needTenant(ctx.p, t, false);
    return runScan({ name: 'stats', tenant: t, source: () => DATA[t].stats, fields: STAT_FIELDS, limit: STATS_LIMIT, strip: stripInternal }, ctx.url, ctx.raw);
  }],
  ['POST', 'configuration/:tenantId/autopilot/stats/:lookupType/_scan', ctx => {
    const t = ctx.params.tenantId; needTenant(ctx.p, t, false);
    const lt = ctx.params.lookupType;
    return runScan({ name: 'stats-type', tenant: t, typeName: lt, source: () => DATA[t].stats.filter(r => r.lookupType === lt), fields: STAT_FIELDS, limit: STATS_LIMIT, strip: stripTypeScan }, ctx.url, ctx.raw);
  }],
  ['GET', 'configuration/:tenantId/autopilot/:lookupType/blockedValues', ctx => {
    const t = ctx.params.tenantId; needTenant(ctx.p, t, false);
    return blockedEndpoint(ctx.url, t, ctx.params.lookupType);
  }],
].map(([method, tpl, handler, opts = {}]) => ({ method, segs: tpl.split('/'), handler, open: !!opts.open }));

function route(method, pathname) {
  const segs = pathname.split('/').filter(Boolean).map(s => { try { return decodeURIComponent(s); } catch { return s; } });
  let pathKnown = false;
  for (const r of ROUTES) {
    if (r.segs.length !== segs.length) continue;
    const params = {};
    if (!r.segs.every((t, i) => (t.startsWith(':') ? ((params[t.slice(1)] = segs[i]), true) : t === segs[i]))) continue;
    pathKnown = true;
    if (r.method === method) return { r, params };
  }
  if (pathKnown) throw new Refusal(405, 'method_not_allowed', `${method} is not allowed on ${pathname}`);
  throw new Refusal(404, 'not_found', `no resource at ${pathname}`);
}

// ------------------------------------------------------------------------------------------ wire
function send(res, status, body, headers = {}, rawJson) {
  const text = rawJson ?? JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  let size = 0;
  req.on('data', d => { size += d.length; if (size <= 2_000_000) chunks.push(d); });
  req.on('error', () => {});
  req.on('end', () => {
    try {
      if (size > 2_000_000) throw new Refusal(413, 'payload_too_large', 'request body above 2 MB');
      const url = new URL(req.url, 'http://127.0.0.1');
      const { r, params } = route(req.method, url.pathname);
      const ctx = { req, url, raw: Buffer.concat(chunks), params };
      if (!r.open) ctx.p = principal(req);
      const out = r.handler(ctx);
      send(res, out.status, out.body, out.headers, out.rawJson);
    } catch (e) {
      if (e instanceof Refusal) send(res, e.status, { error: e.error, error_description: e.message }, e.extra.headers || {});
      else { process.stderr.write(`internal error: ${e.stack}\n`); send(res, 500, { error: 'server_error', error_description: 'unexpected server error' }); }
    }
  });
});
server.on('clientError', (err, socket) => {
  if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{"error":"invalid_request"}');
  else socket.destroy();
});

const portArg = process.argv.indexOf('--port');
const port = portArg >= 0 ? Number(process.argv[portArg + 1]) : 8080;
server.listen(port, '127.0.0.1', () => { process.stdout.write(`listening ${server.address().port}\n`); });
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => { server.close(); process.exit(0); });
