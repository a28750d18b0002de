// Independent provider "Northwind RDM" (Node.js 20, standard library only).
// Serves {base_url} (oauth, configuration) and {rdm_url} (lookups, tasks, service endpoints) on one origin.
import http from 'node:http';
import crypto from 'node:crypto';

const FAULTS = [
  'token-expiry-ignored', 'quota-off-by-one', 'expired-still-counted', 'multitoken-off-new-token',
  'validity-from-first-token', 'scroll-shared-cursor', 'lookup-scan-skips-boundary',
  'autopilot-default-limit-50', 'autopilot-limit-max-ignored', 'stats-desc-lost-on-continuation',
  'delete-type-deletes-all', 'rdbms-multitoken-accepted', 'editor-other-tenant-lookups',
];
const CHOICES = ['scroll-raw-only', 'end-on-last-page', 'over-limit-clamp', 'quota-403'];

const FAULT = process.env.FAULT || '';
if (FAULT && !FAULTS.includes(FAULT)) {
  process.stderr.write(`unknown FAULT '${FAULT}'; valid faults: ${FAULTS.join(', ')}\n`);
  process.exit(2);
}
const CH = new Set((process.env.CHOICES || '').split(',').map(s => s.trim()).filter(Boolean));
for (const c of CH) {
  if (!CHOICES.includes(c)) {
    process.stderr.write(`unknown CHOICES value '${c}'; valid choices: ${CHOICES.join(', ')}\n`);
    process.exit(2);
  }
}
const fault = n => FAULT === n;

let port = 0;
for (let i = 2; i < process.argv.length; i++) {
  if (process.argv[i] === '--port') port = parseInt(process.argv[++i], 10) || 0;
  else if (process.argv[i].startsWith('--port=')) port = parseInt(process.argv[i].slice(7), 10) || 0;
}

// ---------------------------------------------------------------- identity
const TENANT_MODE = { acme: 'cassandra', globex: 'cassandra', legacy: 'rdbms' };
const clients = new Map();
function addClient(id, secret, roles, tenants) {
  clients.set(id, {
    clientId: id, clientSecret: secret, roles, tenants,
    scope: ['clients_api', 'configuration_api', 'entities_api'], authorities: ['ROLE_API'],
    resourceIds: [], authorizedGrantTypes: ['client_credentials'], redirectUri: [],
    accessTokenValidity: 3600, refreshTokenValidity: 86400, validityGen: 0,
  });
}
addClient('acme-admin-7f3a', 's3cr3t-acme-admin-91c2', ['ROLE_ADMIN_TENANT_acme'], ['acme']);
addClient('acme-editor-2b8d', 's3cr3t-acme-editor-44e1', ['ROLE_RDM_EDIT'], ['acme']);
addClient('acme-viewer-c51e', 's3cr3t-acme-viewer-0a9f', ['ROLE_RDM'], ['acme']);
addClient('acme-quota-9d04', 's3cr3t-acme-quota-7b33', ['ROLE_RDM'], ['acme']);
addClient('globex-admin-5e6f', 's3cr3t-globex-admin-12ab', ['ROLE_ADMIN_TENANT_globex'], ['globex']);
addClient('legacy-admin-8c7d', 's3cr3t-legacy-admin-3f5e', ['ROLE_ADMIN_TENANT_legacy'], ['legacy']);

const customers = new Map();
function addCustomer(id, tenants, apps) {
  customers.set(id, {
    id, tenants, externalProviderConfig: [], description: `customer ${id}`,
    caseSensitiveLoginEnabled: false, applicationClients: apps, customerSpecificRoles: [],
  });
}
addCustomer('cust-acme', ['acme'], ['acme-admin-7f3a', 'acme-editor-2b8d', 'acme-viewer-c51e', 'acme-quota-9d04']);
addCustomer('cust-globex', ['globex'], ['globex-admin-5e6f']);
addCustomer('cust-legacy', ['legacy'], ['legacy-admin-8c7d']);
const DEFAULT_MAX_TOKENS = 50;

function customerOf(clientId) {
  for (const c of customers.values()) if ((c.applicationClients || []).includes(clientId)) return c;
  return null;
}

// ---------------------------------------------------------------- tokens
const tokens = new Map(); // token -> {clientId, issuedAt, expiresAt, gen}
const issuedBy = new Map(); // clientId -> [token records] (issue order)

function activeTokens(clientId, now) {
  const list = issuedBy.get(clientId) || [];
  return list.filter(t => t.expiresAt > now);
}

function issueToken(cl, now) {
  const rec = {
    token: crypto.randomBytes(24).toString('base64url'), clientId: cl.clientId,
    issuedAt: now, expiresAt: now + cl.accessTokenValidity * 1000, gen: cl.validityGen,
  };
  tokens.set(rec.token, rec);
  if (!issuedBy.has(cl.clientId)) issuedBy.set(cl.clientId, []);
  issuedBy.get(cl.clientId).push(rec);
  return rec;
}

