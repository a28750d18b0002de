// Self-test for both independent providers. Node 20, no dependencies.
// Usage: node selftest.mjs [node|python] [--only checkName]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import net from 'node:net';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CREDS = {};
for (const line of readFileSync(path.join(HERE, 'credentials.env'), 'utf8').split('\n')) {
  const m = /^export\s+(\w+)=(.*)$/.exec(line.trim());
  if (m) CREDS[m[1]] = m[2];
}
const ROLE = {
  admin: ['ACME_ADMIN_ID', 'ACME_ADMIN_SECRET'], editor: ['ACME_EDITOR_ID', 'ACME_EDITOR_SECRET'],
  viewer: ['ACME_VIEWER_ID', 'ACME_VIEWER_SECRET'], quota: ['ACME_QUOTA_ID', 'ACME_QUOTA_SECRET'],
  otherAdmin: ['GLOBEX_ADMIN_ID', 'GLOBEX_ADMIN_SECRET'], rdbmsAdmin: ['LEGACY_ADMIN_ID', 'LEGACY_ADMIN_SECRET'],
};
const cid = r => CREDS[ROLE[r][0]];
const csec = r => CREDS[ROLE[r][1]];
const IMPLS = {
  node: { cmd: process.execPath, args: [path.join(HERE, 'node/server.mjs')] },
  python: { cmd: '/usr/bin/python3', args: [path.join(HERE, 'python/server.py')] },
};
const FAULT_CHECK = {
  'token-expiry-ignored': 'expiry', 'quota-off-by-one': 'quota-limit', 'expired-still-counted': 'quota-expiry-release',
  'multitoken-off-new-token': 'token-reuse-off', 'validity-from-first-token': 'validity-start-at-issue',
  'scroll-shared-cursor': 'lookup-interleaved', 'lookup-scan-skips-boundary': 'lookup-full-scan',
  'autopilot-default-limit-50': 'stats-defaults', 'autopilot-limit-max-ignored': 'stats-defaults',
  'stats-desc-lost-on-continuation': 'stats-sort-desc', 'delete-type-deletes-all': 'delete-type',
  'rdbms-multitoken-accepted': 'rdbms-rule', 'editor-other-tenant-lookups': 'roles-tenants',
  'blocked-offset-ignored': 'blocked-offsets', 'blocked-default-limit-all': 'blocked-defaults',
  'blocked-offset-off-by-one': 'blocked-offsets', 'stats-type-scan-leaks-other-types': 'stats-type-scan',
  'stats-filter-dropped-on-continuation': 'stats-filter-continuation', 'stats-mappedat-iso': 'stats-full-scan',
  'quota-shared-across-clients': 'quota-per-client', 'quota-limit-over-200-accepted': 'quota-max-200',
  'validity-change-not-applied': 'expiry', 'multitoken-stays-on-after-disable': 'multitoken-disable',
  'version-key-renamed': 'service-endpoints', 'delete-uris-code-only-match': 'delete-uris',
  'cross-tenant-delete-task': 'roles-tenants', 'lookup-order-desc-ignored': 'lookup-filter-sort',
};
const faults = JSON.parse(readFileSync(path.join(HERE, 'faults.json'), 'utf8'));
const choices = JSON.parse(readFileSync(path.join(HERE, 'choices.json'), 'utf8'));

const sleep = ms => new Promise(r => setTimeout(r, ms));

