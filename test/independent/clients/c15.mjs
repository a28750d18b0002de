#!/usr/bin/env node
// Nightly lookup-data / autopilot sync client (Node.js 20, standard library only).
const CFG = {"tokenAuth": "basic-form", "scrollEncoding": "json", "firstBody": "none", "lookupLimit": 100, "statsLimit": 100, "blockedLimit": 100, "typePathAsUri": true};

const env = process.env;
const strip = (u) => (u || '').replace(/\/+$/, '');
const BASE = strip(env.LCKIT_BASE_URL);
const RDM = strip(env.LCKIT_RDM_URL);
const TOKEN_URL = env.LCKIT_TOKEN_URL || BASE + '/oauth/token';
const CID = env.LCKIT_CLIENT_ID || '';
const CSEC = env.LCKIT_CLIENT_SECRET || '';
const TENANT = env.LCKIT_TENANT || '';
const LTYPE = env.LCKIT_LOOKUP_TYPE || '';
const T0 = Date.now();
const BUDGET_MS = 50000;
const enc = encodeURIComponent;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
class Fail extends Error { constructor(m, status) { super(m); this.status = status; } }
const stats = { tokenRequests: 0, apiCalls: 0 };

function outOfTime() { return Date.now() - T0 > BUDGET_MS; }

// ---------------------------------------------------------------- tokens
let tok = null; // { value, exp, ttl }
let tokenShape = CFG.tokenAuth || 'basic-form';
async function fetchToken() {
  for (let attempt = 0; ; attempt++) {
    let url = TOKEN_URL;
    const headers = { Accept: 'application/json' };
    let body;
    const basic = 'Basic ' + Buffer.from(`${CID}:${CSEC}`).toString('base64');
    const gt = CFG.grantType || 'client_credentials';
    if (tokenShape === 'basic-query') {
      url += (url.includes('?') ? '&' : '?') + 'grant_type=' + enc(gt);
      headers.Authorization = basic;
    } else if (tokenShape === 'form-fields') {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams({ grant_type: gt, client_id: CID, client_secret: CSEC }).toString();
    } else {
      headers.Authorization = basic;
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams({ grant_type: gt }).toString();
    }
    stats.tokenRequests++;
    const r = await fetch(url, { method: 'POST', headers, body });
    const text = await r.text();
    if (r.ok) {
      let j;
      try { j = JSON.parse(text); } catch { throw new Fail('token response is not JSON'); }
      if (!j || typeof j.access_token !== 'string' || !j.access_token) throw new Fail('token response without access_token');
      const ei = Number(j.expires_in);
      const ttl = Number.isFinite(ei) && ei > 0 ? ei * 1000 : 3600 * 1000;
      return { value: j.access_token, exp: Date.now() + ttl, ttl };
    }
    if (r.status === 429 || r.status === 503) {
      // quota refusal or rate limit: keep using a still-valid token, else wait for a slot
      if (tok && tok.exp > Date.now() + 500) return tok;
      if (outOfTime()) throw new Fail(`token request refused (${r.status}) and out of time`);
      const ra = Number(r.headers.get('retry-after'));
      await sleep(Number.isFinite(ra) && ra > 0 ? Math.min(ra * 1000, 5000) : Math.min(500 * (attempt + 1), 3000));
      continue;
    }
    if (tokenShape !== 'basic-form' && [400, 401, 405, 415].includes(r.status)) {
      // this deployment may not take our request shape: fall back to Basic + form body (RFC 6749 4.4)
      console.error(`note: token request shape ${tokenShape} refused (${r.status}), using Basic + form body`);
      tokenShape = 'basic-form';
      continue;
    }
    throw new Fail(`token request failed: HTTP ${r.status} ${text.slice(0, 200)}`);
  }
}
async function accessToken(force) {
  if (CFG.tokenPerCall) { tok = await fetchToken(); return tok.value; }
  if (force) tok = null;
  const margin = tok ? Math.min(30000, tok.ttl * 0.2) : 0;
  if (!tok || Date.now() > tok.exp - margin) tok = await fetchToken();
  return tok.value;
}