function tokenEndpoint(req, res, url, rawBody) {
  if (req.method !== 'POST') return send(res, 405, { error: 'invalid_request', error_description: 'POST required' }, { Allow: 'POST' });
  const form = new URLSearchParams(rawBody.toString('utf8'));
  const grant = form.get('grant_type') || url.searchParams.get('grant_type');
  let id = null, secret = null, basic = false;
  const auth = req.headers.authorization || '';
  if (/^basic /i.test(auth)) {
    basic = true;
    const dec = Buffer.from(auth.slice(6).trim(), 'base64').toString('utf8');
    const i = dec.indexOf(':');
    if (i < 0) return oauthErr(res, 401, 'invalid_client', 'Malformed basic credentials', true);
    try { id = decodeURIComponent(dec.slice(0, i)); secret = decodeURIComponent(dec.slice(i + 1)); }
    catch { id = dec.slice(0, i); secret = dec.slice(i + 1); }
  }
  const fid = form.get('client_id'), fsec = form.get('client_secret');
  if (fid !== null || fsec !== null) {
    if (basic && (fid !== id || (fsec !== null && fsec !== secret))) return oauthErr(res, 400, 'invalid_request', 'More than one client authentication method');
    if (!basic) { id = fid; secret = fsec; }
  }
  if (!grant) return oauthErr(res, 400, 'invalid_request', 'Missing grant_type');
  if (id === null) return oauthErr(res, 401, 'invalid_client', 'Client authentication required', true);
  const cl = clients.get(id);
  if (!cl || cl.clientSecret !== secret) return oauthErr(res, 401, 'invalid_client', 'Bad client credentials', basic);
  if (grant !== 'client_credentials') return oauthErr(res, 400, 'unsupported_grant_type', `Unsupported grant type: ${grant}`);

  const now = Date.now();
  const cust = customerOf(cl.clientId);
  const mt = cust && cust.multitokenConfig;
  let rec;
  if (mt) {
    const conf = mt.clientCredentialsMultiTokenConfig || {};
    const max = Number.isInteger(conf.maxActiveTokensAllowed) ? conf.maxActiveTokensAllowed : DEFAULT_MAX_TOKENS;
    const counted = fault('expired-still-counted') ? (issuedBy.get(cl.clientId) || []) : activeTokens(cl.clientId, now);
    const cap = fault('quota-off-by-one') ? max + 1 : max;
    if (counted.length >= cap) {
      const st = CH.has('quota-403') ? 403 : 429;
      return send(res, st, {
        error: 'limit_exceeded',
        error_description: `Maximum number of active access tokens (${max}) exceeded for client ${cl.clientId}; wait for a token to expire or raise maxActiveTokensAllowed`,
      }, { 'Cache-Control': 'no-store' });
    }
    rec = issueToken(cl, now);
    if (fault('validity-from-first-token')) {
      const act = activeTokens(cl.clientId, now);
      if (act.length > 1) rec.expiresAt = act[0].expiresAt;
    }
  } else {
    const act = activeTokens(cl.clientId, now).filter(t => t.gen === cl.validityGen);
    rec = (act.length && !fault('multitoken-off-new-token')) ? act[act.length - 1] : issueToken(cl, now);
  }
  return send(res, 200, {
    access_token: rec.token, token_type: 'bearer',
    expires_in: Math.max(0, Math.ceil((rec.expiresAt - now) / 1000)), scope: cl.scope.join(' '),
  }, { 'Cache-Control': 'no-store', Pragma: 'no-cache' });
}

function oauthErr(res, status, code, desc, basicChallenge) {
  const h = { 'Cache-Control': 'no-store' };
  if (status === 401) h['WWW-Authenticate'] = basicChallenge ? 'Basic realm="oauth", error="invalid_client"' : 'Basic realm="oauth"';
  return send(res, status, { error: code, error_description: desc }, h);
}