function start(impl, env = {}) {
  return new Promise((resolve, reject) => {
    const p = spawn(IMPLS[impl].cmd, [...IMPLS[impl].args, '--port', '0'], { env: { ...process.env, FAULT: '', CHOICES: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    const timer = setTimeout(() => { p.kill(); reject(new Error(`start timeout: ${err}`)); }, 10000);
    p.stdout.on('data', d => {
      out += d;
      const m = /listening (\d+)/.exec(out);
      if (m) { clearTimeout(timer); resolve({ proc: p, base: `http://127.0.0.1:${m[1]}`, stderr: () => err }); }
    });
    p.stderr.on('data', d => { err += d; });
    p.on('exit', code => { clearTimeout(timer); reject(new Error(`exited ${code}: ${err}`)); });
  });
}
function stop(s) { return new Promise(r => { s.proc.removeAllListeners('exit'); s.proc.on('exit', () => r()); s.proc.kill('SIGTERM'); setTimeout(r, 2000); }); }

function runExit(impl, env) {
  return new Promise(resolve => {
    const p = spawn(IMPLS[impl].cmd, [...IMPLS[impl].args, '--port', '0'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    p.stderr.on('data', d => { err += d; });
    const t = setTimeout(() => p.kill(), 5000);
    p.on('exit', code => { clearTimeout(t); resolve({ code, err }); });
  });
}

// ---------------------------------------------------------------- HTTP helpers
async function http(base, method, p, { token, json, raw, headers = {} } = {}) {
  const h = { ...headers };
  if (token) h.Authorization = `Bearer ${token}`;
  let body;
  if (json !== undefined) { body = JSON.stringify(json); h['Content-Type'] = 'application/json'; }
  if (raw !== undefined) { body = raw; if (!h['Content-Type']) h['Content-Type'] = 'text/plain'; }
  const r = await fetch(base + p, { method, headers: h, body });
  const text = await r.text();
  let data; try { data = JSON.parse(text); } catch { data = undefined; }
  return { status: r.status, data, text, headers: r.headers };
}
function assert(c, msg) { if (!c) throw new Error(msg); }

async function tokenReq(base, role, mode = 'basic-query') {
  if (mode === 'basic-query') {
    return http(base, 'POST', '/oauth/token?grant_type=client_credentials', { headers: { Authorization: 'Basic ' + Buffer.from(`${cid(role)}:${csec(role)}`).toString('base64') } });
  }
  if (mode === 'basic-form') {
    return http(base, 'POST', '/oauth/token', { raw: 'grant_type=client_credentials', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: 'Basic ' + Buffer.from(`${cid(role)}:${csec(role)}`).toString('base64') } });
  }
  return http(base, 'POST', '/oauth/token', { raw: new URLSearchParams({ grant_type: 'client_credentials', client_id: cid(role), client_secret: csec(role) }).toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
}
async function tok(base, role) {
  const r = await tokenReq(base, role);
  assert(r.status === 200 && r.data && r.data.access_token, `token for ${role}: ${r.status} ${r.text}`);
  return r.data.access_token;
}
const isExpired = r => (r.status === 401 || r.status === 403) && /expir/i.test(r.text);
const isQuota = r => [429, 403, 400].includes(r.status) && /limit|exceed/i.test(r.text);

let bodyForm = 'object';
async function nextPage(base, p, token, sid) {
  let r = await http(base, 'POST', p, bodyForm === 'object' ? { token, json: { scrollId: sid } } : { token, raw: sid });
  if (r.status === 400) {
    bodyForm = bodyForm === 'object' ? 'raw' : 'object';
    r = await http(base, 'POST', p, bodyForm === 'object' ? { token, json: { scrollId: sid } } : { token, raw: sid });
  }
  return r;
}
// returns {values, pages}
async function scanAll(base, p, token, query = '', { pageCheck } = {}) {
  const url = p + (query ? `?${query}` : '');
  let r = await http(base, 'POST', url, { token });
  assert(r.status === 200, `scan ${url}: ${r.status} ${r.text.slice(0, 200)}`);
  const values = []; const pages = [];
  for (let i = 0; i < 2000; i++) {
    assert(r.data && Array.isArray(r.data.values), `scan page shape: ${r.text.slice(0, 200)}`);
    if (pageCheck) pageCheck(r.data, i);
    values.push(...r.data.values); pages.push(r.data.values.length);
    if (!r.data.scrollId || r.data.values.length === 0) return { values, pages };
    r = await nextPage(base, url, token, r.data.scrollId);
    assert(r.status === 200, `next page ${url}: ${r.status} ${r.text.slice(0, 200)}`);
  }
  throw new Error('scan did not end');
}
const LK = '/lookups/acme/_scan';
const ST = '/configuration/acme/autopilot/stats/_scan';
const STT = t => `/configuration/acme/autopilot/stats/${t}/_scan`;
const BV = t => `/configuration/acme/autopilot/${t}/blockedValues`;
const typeName = t => t.replace(/^rdm\/lookupTypes\//, '');
const lkey = o => `${o.type}|${o.code}`;
const skey = o => `${o.lookupType}|${o.source}|${o.unmappedValue}|${o.createdAt}`;

async function putCustomer(base, token, custId, body, method = 'PUT') {
  return http(base, method, `/oauth/customers/${custId}`, { token, json: { id: custId, ...body } });
}
async function acmeCust(mt) {
  const b = { tenants: ['acme'], applicationClients: [cid('admin'), cid('editor'), cid('viewer'), cid('quota')], externalProviderConfig: [], description: 'acme', caseSensitiveLoginEnabled: false, customerSpecificRoles: [] };
  if (mt !== undefined) b.multitokenConfig = { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: mt } };
  return b;
}
async function setValidity(base, adminTok, role, secs) {
  const r = await http(base, 'PUT', '/oauth/customers/cust-acme/clients', { token: adminTok, json: [{ clientId: cid(role), accessTokenValidity: secs }] });
  assert(r.status >= 200 && r.status < 300, `set validity: ${r.status} ${r.text}`);
}
async function biggestType(base, token) {
  const { values } = await scanAll(base, LK, token, 'limit=1000');
  const by = {};
  for (const v of values) by[typeName(v.type)] = (by[typeName(v.type)] || 0) + 1;
  const [name] = Object.entries(by).sort((a, b) => b[1] - a[1])[0];
  return { name, by, all: values };
}
function sortedBy(arr, f, desc) {
  for (let i = 1; i < arr.length; i++) {
    const a = f(arr[i - 1]), b = f(arr[i]);
    if (desc ? a < b : a > b) return false;
  }
  return true;
}

// ---------------------------------------------------------------- checks (each on a fresh server)
const CHECKS = {
  async 'token-basic'({ base }) {
    const r = await tokenReq(base, 'admin');
    assert(r.status === 200, `status ${r.status}`);
    assert(typeof r.data.access_token === 'string' && /^bearer$/i.test(r.data.token_type) && Number.isInteger(r.data.expires_in), `fields ${r.text}`);
    assert(r.data.expires_in > 3000 && r.data.expires_in <= 3600, `default validity ${r.data.expires_in}`);
    assert(/no-store/.test(r.headers.get('cache-control') || ''), 'Cache-Control no-store');
    const f = await tokenReq(base, 'viewer', 'form');
    assert(f.status === 200 && f.data.access_token, `form auth ${f.status}`);
    const bf = await tokenReq(base, 'editor', 'basic-form');
    assert(bf.status === 200 && bf.data.access_token, `basic+form body ${bf.status}`);
  },
  async 'token-errors'({ base }) {
    const basic = 'Basic ' + Buffer.from(`${cid('admin')}:${csec('admin')}`).toString('base64');
    let r = await http(base, 'POST', '/oauth/token', { raw: '', headers: { Authorization: basic, 'Content-Type': 'application/x-www-form-urlencoded' } });
    assert(r.status === 400 && r.data.error === 'invalid_request', `missing grant ${r.status} ${r.text}`);
    r = await http(base, 'POST', '/oauth/token?grant_type=password', { headers: { Authorization: basic } });
    assert(r.status === 400 && r.data.error === 'unsupported_grant_type', `bad grant ${r.status} ${r.text}`);
    r = await http(base, 'POST', '/oauth/token?grant_type=client_credentials', { headers: { Authorization: 'Basic ' + Buffer.from(`${cid('admin')}:wrong`).toString('base64') } });
    assert(r.status === 401 && r.data.error === 'invalid_client' && r.headers.get('www-authenticate'), `bad secret ${r.status} ${r.text}`);
    r = await http(base, 'GET', '/status', { token: 'not-a-token' });
    assert(r.status === 401, `bogus bearer ${r.status}`);
  },
  async 'token-reuse-off'({ base }) {
    const a = await tok(base, 'viewer'); const b = await tok(base, 'viewer');
    assert(a === b, 'multi-token off must return the same token again');
    const c = await tok(base, 'editor');
    assert(c !== a, 'different clients get different tokens');
  },
  async 'multitoken-disable'({ base }) {
    const adm = await tok(base, 'admin');
    let r = await putCustomer(base, adm, 'cust-acme', await acmeCust(5));
    assert(r.status < 300, `enable ${r.status} ${r.text}`);
    const a = await tok(base, 'viewer'); const b = await tok(base, 'viewer');
    assert(a !== b, 'multi-token on must issue new tokens');
    r = await putCustomer(base, adm, 'cust-acme', await acmeCust(undefined));
    assert(r.status < 300, `disable ${r.status}`);
    const c = await tok(base, 'viewer'); const d = await tok(base, 'viewer');
    assert(c === d, 'after disabling multi-token the same token must be returned again');
  },
  async 'quota-limit'({ base }) {
    const adm = await tok(base, 'admin');
    const r0 = await putCustomer(base, adm, 'cust-acme', await acmeCust(3), 'POST');
    assert(r0.status < 300, `enable ${r0.status} ${r0.text}`);
    const got = new Set();
    for (let i = 0; i < 3; i++) got.add(await tok(base, 'quota'));
    assert(got.size === 3, 'three distinct tokens');
    const r = await tokenReq(base, 'quota');
    assert(isQuota(r), `4th token must be declined with limit-exceeded, got ${r.status} ${r.text}`);
    for (const t of got) assert((await http(base, 'GET', '/status', { token: t })).status === 200, 'issued tokens stay usable');
  },
  async 'quota-per-client'({ base }) {
    const adm = await tok(base, 'admin');
    await putCustomer(base, adm, 'cust-acme', await acmeCust(2));
    await tok(base, 'viewer'); await tok(base, 'viewer');
    assert(isQuota(await tokenReq(base, 'viewer')), 'viewer at its limit');
    const r = await tokenReq(base, 'quota');
    assert(r.status === 200, `quota is per client: quota client must still get a token, got ${r.status} ${r.text}`);
  },
  async 'quota-expiry-release'({ base }) {
    const adm = await tok(base, 'admin');
    await setValidity(base, adm, 'quota', 2);
    await putCustomer(base, adm, 'cust-acme', await acmeCust(2));
    const t1 = await tok(base, 'quota'); await tok(base, 'quota');
    assert(isQuota(await tokenReq(base, 'quota')), 'third token declined');
    await sleep(2400);
    assert(isExpired(await http(base, 'GET', '/status', { token: t1 })), 'expired token answered with expired-token error');
    const r = await tokenReq(base, 'quota');
    assert(r.status === 200, `expired tokens no longer count toward the quota; got ${r.status} ${r.text}`);
  },
  async 'expiry'({ base }) {
    const adm = await tok(base, 'admin');
    await setValidity(base, adm, 'viewer', 2);
    const r = await tokenReq(base, 'viewer');
    assert(r.status === 200 && r.data.expires_in <= 2, `expires_in after validity change: ${r.text}`);
    assert((await http(base, 'GET', '/version', { token: r.data.access_token })).status === 200, 'fresh token works');
    await sleep(2500);
    const u = await http(base, 'POST', LK, { token: r.data.access_token });
    assert(isExpired(u), `expired token must get expired-token error, got ${u.status} ${u.text.slice(0, 100)}`);
    const n = await tokenReq(base, 'viewer');
    assert(n.status === 200 && n.data.access_token !== r.data.access_token, 'a new token after expiry');
  },
  async 'validity-start-at-issue'({ base }) {
    const adm = await tok(base, 'admin');
    await setValidity(base, adm, 'quota', 3);
    await putCustomer(base, adm, 'cust-acme', await acmeCust(5));
    const t1 = await tok(base, 'quota');
    await sleep(2000);
    const t2 = await tok(base, 'quota');
    await sleep(1500);
    assert(isExpired(await http(base, 'GET', '/status', { token: t1 })), 't1 expired');
    const r = await http(base, 'GET', '/status', { token: t2 });
    assert(r.status === 200, `t2 validity starts at its issue time: expected 200, got ${r.status}`);
  },
  async 'quota-max-200'({ base }) {
    const adm = await tok(base, 'admin');
    let r = await putCustomer(base, adm, 'cust-acme', await acmeCust(201));
    assert(r.status === 400, `maxActiveTokensAllowed 201 must be rejected, got ${r.status}`);
    r = await putCustomer(base, adm, 'cust-acme', await acmeCust(200));
    assert(r.status < 300, `200 accepted, got ${r.status}`);
  },
  async 'rdbms-rule'({ base }) {
    const lt = await tok(base, 'rdbmsAdmin');
    const b = { tenants: ['legacy'], applicationClients: [cid('rdbmsAdmin')] };
    let r = await putCustomer(base, lt, 'cust-legacy', { ...b, multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: 5 } } });
    assert(r.status === 400, `multitokenConfig on rdbms tenant must be a validation error, got ${r.status}`);
    r = await putCustomer(base, lt, 'cust-legacy', b);
    assert(r.status < 300, `plain customer update accepted, got ${r.status}`);
    const a = await tok(base, 'rdbmsAdmin'); const c = await tok(base, 'rdbmsAdmin');
    assert(a === c, 'legacy stays single-token');
  },
  async 'config-roles'({ base }) {
    const v = await tok(base, 'viewer');
    assert((await putCustomer(base, v, 'cust-acme', await acmeCust(5))).status === 403, 'viewer may not configure');
    const e = await tok(base, 'editor');
    assert((await http(base, 'PUT', '/oauth/customers/cust-acme/clients', { token: e, json: [{ clientId: cid('editor'), accessTokenValidity: 5 }] })).status === 403, 'editor may not configure clients');
    const adm = await tok(base, 'admin');
    assert((await putCustomer(base, adm, 'cust-globex', { tenants: ['globex'] })).status === 403, 'acme admin may not configure globex');
  },
  async 'service-endpoints'({ base }) {
    const t = await tok(base, 'viewer');
    for (const p of ['/healthcheck', '/status']) {
      const r = await http(base, 'GET', p, { token: t });
      assert(r.status === 200 && r.data.status === 'OK', `${p}: ${r.status} ${r.text}`);
      assert((await http(base, 'GET', p)).status === 401, `${p} without token must be refused`);
    }
    const r = await http(base, 'GET', '/version', { token: t });
    assert(r.status === 200 && /^\d+(\.\d+)+$/.test(String(r.data['rdm-service'])), `version: ${r.text}`);
  },
  async 'robustness'({ base }) {
    const t = await tok(base, 'admin');
    assert((await http(base, 'POST', '/tasks/acme', { token: t, raw: '{not json', headers: { 'Content-Type': 'application/json' } })).status === 400, 'garbage task body 400');
    assert((await http(base, 'POST', LK, { token: t, raw: 'no-such-scroll' })).status >= 400, 'unknown scroll id refused');
    assert((await http(base, 'POST', `${LK}?limit=abc`, { token: t })).status === 400, 'bad limit 400');
    assert((await http(base, 'POST', `${LK}?filter=${encodeURIComponent('equals(type')}`, { token: t })).status === 400, 'bad filter 400');
    assert((await http(base, 'POST', `${LK}?order=sideways`, { token: t })).status === 400, 'bad order 400');
    await new Promise(res => { const s = net.connect(new URL(base).port, '127.0.0.1', () => { s.write('GARBAGE \x00\x01\r\n\r\n'); }); s.on('data', () => {}); s.on('close', res); s.on('error', res); setTimeout(() => { s.destroy(); res(); }, 1500); });
    const par = await Promise.all(Array.from({ length: 8 }, () => http(base, 'GET', '/status', { token: t })));
    assert(par.every(r => r.status === 200), 'concurrent requests served');
  },
  async 'lookup-full-scan'({ base }) {
    const t = await tok(base, 'viewer');
    const big = await scanAll(base, LK, t, 'limit=1000');
    assert(big.values.length >= 260, `>=260 lookups, got ${big.values.length}`);
    const small = await scanAll(base, LK, t, 'limit=37', { pageCheck: (d, i) => assert(d.values.length <= 37, 'page size <= limit') });
    const keys = small.values.map(lkey);
    assert(new Set(keys).size === keys.length, 'no duplicates across pages');
    assert(keys.length === big.values.length, `small-page scan returns every lookup: ${keys.length} vs ${big.values.length}`);
    const first = small.values[0];
    for (const f of ['tenantId', 'updatedBy', 'updateDate', 'version', 'type', 'code', 'enabled', 'sourceMappings', 'localizations', 'parents', 'attributes', 'startDate', 'endDate']) assert(f in first, `lookup field ${f}`);
    assert(/^rdm\/lookupTypes\/[^/]+$/.test(first.type), 'type URI form');
    const dflt = await http(base, 'POST', LK, { token: t });
    assert(dflt.data.values.length === 100 || dflt.data.values.length === big.values.length, 'lookup default page');
  },
  async 'lookup-interleaved'({ base }) {
    const t = await tok(base, 'viewer');
    const { name } = await biggestType(base, t);
    const qa = 'limit=25&sort=code', qb = `limit=20&filter=${encodeURIComponent(`equals(type,'${name}')`)}`;
    const refA = (await scanAll(base, LK, t, qa)).values.map(lkey);
    const refB = (await scanAll(base, LK, t, qb)).values.map(lkey);
    let ra = await http(base, 'POST', `${LK}?${qa}`, { token: t });
    let rb = await http(base, 'POST', `${LK}?${qb}`, { token: t });
    const A = [...ra.data.values], B = [...rb.data.values];
    while ((ra && ra.data.scrollId && ra.data.values.length) || (rb && rb.data.scrollId && rb.data.values.length)) {
      if (ra && ra.data.scrollId && ra.data.values.length) { ra = await nextPage(base, `${LK}?${qa}`, t, ra.data.scrollId); assert(ra.status === 200, `A next ${ra.status}`); A.push(...ra.data.values); } else ra = null;
      if (rb && rb.data.scrollId && rb.data.values.length) { rb = await nextPage(base, `${LK}?${qb}`, t, rb.data.scrollId); assert(rb.status === 200, `B next ${rb.status}`); B.push(...rb.data.values); } else rb = null;
    }
    assert(JSON.stringify(A.map(lkey)) === JSON.stringify(refA), 'interleaved scroll A equals its own scan');
    assert(JSON.stringify(B.map(lkey)) === JSON.stringify(refB), 'interleaved scroll B equals its own scan');
  },
  async 'lookup-filter-sort'({ base }) {
    const t = await tok(base, 'viewer');
    const { name, by } = await biggestType(base, t);
    const f = encodeURIComponent(`equals(type,'${name}')`);
    const asc = (await scanAll(base, LK, t, `limit=30&filter=${f}&sort=code&order=asc`)).values;
    assert(asc.length === by[name] && asc.every(v => typeName(v.type) === name), `filter equals(type) ${asc.length} vs ${by[name]}`);
    assert(sortedBy(asc, v => v.code, false), 'ascending by code');
    const desc = (await scanAll(base, LK, t, `limit=30&filter=${f}&sort=code&order=desc`)).values;
    assert(desc.length === asc.length && sortedBy(desc, v => v.code, true), 'descending by code');
    assert(JSON.stringify(desc.map(v => v.code)) === JSON.stringify(asc.map(v => v.code).reverse()), 'desc is reverse of asc');
  },
  async 'stats-interleaved'({ base }) {
    const t = await tok(base, 'viewer');
    const all = (await scanAll(base, ST, t, 'limit=100')).values;
    const tn = all[0].lookupType;
    const pa = `${ST}?limit=40&sort=createdAt&order=desc`, pb = `${STT(tn)}?limit=15`;
    const refA = (await scanAll(base, pa.split('?')[0], t, pa.split('?')[1])).values.map(skey);
    const refB = (await scanAll(base, pb.split('?')[0], t, pb.split('?')[1])).values.map(skey);
    let ra = await http(base, 'POST', pa, { token: t });
    let rb = await http(base, 'POST', pb, { token: t });
    const A = [...ra.data.values], B = [...rb.data.values];
    for (let i = 0; i < 100 && (ra || rb); i++) {
      if (rb && rb.data.scrollId && rb.data.values.length) { rb = await nextPage(base, pb, t, rb.data.scrollId); assert(rb.status === 200, `B next ${rb.status}`); B.push(...rb.data.values); } else rb = null;
      if (ra && ra.data.scrollId && ra.data.values.length) { ra = await nextPage(base, pa, t, ra.data.scrollId); assert(ra.status === 200, `A next ${ra.status}`); A.push(...ra.data.values); } else ra = null;
    }
    assert(JSON.stringify(A.map(skey)) === JSON.stringify(refA), 'interleaved all-types scroll equals its own scan');
    assert(JSON.stringify(B.map(skey)) === JSON.stringify(refB), 'interleaved type scroll equals its own scan');
    assert(B.every(v => !('dcrId' in v)) || true, 'dcrId optional');
  },
  async 'filter-grammar'({ base }) {
    const t = await tok(base, 'viewer');
    const { all } = await biggestType(base, t);
    const probe = all[0];
    const pfx = probe.code.slice(0, 2);
    const expr = `equals(type,'${typeName(probe.type)}') and startsWith(code,'${pfx}')`;
    const r = await http(base, 'POST', `${LK}?limit=1000&filter=${encodeURIComponent(expr)}`, { token: t });
    if (r.status === 400) return; // grammar beyond equals not supported: legal
    assert(r.status === 200, `extended filter ${r.status}`);
    const want = all.filter(v => v.type === probe.type && v.code.toLowerCase().startsWith(pfx.toLowerCase()));
    const wantCs = all.filter(v => v.type === probe.type && v.code.startsWith(pfx));
    const got = r.data.values.map(lkey).sort();
    assert(JSON.stringify(got) === JSON.stringify(want.map(lkey).sort()) || JSON.stringify(got) === JSON.stringify(wantCs.map(lkey).sort()), 'and/startsWith result');
    const e = await http(base, 'POST', `${LK}?limit=1000&filter=${encodeURIComponent(`equals(code,'${probe.code}')`)}`, { token: t });
    assert(e.status === 200 && e.data.values.length >= 1 && e.data.values.every(v => v.code.toLowerCase() === probe.code.toLowerCase()), 'equals(code)');
  },
  async 'stats-defaults'({ base }) {
    const t = await tok(base, 'viewer');
    const r = await http(base, 'POST', ST, { token: t });
    assert(r.status === 200 && r.data.values.length === 100 && r.data.scrollId, `default page size 100, got ${r.data && r.data.values.length}`);
    const n = await http(base, 'POST', ST, { token: t, raw: 'null', headers: { 'Content-Type': 'application/json' } });
    assert(n.status === 200 && n.data.values.length === 100, 'null body = first request');
    const o = await http(base, 'POST', `${ST}?limit=150`, { token: t });
    assert(o.status === 400 || (o.status === 200 && o.data.values.length <= 100), `limit above 100 must not return more than 100: ${o.status} ${o.data && o.data.values && o.data.values.length}`);
  },
  async 'stats-full-scan'({ base }) {
    const t = await tok(base, 'viewer');
    const { values } = await scanAll(base, ST, t, 'limit=45');
    assert(values.length >= 260, `>=260 stats, got ${values.length}`);
    assert(new Set(values.map(skey)).size === values.length, 'no duplicates');
    const st = new Set(values.map(v => v.status));
    for (const s of ['LOOKUP_CREATED', 'MISSPELLED', 'AUTOMAPPED', 'MANUALLY_MAPPED']) assert(st.has(s), `status ${s} present`);
    for (const f of ['candidateLookupCode', 'candidateValue', 'mappedAt', 'mappedBy']) assert(values.some(v => !(f in v)), `${f} absent on some`);
    assert(values.some(v => typeof v.dcrId === 'string'), 'dcrId on some');
    const num = ['semanticScore', 'currentFrequency', 'requiredFrequency', 'frequencyAtMapping', 'frequencyWindowHours', 'createdAt', 'updateDate', 'aiConfidence', 'configVersion'];
    for (const v of values) {
      for (const f of num) assert(typeof v[f] === 'number', `${f} number`);
      for (const f of ['tenantId', 'lookupType', 'source', 'unmappedValue', 'status', 'aiReasoning']) assert(typeof v[f] === 'string', `${f} string`);
      assert(typeof v.centroidMatch === 'boolean', 'centroidMatch boolean');
      if ('mappedAt' in v) assert(typeof v.mappedAt === 'number', `mappedAt must be a number (epoch ms), got ${JSON.stringify(v.mappedAt)}`);
      for (const f of ['candidateLookupCode', 'candidateValue', 'mappedBy']) if (f in v) assert(typeof v[f] === 'string', `${f} string when present`);
      assert(v.sourceFrequency && typeof v.sourceFrequency.totalCount === 'number' && typeof v.sourceFrequency.hourlyFrequency === 'object', 'sourceFrequency');
    }
  },
  async 'stats-type-scan'({ base }) {
    const t = await tok(base, 'viewer');
    const all = (await scanAll(base, ST, t, 'limit=100')).values;
    const counts = {};
    for (const v of all) counts[v.lookupType] = (counts[v.lookupType] || 0) + 1;
    for (const [tn, n] of Object.entries(counts)) {
      const vals = (await scanAll(base, STT(tn), t, 'limit=33')).values;
      assert(vals.length === n, `type scan ${tn}: ${vals.length} vs ${n}`);
      assert(vals.every(v => v.lookupType === tn), `type scan ${tn} limited to the lookup type`);
    }
  },
  async 'stats-filter-continuation'({ base }) {
    const t = await tok(base, 'viewer');
    const all = (await scanAll(base, ST, t, 'limit=100')).values;
    const expect = all.filter(v => v.status === 'AUTOMAPPED').length;
    const got = (await scanAll(base, ST, t, `limit=20&filter=${encodeURIComponent("equals(status,'AUTOMAPPED')")}`)).values;
    assert(got.every(v => v.status === 'AUTOMAPPED'), 'every page honours the filter');
    assert(got.length === expect, `filtered count ${got.length} vs ${expect}`);
  },
  async 'stats-sort-desc'({ base }) {
    const t = await tok(base, 'viewer');
    const got = (await scanAll(base, ST, t, 'limit=30&sort=createdAt&order=desc')).values;
    assert(got.length >= 260, 'all records');
    assert(sortedBy(got, v => v.createdAt, true), 'createdAt non-increasing across all pages');
    const asc = (await scanAll(base, ST, t, 'limit=30&sort=createdAt&order=asc')).values;
    assert(sortedBy(asc, v => v.createdAt, false), 'createdAt non-decreasing');
  },
  async 'blocked-defaults'({ base }) {
    const t = await tok(base, 'viewer');
    const { name } = await biggestType(base, t);
    const r = await http(base, 'GET', BV(name), { token: t });
    assert(r.status === 200 && Array.isArray(r.data) && r.data.length === 100, `default limit 100, got ${r.data && r.data.length}`);
    for (const f of ['tenantId', 'lookupType', 'value', 'createdAt', 'createdBy']) assert(f in r.data[0], `blocked field ${f}`);
    const o = await http(base, 'GET', `${BV(name)}?limit=101`, { token: t });
    assert(o.status === 400 || (o.status === 200 && o.data.length === 100), `limit 101: ${o.status}`);
  },
  async 'blocked-offsets'({ base }) {
    const t = await tok(base, 'viewer');
    const { name } = await biggestType(base, t);
    const p0 = (await http(base, 'GET', `${BV(name)}?offset=0&limit=100`, { token: t })).data;
    const p1 = (await http(base, 'GET', `${BV(name)}?offset=100&limit=100`, { token: t })).data;
    assert(p1.length >= 50, `>=150 blocked values for ${name}`);
    const vals = [...p0, ...p1].map(v => v.value);
    assert(new Set(vals).size === vals.length, 'offset pages do not overlap');
    const mid = (await http(base, 'GET', `${BV(name)}?offset=10&limit=5`, { token: t })).data;
    assert(JSON.stringify(mid.map(v => v.value)) === JSON.stringify(p0.slice(10, 15).map(v => v.value)), 'offset 10 limit 5 equals items 10..14');
    const dflt = (await http(base, 'GET', `${BV(name)}?limit=5`, { token: t })).data;
    assert(JSON.stringify(dflt) === JSON.stringify(p0.slice(0, 5)), 'offset default 0');
    const beyond = await http(base, 'GET', `${BV(name)}?offset=100000`, { token: t });
    assert(beyond.status === 200 && beyond.data.length === 0, 'offset beyond the end');
  },
  async 'roles-tenants'({ base }) {
    for (const role of ['admin', 'editor', 'viewer', 'quota']) {
      const t = await tok(base, role);
      assert((await http(base, 'POST', '/lookups/acme/_scan?limit=5', { token: t })).status === 200, `${role} reads acme`);
      assert((await http(base, 'POST', '/configuration/acme/autopilot/stats/_scan?limit=5', { token: t })).status === 200, `${role} reads acme stats`);
      assert((await http(base, 'POST', '/lookups/globex/_scan', { token: t })).status === 403, `${role} must not read globex lookups`);
      assert((await http(base, 'POST', '/configuration/globex/autopilot/stats/_scan', { token: t })).status === 403, `${role} must not read globex stats`);
      const tk = await http(base, 'POST', '/tasks/globex', { token: t, json: { type: 'delete' } });
      assert(tk.status === 403, `${role} must not run a globex task, got ${tk.status}`);
    }
    const g = await tok(base, 'otherAdmin');
    const gv = await scanAll(base, '/lookups/globex/_scan', g);
    assert(gv.values.length > 0 && gv.values.every(v => v.tenantId === 'globex'), 'globex admin reads globex');
    const v = await tok(base, 'viewer');
    assert((await http(base, 'POST', '/tasks/acme', { token: v, json: { type: 'delete' } })).status === 403, 'viewer may not delete');
    assert((await http(base, 'POST', '/lookups/acme/_scan', { token: g })).status === 403, 'globex admin no access to acme');
  },
  async 'delete-uris'({ base }) {
    const e = await tok(base, 'editor');
    const before = (await scanAll(base, LK, e, 'limit=1000')).values;
    const byCode = {};
    for (const v of before) (byCode[v.code] = byCode[v.code] || []).push(v);
    const shared = Object.values(byCode).find(l => l.length > 1);
    assert(shared, 'seed has a code shared by two lookup types');
    const victims = [shared[0], before.find(v => v.code !== shared[0].code)];
    const uris = victims.map(v => `acme/${typeName(v.type)}/${v.code}`);
    const r = await http(base, 'POST', '/tasks/acme', { token: e, json: { type: 'delete', parameters: { uris } } });
    assert(r.status >= 200 && r.status < 300, `task ${r.status} ${r.text}`);
    const after = (await scanAll(base, LK, e, 'limit=1000')).values;
    const ak = new Set(after.map(lkey));
    assert(victims.every(v => !ak.has(lkey(v))), 'listed lookups removed');
    assert(after.length === before.length - 2, `only the listed lookups removed: ${before.length} -> ${after.length}`);
  },
  async 'delete-type'({ base }) {
    const a = await tok(base, 'admin');
    const before = (await scanAll(base, LK, a, 'limit=1000')).values;
    const types = [...new Set(before.map(v => v.type))];
    const victim = types[types.length - 1];
    const r = await http(base, 'POST', '/tasks/acme', { token: a, json: { type: 'delete', parameters: { type: victim } } });
    assert(r.status >= 200 && r.status < 300, `task ${r.status}`);
    const after = (await scanAll(base, LK, a, 'limit=1000')).values;
    assert(after.every(v => v.type !== victim), 'type removed');
    assert(after.length === before.filter(v => v.type !== victim).length, `other types intact: ${after.length}`);
  },
  async 'delete-all'({ base }) {
    const e = await tok(base, 'editor');
    const r = await http(base, 'POST', '/tasks/acme', { token: e, json: { type: 'delete' } });
    assert(r.status >= 200 && r.status < 300, `task ${r.status}`);
    const after = (await scanAll(base, LK, e, 'limit=100')).values;
    assert(after.length === 0, `all lookups removed, ${after.length} left`);
    const g = await tok(base, 'otherAdmin');
    assert((await scanAll(base, '/lookups/globex/_scan', g)).values.length > 0, 'other tenant untouched');
    assert((await http(base, 'POST', '/tasks/acme', { token: e, json: { type: 'purge' } })).status === 400, 'unknown task type 400');
  },
};

// ---------------------------------------------------------------- runner
let passed = 0, failed = 0;
function report(ok, label, msg = '') {
  if (ok) passed++; else failed++;
  console.log(`${ok ? 'PASS' : 'FAIL'} ${label}${msg ? ' :: ' + msg : ''}`);
}
async function runCheck(impl, env, name) {
  const s = await start(impl, env);
  bodyForm = 'object';
  try { await CHECKS[name]({ base: s.base }); return null; } catch (e) { return e.message || String(e); } finally { await stop(s); }
}

const argv = process.argv.slice(2);
const onlyImpl = argv.find(a => a === 'node' || a === 'python');
const onlyIdx = argv.indexOf('--only');
const only = onlyIdx >= 0 ? argv[onlyIdx + 1] : null;
const names = Object.keys(CHECKS).filter(n => !only || n === only);

if (argv.includes('--collateral')) {
  // informational: which checks each fault breaks (each fault should break only checks of its own rule)
  for (const f of faults.filter(x => !onlyImpl || x.implementation === onlyImpl)) {
    const broken = [];
    for (const name of names) if (await runCheck(f.implementation, { FAULT: f.name }, name)) broken.push(name);
    console.log(`${f.implementation}/${f.name}: breaks ${broken.join(', ') || 'nothing'}`);
  }
  process.exit(0);
}

for (const impl of ['node', 'python'].filter(i => !onlyImpl || i === onlyImpl)) {
  // unknown switches
  const uf = await runExit(impl, { FAULT: 'no-such-fault' });
  report(uf.code === 2 && faults.filter(f => f.implementation === impl).every(f => uf.err.includes(f.name)), `${impl} unknown FAULT exits 2 listing faults`);
  const uc = await runExit(impl, { CHOICES: 'no-such-choice' });
  report(uc.code === 2 && choices.filter(c => c.implementation === impl).every(c => uc.err.includes(c.name)), `${impl} unknown CHOICES exits 2 listing choices`);
  const variants = [null, ...choices.filter(c => c.implementation === impl).map(c => c.name)];
  for (const v of variants) {
    for (const name of names) {
      const err = await runCheck(impl, v ? { CHOICES: v } : {}, name);
      report(!err, `${impl}/${v || 'correct'} ${name}`, err || '');
    }
  }
  for (const f of faults.filter(x => x.implementation === impl)) {
    if (only && FAULT_CHECK[f.name] !== only) continue;
    const err = await runCheck(impl, { FAULT: f.name }, FAULT_CHECK[f.name]);
    report(!!err, `${impl}/FAULT=${f.name} shown by ${FAULT_CHECK[f.name]}`, err ? `shown: ${err}` : 'fault NOT shown');
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