// ---------------------------------------------------------------- HTTP
function parseBody(text) {
  if (!text || !text.trim()) return null;
  try { return JSON.parse(text); } catch { return text; }
}
async function api(method, url, opts = {}) {
  const auth = opts.auth !== false;
  let refreshed = false, throttled = 0;
  for (;;) {
    if (outOfTime()) throw new Fail('out of time');
    const headers = { Accept: 'application/json' };
    if (auth) {
      const t = await accessToken(refreshed);
      headers.Authorization = CFG.bearerPrefix === false ? t : 'Bearer ' + t;
    }
    if (opts.body !== undefined) headers['Content-Type'] = opts.contentType || 'application/json';
    stats.apiCalls++;
    const r = await fetch(url, { method, headers, body: opts.body });
    const text = await r.text();
    if (r.status === 401 && auth && !refreshed) { refreshed = true; continue; }
    if (r.status === 429 && throttled < 3) { throttled++; await sleep(1000); continue; }
    if (!r.ok) throw new Fail(`${method} ${url} -> HTTP ${r.status} ${text.slice(0, 200)}`, r.status);
    return parseBody(text);
  }
}

// ---------------------------------------------------------------- scans
function withQuery(url, params) {
  const q = Object.entries(params).filter(([, v]) => v !== undefined && v !== null).map(([k, v]) => `${k}=${enc(String(v))}`);
  return q.length ? url + (url.includes('?') ? '&' : '?') + q.join('&') : url;
}
let scrollEncoding = CFG.scrollEncoding;
let encodingSwitched = false;
class Scan {
  constructor(name, url) {
    Object.assign(this, { name, url, sid: null, firstSid: null, started: false, done: false, count: 0, pages: 0, items: [] });
  }
  async step() {
    if (this.done) return;
    let url = this.url;
    const opts = {};
    if (!this.started) {
      if (CFG.firstBody === 'null') { opts.body = 'null'; opts.contentType = 'application/json'; }
      else if (CFG.firstBody === 'empty-object') { opts.body = '{}'; opts.contentType = 'application/json'; }
    } else {
      const sid = CFG.reuseFirstScroll ? this.firstSid : this.sid;
      if (CFG.nextScrollInQuery) url = withQuery(url, { scrollId: sid });
      else if (scrollEncoding === 'raw') { opts.body = sid; opts.contentType = 'text/plain'; }
      else { opts.body = JSON.stringify({ scrollId: sid }); opts.contentType = 'application/json'; }
    }
    let res;
    try {
      res = await api(CFG.scanMethod || 'POST', url, opts);
    } catch (e) {
      // The body encoding of the scroll id is not specified: if the service rejects ours, switch once.
      if (!this.started || CFG.nextScrollInQuery || encodingSwitched || ![400, 415, 422].includes(e.status)) throw e;
      encodingSwitched = true;
      scrollEncoding = scrollEncoding === 'raw' ? 'json' : 'raw';
      console.error(`note: scroll id encoding switched to ${scrollEncoding}`);
      return this.step();
    }
    if (!res || typeof res !== 'object' || Array.isArray(res)) throw new Fail(`${this.name}: unexpected scan response`);
    const vals = Array.isArray(res.values) ? res.values : [];
    const sig = vals.length ? JSON.stringify(vals) : '';
    if (this.started && sig && sig === this.lastSig) {
      // the same page again: the service did not understand our continuation
      if (CFG.nextScrollInQuery || encodingSwitched) throw new Fail(`${this.name}: scan makes no progress`);
      encodingSwitched = true;
      scrollEncoding = scrollEncoding === 'raw' ? 'json' : 'raw';
      console.error(`note: no progress, scroll id encoding switched to ${scrollEncoding}`);
      return this.step();
    }
    this.lastSig = sig;
    this.started = true;
    this.pages++;
    this.count += vals.length;
    if (this.keep) this.items.push(...vals);
    const sid = res.scrollId === undefined || res.scrollId === null || res.scrollId === '' ? null : String(res.scrollId);
    if (this.firstSid === null) this.firstSid = sid;
    this.sid = sid;
    if (!sid || vals.length === 0) this.done = true;
    if (this.pages > 5000) throw new Fail(`${this.name}: too many pages`);
  }
  async all() { while (!this.done) await this.step(); return this; }
}

function lookupScan(name, typeFilter, keep) {
  const url = withQuery(`${RDM}/lookups/${enc(TENANT)}/_scan`, {
    filter: typeFilter ? `equals(type,'${LTYPE}')` : undefined,
    limit: CFG.lookupLimit,
    sort: CFG.lookupSort,
    order: CFG.lookupOrder,
  });
  const s = new Scan(name, url);
  s.keep = keep;
  return s;
}
function statsTypeSeg() {
  return CFG.typePathAsUri ? enc(`rdm/lookupTypes/${LTYPE}`) : enc(LTYPE);
}
function statsScan(name, byType) {
  const p = byType
    ? `${BASE}/configuration/${enc(TENANT)}/autopilot/stats/${statsTypeSeg()}/_scan`
    : `${BASE}/configuration/${enc(TENANT)}/autopilot/stats/_scan`;
  return new Scan(name, withQuery(p, { limit: CFG.statsLimit, sort: CFG.statsSort, order: CFG.statsOrder }));
}