// returns client or sends an error and returns null
function bearer(req, res) {
  const auth = req.headers.authorization || '';
  const m = /^bearer\s+(\S+)\s*$/i.exec(auth);
  if (!m) {
    send(res, 401, { error: 'unauthorized', error_description: 'Full authentication is required to access this resource' }, { 'WWW-Authenticate': 'Bearer realm="rdm"' });
    return null;
  }
  const rec = tokens.get(m[1]);
  if (!rec) {
    send(res, 401, { error: 'invalid_token', error_description: 'Invalid access token' }, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
    return null;
  }
  if (rec.expiresAt <= Date.now() && !fault('token-expiry-ignored')) {
    send(res, 401, { error: 'invalid_token', error_description: `Access token expired: ${m[1].slice(0, 6)}...` }, { 'WWW-Authenticate': 'Bearer error="invalid_token", error_description="The access token expired"' });
    return null;
  }
  return clients.get(rec.clientId);
}

const isAdminOf = (cl, t) => cl.roles.includes(`ROLE_ADMIN_TENANT_${t}`);
function canRead(cl, t) {
  if (isAdminOf(cl, t)) return true;
  return (cl.roles.includes('ROLE_RDM') || cl.roles.includes('ROLE_RDM_EDIT')) && cl.tenants.includes(t);
}
function canEdit(cl, t) {
  if (isAdminOf(cl, t)) return true;
  return cl.roles.includes('ROLE_RDM_EDIT') && cl.tenants.includes(t);
}
function denied(res, t) {
  return send(res, 403, { errorCode: 403, errorMessage: `Access denied to tenant ${t}` });
}

// ---------------------------------------------------------------- seed data
function rng(seed) {
  let a = seed >>> 0;
  return () => { a = (a + 0x6D2B79F5) >>> 0; let t = a; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
}
const BASE_TS = 1735689600000; // 2025-01-01
const data = {}; // tenant -> {lookups: [], stats: [], blocked: {typeName: []}}

function mkLookup(tenant, typeName, code, i, r, extra = {}) {
  const lk = {
    tenantId: tenant, updatedBy: i % 3 ? 'loader@northwind.example' : 'steward@northwind.example',
    updateDate: BASE_TS + i * 3600000, version: 1 + (i % 4),
    type: `rdm/lookupTypes/${typeName}`, code, enabled: i % 11 !== 5,
    sourceMappings: [], localizations: [], parents: [], attributes: [],
    startDate: BASE_TS - 86400000 * (i % 30), endDate: BASE_TS + 86400000 * (3650 + i),
  };
  if (i % 2 === 0) {
    lk.sourceMappings.push({ source: 'Reltio', values: [{ code, value: `${code} value`, enabled: true, canonicalValue: true, downStreamDefaultValue: i % 4 === 0 }] });
  }
  if (i % 5 === 0) {
    lk.sourceMappings.push({ source: 'SAP', values: [{ code: code.toUpperCase(), value: `SAP ${code}`, enabled: r() > 0.2, canonicalValue: false, downStreamDefaultValue: false }] });
  }
  if (i % 3 === 0) lk.attributes.push({ name: 'rank', value: String(i % 17) });
  if (i % 7 === 0) lk.attributes.push({ name: 'region', value: ['EMEA', 'APAC', 'AMER'][i % 3] });
  return Object.assign(lk, extra);
}

function seed() {
  const r = rng(20260101);
  // acme
  const acme = { lookups: [], stats: [], blocked: {} };
  const types = { Country: 140, Currency: 50, Language: 40, StateProvince: 40 };
  const prefixes = { Country: ['US', 'usa', 'Ca', 'CAN', 'de', 'DEU', 'Fr'], Currency: ['USD', 'eur', 'Gbp', 'JP'], Language: ['en', 'EN', 'Fr', 'esp'], StateProvince: ['ST', 'st', 'Prov'] };
  let i = 0;
  const countryCodes = [];
  for (const [tn, n] of Object.entries(types)) {
    const used = new Set();
    for (let k = 0; k < n; k++) {
      const pfx = prefixes[tn][k % prefixes[tn].length];
      let code = `${pfx}${k}`;
      if (used.has(code.toLowerCase())) code = `${pfx}x${k}`;
      used.add(code.toLowerCase());
      const extra = {};
      if (tn === 'StateProvince') extra.parents = [`rdm/lookupTypes/Country/${countryCodes[k % countryCodes.length]}`];
      const lk = mkLookup('acme', tn, code, i++, r, extra);
      if (tn === 'Country') countryCodes.push(code);
      acme.lookups.push(lk);
    }
  }
  const statuses = ['LOOKUP_CREATED', 'MISSPELLED', 'AUTOMAPPED', 'MANUALLY_MAPPED', 'TRACKING'];
  const tnames = Object.keys(types);
  for (let k = 0; k < 280; k++) {
    const tn = tnames[k % 4 === 3 ? (k % 3) + 1 : 0];
    const status = statuses[k % statuses.length];
    const rec = {
      tenantId: 'acme', lookupType: tn, source: ['SAP', 'Salesforce', 'Oracle'][k % 3],
      unmappedValue: `raw-${tn.slice(0, 3).toLowerCase()}-${String(k).padStart(3, '0')}`,
      semanticScore: Math.round(r() * 1000) / 1000, centroidMatch: k % 2 === 0,
      currentFrequency: 1 + (k * 7) % 50, requiredFrequency: 5, frequencyAtMapping: 1 + (k * 3) % 20,
      frequencyWindowHours: 24, status, createdAt: BASE_TS + k * 60000,
      sourceFrequency: { totalCount: 3 + k % 40, hourlyFrequency: { [String(BASE_TS + (k % 24) * 3600000)]: 1 + k % 5 } },
      updateDate: BASE_TS + k * 60000 + 5000, aiConfidence: Math.round(r() * 100) / 100,
      aiReasoning: `Closest candidate by semantic similarity (${k})`, configVersion: 1 + (k % 3),
    };
    if (k % 3 !== 1) { rec.candidateLookupCode = `cand${k}`; rec.candidateValue = `Candidate ${k}`; }
    if (status === 'AUTOMAPPED' || status === 'MANUALLY_MAPPED' || status === 'LOOKUP_CREATED') {
      rec.mappedAt = BASE_TS + k * 60000 + 30000;
      rec.mappedBy = status === 'AUTOMAPPED' ? 'SYSTEM' : 'steward@northwind.example';
    }
    if (k % 7 === 2) rec.dcrId = `dcr-${1000 + k}`;
    acme.stats.push(rec);
  }
  const mkBlocked = (tenant, tn, n, off) => Array.from({ length: n }, (_, k) => ({
    tenantId: tenant, lookupType: `rdm/lookupTypes/${tn}`, value: `blocked-${tn.toLowerCase()}-${String(k).padStart(3, '0')}`,
    createdAt: BASE_TS + (off + k) * 1000, createdBy: k % 2 ? 'steward@northwind.example' : 'SYSTEM',
  }));
  acme.blocked = { Country: mkBlocked('acme', 'Country', 160, 0), Currency: mkBlocked('acme', 'Currency', 4, 500), Language: mkBlocked('acme', 'Language', 3, 600), StateProvince: mkBlocked('acme', 'StateProvince', 2, 700) };
  data.acme = acme;

  const gl = { lookups: [], stats: [], blocked: {} };
  let j = 0;
  for (const c of ['Red', 'GREEN', 'blue9', 'Cyan', 'magenta2', 'YEL']) gl.lookups.push(mkLookup('globex', 'Color', c, j++, r));
  for (const c of ['S1', 'M2', 'L3', 'xl4']) gl.lookups.push(mkLookup('globex', 'Size', c, j++, r));
  for (let k = 0; k < 12; k++) {
    gl.stats.push({
      tenantId: 'globex', lookupType: k % 2 ? 'Color' : 'Size', source: 'Legacy', unmappedValue: `gx-${k}`,
      semanticScore: 0.5, centroidMatch: false, currentFrequency: 2, requiredFrequency: 5, frequencyAtMapping: 1,
      frequencyWindowHours: 24, status: statuses[k % 4], createdAt: BASE_TS + k, sourceFrequency: { totalCount: 2, hourlyFrequency: {} },
      updateDate: BASE_TS + k, aiConfidence: 0.4, aiReasoning: 'globex sample', configVersion: 1,
    });
  }
  gl.blocked = { Color: mkBlocked('globex', 'Color', 3, 0) };
  data.globex = gl;

  const lg = { lookups: [], stats: [], blocked: {} };
  for (const c of ['OLD1', 'old2', 'Old3', 'OLD4']) lg.lookups.push(mkLookup('legacy', 'Legacy', c, j++, r));
  data.legacy = lg;
}
seed();

// ---------------------------------------------------------------- filter / sort
function tokenizeFilter(s) {
  const out = []; let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (/\s/.test(c)) { i++; continue; }
    if (c === '(' || c === ')' || c === ',') { out.push({ t: c }); i++; continue; }
    if (c === "'" || c === '"') {
      let j = i + 1, v = '';
      while (j < s.length && s[j] !== c) { if (s[j] === '\\' && j + 1 < s.length) j++; v += s[j]; j++; }
      if (j >= s.length) throw new Error('unterminated string');
      out.push({ t: 'str', v }); i = j + 1; continue;
    }
    let j = i;
    while (j < s.length && !/[\s(),'"]/.test(s[j])) j++;
    out.push({ t: 'word', v: s.slice(i, j) }); i = j;
  }
  return out;
}

// Grammar: or := and ('or' and)* ; and := prim ('and' prim)* ; prim := fn '(' field [',' value] ')' | 'not' prim | '(' or ')'
function parseFilter(src, fields) {
  const toks = tokenizeFilter(src); let p = 0;
  const peek = () => toks[p]; const next = () => toks[p++];
  const expect = t => { const x = next(); if (!x || x.t !== t) throw new Error(`expected ${t}`); return x; };
  function orE() { let l = andE(); while (peek() && peek().t === 'word' && peek().v.toLowerCase() === 'or') { next(); const r = andE(); const a = l; l = o => a(o) || r(o); } return l; }
  function andE() { let l = prim(); while (peek() && peek().t === 'word' && peek().v.toLowerCase() === 'and') { next(); const r = prim(); const a = l; l = o => a(o) && r(o); } return l; }
  function prim() {
    const x = next();
    if (!x) throw new Error('unexpected end');
    if (x.t === '(') { const e = orE(); expect(')'); return e; }
    if (x.t !== 'word') throw new Error('function expected');
    const fn = x.v.toLowerCase();
    if (fn === 'not') { const e = prim(); return o => !e(o); }
    expect('(');
    const f = next(); if (!f || f.t !== 'word') throw new Error('field expected');
    const field = f.v;
    if (!fields[field]) throw new Error(`unknown field ${field}`);
    const get = fields[field];
    let val = null;
    if (peek() && peek().t === ',') { next(); const v = next(); if (!v || (v.t !== 'str' && v.t !== 'word')) throw new Error('value expected'); val = v.v; }
    expect(')');
    const sv = o => { const g = get(o); return g === undefined || g === null ? undefined : g; };
    const lc = v => String(v).toLowerCase();
    const num = v => Number(v);
    switch (fn) {
      case 'equals': if (val === null) throw new Error('value expected'); return o => { const g = sv(o); if (g === undefined) return false; return (Array.isArray(g) ? g : [g]).some(e => lc(e) === lc(val)); };
      case 'startswith': if (val === null) throw new Error('value expected'); return o => { const g = sv(o); return g !== undefined && (Array.isArray(g) ? g : [g]).some(e => lc(e).startsWith(lc(val))); };
      case 'contains': case 'fulltext': if (val === null) throw new Error('value expected'); return o => { const g = sv(o); return g !== undefined && (Array.isArray(g) ? g : [g]).some(e => lc(e).includes(lc(val))); };
      case 'missing': return o => sv(o) === undefined;
      case 'exists': return o => sv(o) !== undefined;
      case 'lt': return o => sv(o) !== undefined && num(sv(o)) < num(val);
      case 'lte': return o => sv(o) !== undefined && num(sv(o)) <= num(val);
      case 'gt': return o => sv(o) !== undefined && num(sv(o)) > num(val);
      case 'gte': return o => sv(o) !== undefined && num(sv(o)) >= num(val);
      default: throw new Error(`unknown function ${x.v}`);
    }
  }
  const e = orE();
  if (p !== toks.length) throw new Error('trailing input');
  return e;
}

const LOOKUP_FIELDS = {
  type: o => [o.type, o.type.replace(/^rdm\/lookupTypes\//, '')], code: o => o.code, enabled: o => o.enabled,
  updatedBy: o => o.updatedBy, version: o => o.version, updateDate: o => o.updateDate, tenantId: o => o.tenantId,
  startDate: o => o.startDate, endDate: o => o.endDate,
  parents: o => (o.parents && o.parents.length ? o.parents : undefined),
};
const STAT_FIELDS = {};
for (const f of ['tenantId', 'lookupType', 'source', 'unmappedValue', 'candidateLookupCode', 'candidateValue', 'semanticScore', 'centroidMatch', 'currentFrequency', 'requiredFrequency', 'frequencyAtMapping', 'frequencyWindowHours', 'status', 'mappedAt', 'mappedBy', 'createdAt', 'updateDate', 'aiConfidence', 'dcrId', 'configVersion']) STAT_FIELDS[f] = o => o[f];
const LOOKUP_SORT = ['code', 'type', 'updateDate', 'version', 'enabled', 'startDate', 'endDate', 'updatedBy'];
const STAT_SORT = ['createdAt', 'updateDate', 'semanticScore', 'aiConfidence', 'currentFrequency', 'unmappedValue', 'status', 'lookupType', 'source', 'mappedAt', 'candidateLookupCode', 'configVersion'];

function cmp(a, b) {
  const ua = a === undefined || a === null, ub = b === undefined || b === null;
  if (ua || ub) return ua === ub ? 0 : (ua ? 1 : -1);
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return (a ? 1 : 0) - (b ? 1 : 0);
  const x = String(a), y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

class BadRequest extends Error {}

function parseQuery(url, opts) {
  const q = url.searchParams;
  const out = { limit: opts.defLimit, filter: null, sort: null, order: 'asc' };
  if (q.has('limit')) {
    const s = q.get('limit');
    if (!/^\d+$/.test(s) || parseInt(s, 10) < 1) throw new BadRequest(`Invalid limit: ${s}`);
    let n = parseInt(s, 10);
    if (n > opts.maxLimit) {
      if (opts.ignoreMax) { /* fault */ } else if (CH.has('over-limit-clamp')) n = opts.maxLimit;
      else throw new BadRequest(`limit must not exceed ${opts.maxLimit}`);
    }
    out.limit = n;
  }
  if (q.has('filter') && q.get('filter').trim() !== '') {
    try { out.filter = parseFilter(q.get('filter'), opts.fields); } catch (e) { throw new BadRequest(`Invalid filter: ${e.message}`); }
  }
  if (q.has('sort') && q.get('sort') !== '') {
    const s = q.get('sort');
    if (!opts.sortFields.includes(s)) throw new BadRequest(`Unsupported sort field: ${s}`);
    out.sort = s;
  }
  if (q.has('order')) {
    const o = q.get('order').toLowerCase();
    if (o !== 'asc' && o !== 'desc') throw new BadRequest(`order must be asc or desc`);
    out.order = o;
  }
  return out;
}

function orderItems(items, qp, defaultSort) {
  const key = qp.sort || defaultSort;
  const idx = items.map((o, i) => [o, i]);
  idx.sort((a, b) => {
    let c = cmp(a[0][key], b[0][key]);
    if (qp.order === 'desc') c = -c;
    return c || (a[1] - b[1]);
  });
  return idx.map(x => x[0]);
}

// ---------------------------------------------------------------- scrolls
const scrolls = new Map(); // id -> {tenant, kind, items, pos, limit, touched}
let sharedPos = null; // fault scroll-shared-cursor
const SCROLL_TTL = 10 * 60 * 1000;

function readScrollId(raw) {
  const text = raw.toString('utf8').trim();
  if (text === '' || text === 'null') return null;
  let parsed;
  try { parsed = JSON.parse(text); } catch { parsed = undefined; }
  if (CH.has('scroll-raw-only')) {
    if (typeof parsed === 'string') return parsed;
    if (parsed !== undefined && typeof parsed === 'object') throw new BadRequest('Request body must be the scroll id');
    return text;
  }
  if (typeof parsed === 'string') return parsed;
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    if (parsed.scrollId === null || parsed.scrollId === undefined) return null;
    if (typeof parsed.scrollId !== 'string') throw new BadRequest('scrollId must be a string');
    return parsed.scrollId;
  }
  if (parsed !== undefined) throw new BadRequest('Invalid scroll request body');
  return text;
}

function scanPage(res, tenant, kind, raw, makeItems, pick) {
  let sid;
  try { sid = readScrollId(raw); } catch (e) { return send(res, 400, { errorCode: 400, errorMessage: e.message }); }
  let sc;
  if (sid === null) {
    let made;
    try { made = makeItems(); } catch (e) { if (e instanceof BadRequest) return send(res, 400, { errorCode: 400, errorMessage: e.message }); throw e; }
    sc = { id: crypto.randomBytes(16).toString('hex'), tenant, kind, items: made.items, pos: 0, limit: made.limit, order: made.order, base: made.base, touched: Date.now() };
    scrolls.set(sc.id, sc);
    if (fault('scroll-shared-cursor')) sharedPos = 0;
  } else {
    sc = scrolls.get(sid);
    if (!sc || sc.tenant !== tenant || sc.kind !== kind || Date.now() - sc.touched > SCROLL_TTL) {
      return send(res, 400, { errorCode: 400, errorMessage: `Unknown or expired scroll id` });
    }
    sc.touched = Date.now();
    if (fault('stats-desc-lost-on-continuation') && sc.order === 'desc' && sc.base && !sc.flipped) {
      // the continuation re-evaluates the query without the order
      const seen = new Set(sc.items.slice(0, sc.pos));
      sc.items = sc.items.slice(0, sc.pos).concat(sc.base.filter(o => !seen.has(o)));
      sc.flipped = true;
    }
  }
  let pos = fault('scroll-shared-cursor') && sharedPos !== null ? sharedPos : sc.pos;
  if (fault('lookup-scan-skips-boundary') && sid !== null && kind === 'lookups') pos += 1;
  const page = sc.items.slice(pos, pos + sc.limit).map(pick);
  const newPos = pos + page.length;
  sc.pos = newPos;
  if (fault('scroll-shared-cursor')) sharedPos = newPos;
  const body = { values: page };
  const exhausted = newPos >= sc.items.length;
  if (page.length === 0) {
    scrolls.delete(sc.id);
  } else if (exhausted && CH.has('end-on-last-page')) {
    scrolls.delete(sc.id);
  } else {
    body.scrollId = sc.id;
  }
  return send(res, 200, body);
}

// ---------------------------------------------------------------- handlers
function lookupScan(req, res, url, raw, tenant) {
  const cl = bearer(req, res); if (!cl) return;
  if (!canRead(cl, tenant) && !(fault('editor-other-tenant-lookups') && cl.roles.includes('ROLE_RDM_EDIT'))) return denied(res, tenant);
  const store = data[tenant];
  if (!store) return send(res, 404, { errorCode: 404, errorMessage: `Tenant ${tenant} not found` });
  return scanPage(res, tenant, 'lookups', raw, () => {
    const qp = parseQuery(url, { defLimit: 100, maxLimit: 1000, fields: LOOKUP_FIELDS, sortFields: LOOKUP_SORT });
    let items = store.lookups.slice();
    if (qp.filter) items = items.filter(qp.filter);
    if (qp.sort || qp.order === 'desc') items = orderItems(items, qp, 'code');
    return { items, limit: qp.limit };
  }, o => structuredClone(o));
}

function statsScan(req, res, url, raw, tenant, typeName) {
  const cl = bearer(req, res); if (!cl) return;
  if (!canRead(cl, tenant)) return denied(res, tenant);
  const store = data[tenant];
  if (!store) return send(res, 404, { errorCode: 404, errorMessage: `Tenant ${tenant} not found` });
  if (typeName !== null) typeName = typeName.replace(/^rdm\/lookupTypes\//, '');
  const kind = typeName === null ? 'stats' : `stats:${typeName}`;
  return scanPage(res, tenant, kind, raw, () => {
    const qp = parseQuery(url, { defLimit: fault('autopilot-default-limit-50') ? 50 : 100, maxLimit: 100, ignoreMax: fault('autopilot-limit-max-ignored'), fields: STAT_FIELDS, sortFields: STAT_SORT });
    let items = store.stats.slice();
    if (typeName !== null) items = items.filter(o => o.lookupType === typeName);
    if (qp.filter) items = items.filter(qp.filter);
    const base = items.slice();
    if (qp.sort || qp.order === 'desc') items = orderItems(items, qp, 'createdAt');
    const baseAsc = qp.sort ? orderItems(base, { sort: qp.sort, order: 'asc' }, 'createdAt') : base;
    return { items, limit: qp.limit, order: qp.order, base: baseAsc };
  }, o => {
    const c = structuredClone(o);
    if (typeName !== null) delete c.dcrId;
    return c;
  });
}

function blockedValues(req, res, url, tenant, typeName) {
  const cl = bearer(req, res); if (!cl) return;
  if (!canRead(cl, tenant)) return denied(res, tenant);
  const store = data[tenant];
  if (!store) return send(res, 404, { errorCode: 404, errorMessage: `Tenant ${tenant} not found` });
  const q = url.searchParams;
  let offset = 0, limit = 100;
  if (q.has('offset')) {
    if (!/^\d+$/.test(q.get('offset'))) return send(res, 400, { errorCode: 400, errorMessage: 'offset must be a non-negative integer' });
    offset = parseInt(q.get('offset'), 10);
  }
  if (q.has('limit')) {
    if (!/^\d+$/.test(q.get('limit')) || parseInt(q.get('limit'), 10) < 1) return send(res, 400, { errorCode: 400, errorMessage: 'limit must be a positive integer' });
    limit = parseInt(q.get('limit'), 10);
    if (limit > 100) {
      if (CH.has('over-limit-clamp')) limit = 100;
      else return send(res, 400, { errorCode: 400, errorMessage: 'limit must not exceed 100' });
    }
  }
  const list = store.blocked[typeName.replace(/^rdm\/lookupTypes\//, '')] || [];
  return send(res, 200, list.slice(offset, offset + limit));
}

function deleteTask(req, res, raw, tenant) {
  const cl = bearer(req, res); if (!cl) return;
  if (!canEdit(cl, tenant)) return denied(res, tenant);
  const store = data[tenant];
  if (!store) return send(res, 404, { errorCode: 404, errorMessage: `Tenant ${tenant} not found` });
  let body;
  try { body = JSON.parse(raw.toString('utf8')); } catch { return send(res, 400, { errorCode: 400, errorMessage: 'Task body must be JSON' }); }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return send(res, 400, { errorCode: 400, errorMessage: 'Task body must be an object' });
  if (body.type !== 'delete') return send(res, 400, { errorCode: 400, errorMessage: `Unsupported task type: ${body.type}` });
  const params = body.parameters;
  if (params !== undefined && params !== null && (typeof params !== 'object' || Array.isArray(params))) return send(res, 400, { errorCode: 400, errorMessage: 'parameters must be an object' });
  const p = params || {};
  let typeUri = null, uris = null;
  if (p.type !== undefined && p.type !== null) {
    if (typeof p.type !== 'string' || p.type === '') return send(res, 400, { errorCode: 400, errorMessage: 'parameters.type must be a lookup type URI' });
    typeUri = p.type.startsWith('rdm/lookupTypes/') ? p.type : `rdm/lookupTypes/${p.type}`;
  }
  if (p.uris !== undefined && p.uris !== null) {
    if (!Array.isArray(p.uris) || p.uris.some(u => typeof u !== 'string')) return send(res, 400, { errorCode: 400, errorMessage: 'parameters.uris must be an array of strings' });
    if (p.uris.length > 1000) return send(res, 400, { errorCode: 400, errorMessage: 'at most 1000 uris per task' });
    uris = new Set();
    for (const u of p.uris) {
      const parts = u.split('/');
      if (parts.length !== 3 || parts.some(x => x === '')) return send(res, 400, { errorCode: 400, errorMessage: `Malformed lookup URI: ${u}` });
      if (parts[0] !== tenant) return send(res, 400, { errorCode: 400, errorMessage: `Lookup URI ${u} is not in tenant ${tenant}` });
      uris.add(`rdm/lookupTypes/${parts[1]}\u0000${parts[2]}`);
    }
  }
  const before = store.lookups.length;
  let keep;
  if (uris !== null && typeUri !== null) keep = o => !(uris.has(`${o.type}\u0000${o.code}`) || o.type === typeUri);
  else if (uris !== null) keep = o => !uris.has(`${o.type}\u0000${o.code}`);
  else if (typeUri !== null && !fault('delete-type-deletes-all')) keep = o => o.type !== typeUri;
  else keep = () => false;
  store.lookups = store.lookups.filter(keep);
  const now = Date.now();
  return send(res, 200, {
    id: crypto.randomUUID(), type: 'delete', tenantId: tenant, createdBy: cl.clientId, createdTime: now,
    status: 'COMPLETED', parameters: p, deletedCount: before - store.lookups.length,
  });
}

function publicCustomer(c) {
  const o = structuredClone(c);
  return o;
}

function validateMultitoken(mt) {
  if (mt === undefined || mt === null) return null;
  if (typeof mt !== 'object' || Array.isArray(mt)) return 'multitokenConfig must be an object';
  const cc = mt.clientCredentialsMultiTokenConfig;
  if (cc === undefined || cc === null) return null;
  if (typeof cc !== 'object' || Array.isArray(cc)) return 'clientCredentialsMultiTokenConfig must be an object';
  const m = cc.maxActiveTokensAllowed;
  if (m === undefined || m === null) return null;
  if (!Number.isInteger(m) || m < 1) return 'maxActiveTokensAllowed must be a positive integer';
  if (m > 200) return 'maxActiveTokensAllowed must not exceed 200';
  return null;
}

function customerPut(req, res, raw, custId) {
  const cl = bearer(req, res); if (!cl) return;
  const cust = customers.get(custId);
  if (!cust) return send(res, 404, { errorCode: 404, errorMessage: `Customer ${custId} not found` });
  if (!cust.tenants.some(t => isAdminOf(cl, t))) return send(res, 403, { errorCode: 403, errorMessage: 'Access denied' });
  let body;
  try { body = JSON.parse(raw.toString('utf8')); } catch { return send(res, 400, { errorCode: 400, errorMessage: 'Invalid JSON' }); }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return send(res, 400, { errorCode: 400, errorMessage: 'Customer object expected' });
  if (body.id !== undefined && body.id !== custId) return send(res, 400, { errorCode: 400, errorMessage: 'id does not match the path' });
  const arrFields = ['tenants', 'externalProviderConfig', 'applicationClients', 'customerSpecificRoles'];
  for (const f of arrFields) if (body[f] !== undefined && !Array.isArray(body[f])) return send(res, 400, { errorCode: 400, errorMessage: `${f} must be an array` });
  if (body.tenants && body.tenants.some(t => typeof t !== 'string')) return send(res, 400, { errorCode: 400, errorMessage: 'tenants must be strings' });
  const verr = validateMultitoken(body.multitokenConfig);
  if (verr) return send(res, 400, { errorCode: 400, errorMessage: `Validation error: ${verr}` });
  const tenantsAfter = body.tenants || cust.tenants;
  if (body.multitokenConfig && !fault('rdbms-multitoken-accepted')) {
    const bad = tenantsAfter.filter(t => TENANT_MODE[t] === 'rdbms');
    if (bad.length) return send(res, 400, { errorCode: 400, errorMessage: `Validation error: multitokenConfig is supported only for tenants with Cassandra-based authorization; tenant ${bad.join(', ')} uses auth.migration.mode=rdbms` });
  }
  for (const f of arrFields.concat(['description', 'caseSensitiveLoginEnabled'])) if (body[f] !== undefined) cust[f] = structuredClone(body[f]);
  if (body.multitokenConfig) cust.multitokenConfig = structuredClone(body.multitokenConfig);
  else delete cust.multitokenConfig;
  return send(res, 200, publicCustomer(cust));
}

function clientsPut(req, res, raw, custId) {
  const cl = bearer(req, res); if (!cl) return;
  const cust = customers.get(custId);
  if (!cust) return send(res, 404, { errorCode: 404, errorMessage: `Customer ${custId} not found` });
  if (!cust.tenants.some(t => isAdminOf(cl, t))) return send(res, 403, { errorCode: 403, errorMessage: 'Access denied' });
  let body;
  try { body = JSON.parse(raw.toString('utf8')); } catch { return send(res, 400, { errorCode: 400, errorMessage: 'Invalid JSON' }); }
  if (!Array.isArray(body)) return send(res, 400, { errorCode: 400, errorMessage: 'Array of clients expected' });
  for (const c of body) {
    if (!c || typeof c !== 'object' || typeof c.clientId !== 'string') return send(res, 400, { errorCode: 400, errorMessage: 'Each client needs a clientId' });
    if (!(cust.applicationClients || []).includes(c.clientId) || !clients.has(c.clientId)) return send(res, 400, { errorCode: 400, errorMessage: `Client ${c.clientId} does not belong to customer ${custId}` });
    if (c.accessTokenValidity !== undefined && (!Number.isInteger(c.accessTokenValidity) || c.accessTokenValidity < 1)) return send(res, 400, { errorCode: 400, errorMessage: 'accessTokenValidity must be a positive integer' });
  }
  const out = [];
  for (const c of body) {
    const t = clients.get(c.clientId);
    if (c.accessTokenValidity !== undefined && c.accessTokenValidity !== t.accessTokenValidity) { t.accessTokenValidity = c.accessTokenValidity; t.validityGen++; }
    if (Number.isInteger(c.refreshTokenValidity)) t.refreshTokenValidity = c.refreshTokenValidity;
    const { roles, tenants, validityGen, clientSecret, ...pub } = t;
    out.push(pub);
  }
  return send(res, 200, out);
}

// ---------------------------------------------------------------- plumbing
function send(res, status, obj, headers = {}) {
  if (res.headersSent) return;
  const body = Buffer.from(JSON.stringify(obj));
  res.writeHead(status, { 'Content-Type': 'application/json;charset=UTF-8', 'Content-Length': body.length, ...headers });
  res.end(body);
}

const routes = [
  ['POST', /^\/oauth\/token$/, null],
  ['ANY', /^\/oauth\/customers\/([^/]+)\/clients$/, (q, s, u, b, m) => q.method === 'PUT' ? clientsPut(q, s, b, m[1]) : null],
  ['ANY', /^\/oauth\/customers\/([^/]+)$/, (q, s, u, b, m) => (q.method === 'PUT' || q.method === 'POST') ? customerPut(q, s, b, m[1]) : null],
  ['POST', /^\/lookups\/([^/]+)\/_scan$/, (q, s, u, b, m) => lookupScan(q, s, u, b, m[1])],
  ['POST', /^\/tasks\/([^/]+)$/, (q, s, u, b, m) => deleteTask(q, s, b, m[1])],
  ['POST', /^\/configuration\/([^/]+)\/autopilot\/stats\/_scan$/, (q, s, u, b, m) => statsScan(q, s, u, b, m[1], null)],
  ['POST', /^\/configuration\/([^/]+)\/autopilot\/stats\/([^/]+)\/_scan$/, (q, s, u, b, m) => statsScan(q, s, u, b, m[1], m[2])],
  ['GET', /^\/configuration\/([^/]+)\/autopilot\/([^/]+)\/blockedValues$/, (q, s, u, b, m) => blockedValues(q, s, u, m[1], m[2])],
  ['GET', /^\/healthcheck$/, (q, s) => { if (bearer(q, s)) send(s, 200, { status: 'OK' }); }],
  ['GET', /^\/status$/, (q, s) => { if (bearer(q, s)) send(s, 200, { status: 'OK' }); }],
  ['GET', /^\/version$/, (q, s) => { if (bearer(q, s)) send(s, 200, { 'rdm-service': '2026.1.4.0.17' }); }],
];

const server = http.createServer((req, res) => {
  const chunks = []; let size = 0; let aborted = false;
  req.on('data', c => { size += c.length; if (size > 4 * 1024 * 1024) { aborted = true; send(res, 413, { errorCode: 413, errorMessage: 'Body too large' }); req.destroy(); } else chunks.push(c); });
  req.on('error', () => {});
  req.on('end', () => {
    if (aborted) return;
    const raw = Buffer.concat(chunks);
    let url;
    try { url = new URL(req.url, 'http://localhost'); } catch { return send(res, 400, { errorCode: 400, errorMessage: 'Bad URL' }); }
    const path = url.pathname.replace(/\/+$/, '') || '/';
    try {
      if (path === '/oauth/token') return tokenEndpoint(req, res, url, raw);
      for (const [method, re, fn] of routes) {
        const m0 = re.exec(path);
        if (!m0 || !fn) continue;
        let m;
        try { m = m0.map((g, i) => (i === 0 || g === undefined ? g : decodeURIComponent(g))); } catch { return send(res, 400, { errorCode: 400, errorMessage: 'Bad path encoding' }); }
        if (method !== 'ANY' && method !== req.method) return send(res, 405, { errorCode: 405, errorMessage: `Method ${req.method} not allowed` }, { Allow: method });
        const r = fn(req, res, url, raw, m);
        if (r === null) return send(res, 405, { errorCode: 405, errorMessage: `Method ${req.method} not allowed` });
        return;
      }
      return send(res, 404, { errorCode: 404, errorMessage: `No endpoint ${req.method} ${path}` });
    } catch (e) {
      if (e instanceof BadRequest) return send(res, 400, { errorCode: 400, errorMessage: e.message });
      process.stderr.write(`error: ${e.stack}\n`);
      return send(res, 400, { errorCode: 400, errorMessage: 'Bad request' });
    }
  });
});
server.on('clientError', (err, sock) => { try { sock.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'); } catch {} });
server.listen(port, '127.0.0.1', () => { process.stdout.write(`listening ${server.address().port}\n`); });
setInterval(() => {
  const now = Date.now();
  for (const [id, s] of scrolls) if (now - s.touched > SCROLL_TTL) scrolls.delete(id);
}, 60000).unref();