async function blockedValues() {
  const url = `${BASE}/configuration/${enc(TENANT)}/autopilot/${statsTypeSeg()}/blockedValues`;
  let offset = 0, page = 0, total = 0;
  for (;;) {
    const q = { offset: CFG.blockedOffsetAsPage ? page : offset, limit: CFG.blockedLimit };
    const res = await api('GET', withQuery(url, q));
    const arr = Array.isArray(res) ? res : res && Array.isArray(res.values) ? res.values : null;
    if (!arr) throw new Fail('blockedValues: response is not an array');
    total += arr.length; offset += arr.length; page++;
    if (arr.length === 0) break;
    if (CFG.blockedLimit && arr.length < CFG.blockedLimit) break;
    if (page > 2000) throw new Fail('blockedValues: too many pages');
  }
  return total;
}

async function health() {
  const out = {};
  const auth = CFG.healthAuth !== false;
  for (const p of ['healthcheck', 'status']) {
    const r = await api('GET', `${RDM}/${p}`, { auth });
    const st = r && typeof r === 'object' ? r.status : r;
    out[p] = st;
    if (String(st).toUpperCase() !== 'OK') console.error(`warning: ${p} status is ${JSON.stringify(st)}`);
  }
  const v = await api('GET', `${RDM}/version`, { auth });
  if (v && typeof v === 'object') out.version = v['rdm-service'];
  else { const m = /"rdm-service"\s*:\s*"?([0-9][0-9.]*)/.exec(String(v)); out.version = m ? m[1] : undefined; }
  return out;
}

async function deleteTask(codes) {
  let body;
  if (CFG.del === 'uris') {
    const uris = codes.map((c) => (CFG.deleteUriShape === 'rdm' ? `rdm/lookupTypes/${LTYPE}/${c}` : `${TENANT}/${LTYPE}/${c}`));
    body = CFG.deleteOmitType ? { parameters: { uris } } : { type: 'delete', parameters: { uris } };
  } else {
    body = { type: 'delete', parameters: { type: CFG.deleteTypeAsName ? LTYPE : `rdm/lookupTypes/${LTYPE}` } };
  }
  const res = await api('POST', `${RDM}/tasks/${enc(TENANT)}`, { body: JSON.stringify(body) });
  return res;
}

// ---------------------------------------------------------------- main
async function main() {
  if (!BASE || !RDM || !TENANT || !LTYPE) throw new Fail('missing LCKIT_* environment');
  const summary = {};
  summary.health = await health();

  const typeScan = lookupScan('lookupsOfType', true, !!CFG.del);
  const allScan = lookupScan('lookupsOfTenant', false, false);
  const sAll = statsScan('statsAll', false);
  const sType = statsScan('statsOfType', true);
  const scans = [typeScan, allScan, sAll, sType];
  if (CFG.interleave) {
    while (scans.some((s) => !s.done)) for (const s of scans) await s.step();
  } else {
    for (const s of scans) await s.all();
  }
  for (const s of scans) summary[s.name] = s.count;
  summary.blockedValues = await blockedValues();

  if (CFG.del) {
    const codes = typeScan.items.map((l) => l && l.code).filter((c) => typeof c === 'string' && c).slice(0, CFG.delCount || 3);
    if (CFG.del === 'uris' && codes.length === 0) throw new Fail('nothing to delete');
    const task = await deleteTask(codes);
    summary.deleteTask = task && typeof task === 'object' ? (task.status || task.id || 'accepted') : 'accepted';
    const expected = CFG.del === 'uris' ? typeScan.count - codes.length : 0;
    let after;
    for (let i = 0; i < 10; i++) {
      after = (await lookupScan('after', true, false).all()).count;
      if (after <= expected || outOfTime()) break;
      await sleep(500);
    }
    summary.deleted = CFG.del === 'uris' ? codes.length : 'type';
    summary.lookupsOfTypeAfterDelete = after;
  }
  summary.tokenRequests = stats.tokenRequests;
  summary.apiCalls = stats.apiCalls;
  console.log(JSON.stringify(summary));
}

main().then(
  () => process.exit(0),
  (e) => { console.error(`error: ${e && e.message ? e.message : e}`); process.exit(1); },
);
