// Self-test of the Kestrel provider (server.py), written from the interface document alone. Node 20, no dependencies.
// Usage: node selftest.mjs [--only checkName] [--faults (faults only)] [--collateral]
// Starts the correct server and every choice (fresh process per check) and asserts the rules as this vendor reads
// them; then starts every fault and asserts that the check of its rule fails.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CREDS = {};
for (const line of readFileSync(path.join(HERE, 'credentials.env'), 'utf8').split('\n')) {
  const m = /^export\s+(\w+)=(.*)$/.exec(line.trim());
  if (m) CREDS[m[1]] = m[2];
}
const ROLE = {
  admin: 'ACME_ADMIN', editor: 'ACME_EDITOR', viewer: 'ACME_VIEWER', quota: 'ACME_QUOTA',
  otherAdmin: 'GLOBEX_ADMIN', rdbmsAdmin: 'LEGACY_ADMIN',
};
const cid = r => CREDS[`${ROLE[r]}_ID`];
const csec = r => CREDS[`${ROLE[r]}_SECRET`];
const faults = JSON.parse(readFileSync(path.join(HERE, 'faults.json'), 'utf8'));
const choices = JSON.parse(readFileSync(path.join(HERE, 'choices.json'), 'utf8'));
const sleep = ms => new Promise(r => setTimeout(r, ms));

// ---------------------------------------------------------------- process control
function start(env = {}) {
  return new Promise((resolve, reject) => {
    const p = spawn('/usr/bin/python3', [path.join(HERE, 'server.py'), '--port', '0'], { env: { ...process.env, FAULT: '', CHOICES: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    const timer = setTimeout(() => { p.kill(); reject(new Error(`start timeout: ${err}`)); }, 10000);
    p.stdout.on('data', d => {
      out += d;
      const m = /listening (\d+)/.exec(out);
      if (m) { clearTimeout(timer); resolve({ proc: p, base: `http://127.0.0.1:${m[1]}` }); }
    });
    p.stderr.on('data', d => { err += d; });
    p.on('exit', code => { clearTimeout(timer); reject(new Error(`exited ${code}: ${err}`)); });
  });
}
function stop(s) { return new Promise(r => { s.proc.removeAllListeners('exit'); s.proc.on('exit', () => r()); s.proc.kill('SIGTERM'); setTimeout(r, 2000); }); }
function runExit(env) {
  return new Promise(resolve => {
    const p = spawn('/usr/bin/python3', [path.join(HERE, 'server.py'), '--port', '0'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
  if (raw !== undefined) { body = raw; h['Content-Type'] ??= 'text/plain'; }
  const r = await fetch(base + p, { method, headers: h, body });
  const text = await r.text();
  let data; try { data = JSON.parse(text); } catch { data = undefined; }
  return { status: r.status, data, text, headers: r.headers };
}
function assert(c, msg) { if (!c) throw new Error(msg); }
const ok = r => r.status >= 200 && r.status < 300;
const basicAuth = role => 'Basic ' + Buffer.from(`${cid(role)}:${csec(role)}`).toString('base64');
const tokenReq = (base, role) => http(base, 'POST', '/oauth/token?grant_type=client_credentials', { headers: { Authorization: basicAuth(role) } });
async function tok(base, role) {
  const r = await tokenReq(base, role);
  assert(r.status === 200 && r.data?.access_token, `token for ${role}: ${r.status} ${r.text}`);
  return r.data.access_token;
}
// The document: "error stating the token has expired" / "error stating the limit is exceeded" (codes not shown)
const isExpired = r => r.status >= 400 && r.status < 500 && /expir/i.test(r.text);
const isQuota = r => r.status >= 400 && r.status < 500 && /limit|exceed|quota/i.test(r.text);
const works = async (base, token) => (await http(base, 'GET', '/status', { token })).status === 200;

const LK = '/lookups/acme/_scan';
const ST = '/configuration/acme/autopilot/stats/_scan';
const STT = t => `/configuration/acme/autopilot/stats/${t}/_scan`;
const BV = (t, tenant = 'acme') => `/configuration/${tenant}/autopilot/${t}/blockedValues`;
const typeName = t => t.replace(/^rdm\/lookupTypes\//, '');
const lkey = o => `${o.type}|${o.code}`;
const skey = o => `${o.lookupType}|${o.source}|${o.unmappedValue}`;

// Follows scrollId until a response has no scrollId or no values (both are end signals in the field).
async function scanAll(base, p, token, query = '', pageCheck) {
  const url = p + (query ? `?${query}` : '');
  let r = await http(base, 'POST', url, { token });
  assert(r.status === 200, `scan ${url}: ${r.status} ${r.text.slice(0, 200)}`);
  const values = [];
  for (let i = 0; i < 3000; i++) {
    assert(r.data && Array.isArray(r.data.values), `scan page shape: ${r.text.slice(0, 200)}`);
    if (pageCheck) pageCheck(r.data, i);
    values.push(...r.data.values);
    if (!r.data.scrollId || r.data.values.length === 0) return values;
    r = await http(base, 'POST', url, { token, json: { scrollId: r.data.scrollId } });
    assert(r.status === 200, `next page ${url}: ${r.status} ${r.text.slice(0, 200)}`);
  }
  throw new Error('scan did not end');
}
// A delete task may run asynchronously (the document does not show the task's response): poll until it holds.
async function eventually(fn, what, ms = 6000) {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    try { return await fn(); } catch (e) { last = e; }
    if (Date.now() > end) throw new Error(`${what}: ${last.message}`);
    await sleep(250);
  }
}
const acmeClients = () => ['admin', 'editor', 'viewer', 'quota'].map(cid);
function acmeCustomer(max) {
  const b = { id: 'cust-acme', tenants: ['acme'], applicationClients: acmeClients(), externalProviderConfig: [], description: 'acme', caseSensitiveLoginEnabled: false, customerSpecificRoles: [] };
  if (max !== undefined) b.multitokenConfig = { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: max } };
  return b;
}
async function configure(base, adm, max, method = 'PUT') {
  const r = await http(base, method, '/oauth/customers/cust-acme', { token: adm, json: acmeCustomer(max) });
  assert(ok(r), `${method} customer (max ${max}): ${r.status} ${r.text}`);
}
async function setValidity(base, adm, role, secs) {
  const r = await http(base, 'PUT', '/oauth/customers/cust-acme/clients', { token: adm, json: [{ clientId: cid(role), accessTokenValidity: secs }] });
  assert(ok(r), `set validity: ${r.status} ${r.text}`);
}
function sorted(arr, f, desc) {
  for (let i = 1; i < arr.length; i++) if (desc ? f(arr[i - 1]) < f(arr[i]) : f(arr[i - 1]) > f(arr[i])) return false;
  return true;
}
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// ---------------------------------------------------------------- checks (each on a fresh server)
const CHECKS = {
  async 'token-endpoint'({ base }) {
    const r = await tokenReq(base, 'admin');
    assert(r.status === 200 && /^bearer$/i.test(r.data.token_type) && r.data.expires_in === 3600, `token: ${r.text}`);
    const f = await http(base, 'POST', '/oauth/token', { raw: new URLSearchParams({ grant_type: 'client_credentials', client_id: cid('viewer'), client_secret: csec('viewer') }).toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    assert(f.status === 200 && f.data.access_token, `form credentials ${f.status}`);
    const bad = await http(base, 'POST', '/oauth/token?grant_type=client_credentials', { headers: { Authorization: 'Basic ' + Buffer.from(`${cid('admin')}:nope`).toString('base64') } });
    assert(bad.status === 401, `wrong secret ${bad.status}`);
    const pw = await http(base, 'POST', '/oauth/token?grant_type=password', { headers: { Authorization: basicAuth('admin') } });
    assert(pw.status === 400, `password grant ${pw.status}`);
    assert((await http(base, 'GET', '/status')).status === 401, 'no Authorization header refused');
    assert((await http(base, 'GET', '/status', { token: 'forged' })).status === 401, 'unknown token refused');
  },
  // | active | token request, multi-token support off | token still valid | active | the same token is returned again |
  // | active | time reaches end of validity | accessTokenValidity elapsed | expired | use of the token yields an expired-token error |
  async 'single-token-cycle'({ base }) {
    const adm = await tok(base, 'admin');
    await setValidity(base, adm, 'viewer', 2);
    const t1 = await tok(base, 'viewer');
    assert(t1 === await tok(base, 'viewer'), 'multi-token off: the same token is returned again');
    await sleep(2300);
    assert(isExpired(await http(base, 'POST', LK, { token: t1 })), 't1 expired');
    const n = await tokenReq(base, 'viewer');
    assert(n.status === 200 && n.data.access_token !== t1, `after expiry a token request must not return the expired token: ${n.text}`);
    assert(await works(base, n.data.access_token), 'the new token works');
    const again = await http(base, 'POST', LK, { token: t1 });
    assert(isExpired(again), `the old token still yields an expired-token error after a new one was issued: ${again.status} ${again.text}`);
  },
  async 'single-token-no-sliding'({ base }) {
    const adm = await tok(base, 'admin');
    await setValidity(base, adm, 'viewer', 3);
    const t1 = await tok(base, 'viewer');
    await sleep(2000);
    assert(t1 === await tok(base, 'viewer'), 'still valid: same token');
    await sleep(1300);
    const r = await http(base, 'GET', '/status', { token: t1 });
    assert(isExpired(r), `validity counts from issue: t1 must be expired 3.3 s after issue, got ${r.status}`);
  },
  async 'validity-seconds'({ base }) {
    const adm = await tok(base, 'admin');
    await setValidity(base, adm, 'viewer', 30);
    const r = await tokenReq(base, 'viewer');
    assert(r.data.expires_in <= 30 && r.data.expires_in >= 28, `expires_in ${r.data.expires_in}`);
    await sleep(400);
    const u = await http(base, 'POST', `${LK}?limit=5`, { token: r.data.access_token });
    assert(u.status === 200, `accessTokenValidity is in seconds: token of 30 s must work after 0.4 s, got ${u.status} ${u.text.slice(0, 120)}`);
  },
  async 'validity-per-client'({ base }) {
    const adm = await tok(base, 'admin');
    await setValidity(base, adm, 'viewer', 2);
    const e = await tokenReq(base, 'editor');
    assert(e.data.expires_in > 2, `the editor's validity is untouched by the viewer's setting: expires_in ${e.data.expires_in}`);
    const v = await tok(base, 'viewer');
    await sleep(2300);
    assert(isExpired(await http(base, 'GET', '/status', { token: v })), 'viewer token expired');
    assert(await works(base, e.data.access_token), 'editor token still works after 2.3 s');
  },
  async 'multitoken-enable'({ base }) {
    const adm = await tok(base, 'admin');
    const t0 = await tok(base, 'viewer');
    await configure(base, adm, 5);
    const a = await tok(base, 'viewer'); const b = await tok(base, 'viewer');
    assert(a !== t0 && b !== t0 && a !== b, 'multi-token on: every token request returns a newly issued token');
    assert(await works(base, t0), 'token issued before stays valid');
  },
  async 'multitoken-disable'({ base }) {
    const adm = await tok(base, 'admin');
    await configure(base, adm, 5);
    const a = await tok(base, 'viewer'); const b = await tok(base, 'viewer');
    assert(a !== b, 'on: new tokens');
    await configure(base, adm, undefined);
    assert(await tok(base, 'viewer') === await tok(base, 'viewer'), 'off again: same token returned');
  },
  async 'multitoken-post'({ base }) {
    const adm = await tok(base, 'admin');
    await configure(base, adm, 5, 'POST');
    const a = await tok(base, 'viewer'); const b = await tok(base, 'viewer');
    assert(a !== b, 'POST with multitokenConfig (same as PUT) activates multi-token support');
  },
  async 'multitoken-scope'({ base }) {
    const adm = await tok(base, 'admin');
    await configure(base, adm, 5);
    assert(await tok(base, 'editor') !== await tok(base, 'editor'), 'acme on');
    for (const role of ['otherAdmin', 'rdbmsAdmin']) {
      assert(await tok(base, role) === await tok(base, role), `${role}: customer without multitokenConfig stays single-token`);
    }
  },
  async 'quota-limit'({ base }) {
    const adm = await tok(base, 'admin');
    await configure(base, adm, 3);
    const got = [await tok(base, 'quota'), await tok(base, 'quota'), await tok(base, 'quota')];
    assert(new Set(got).size === 3, 'three tokens');
    const r = await tokenReq(base, 'quota');
    assert(isQuota(r), `4th declined with limit-exceeded: ${r.status} ${r.text}`);
    assert(await tok(base, 'viewer'), 'quota is per client');
  },
  // | active | token request, multi-token support on | active token count at the limit | unchanged | request declined |
  async 'quota-refusal-unchanged'({ base }) {
    const adm = await tok(base, 'admin');
    await configure(base, adm, 2);
    const a = await tok(base, 'quota'); const b = await tok(base, 'quota');
    assert(isQuota(await tokenReq(base, 'quota')), 'third declined');
    assert(await works(base, a) && await works(base, b), 'state unchanged: both active tokens still work after the refusal');
    assert(isQuota(await tokenReq(base, 'quota')), 'still at the limit');
  },
  async 'quota-raise'({ base }) {
    const adm = await tok(base, 'admin');
    await configure(base, adm, 2);
    await tok(base, 'quota'); await tok(base, 'quota');
    assert(isQuota(await tokenReq(base, 'quota')), 'declined at 2');
    await configure(base, adm, 4);
    const r = await tokenReq(base, 'quota');
    assert(r.status === 200, `after raising the quota to 4 the client gets a token: ${r.status} ${r.text}`);
    await tok(base, 'quota');
    assert(isQuota(await tokenReq(base, 'quota')), 'declined at 4');
  },
  async 'quota-expiry-release'({ base }) {
    const adm = await tok(base, 'admin');
    await setValidity(base, adm, 'quota', 2);
    await configure(base, adm, 2);
    await tok(base, 'quota'); await tok(base, 'quota');
    assert(isQuota(await tokenReq(base, 'quota')), 'declined');
    await sleep(2300);
    assert((await tokenReq(base, 'quota')).status === 200, 'expired tokens no longer count');
  },
  async 'quota-bounds'({ base }) {
    const adm = await tok(base, 'admin');
    assert((await http(base, 'PUT', '/oauth/customers/cust-acme', { token: adm, json: acmeCustomer(201) })).status === 400, '201 refused');
    await configure(base, adm, 200);
  },
  // multitokenConfig on an rdbms tenant: "supplying it causes a validation error"
  async 'rdbms-rule'({ base }) {
    const lt = await tok(base, 'rdbmsAdmin');
    const b = { id: 'cust-legacy', tenants: ['legacy'], applicationClients: [cid('rdbmsAdmin')] };
    const r = await http(base, 'PUT', '/oauth/customers/cust-legacy', { token: lt, json: { ...b, multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: 5 } } } });
    assert(r.status === 400 && /rdbms|cassandra|multitoken/i.test(r.text), `validation error: ${r.status} ${r.text}`);
    const a = await tok(base, 'rdbmsAdmin'); const c = await tok(base, 'rdbmsAdmin');
    assert(a === c, 'the refused multitokenConfig is not applied: legacy stays single-token');
    assert(ok(await http(base, 'PUT', '/oauth/customers/cust-legacy', { token: lt, json: b })), 'plain update accepted');
  },
  async 'config-roles'({ base }) {
    const v = await tok(base, 'viewer');
    assert((await http(base, 'PUT', '/oauth/customers/cust-acme', { token: v, json: acmeCustomer(5) })).status === 403, 'viewer may not configure');
    const g = await tok(base, 'otherAdmin');
    assert((await http(base, 'PUT', '/oauth/customers/cust-acme/clients', { token: g, json: [{ clientId: cid('viewer'), accessTokenValidity: 5 }] })).status === 403, 'globex admin may not configure acme clients');
  },
  async 'service-endpoints'({ base }) {
    const t = await tok(base, 'viewer');
    for (const p of ['/healthcheck', '/status']) {
      const r = await http(base, 'GET', p, { token: t });
      assert(r.status === 200 && r.data.status === 'OK', `${p}: ${r.text}`);
    }
    const v = await http(base, 'GET', '/version', { token: t });
    assert(v.status === 200 && /^\d+(\.\d+)+$/.test(String(v.data['rdm-service'])), `version ${v.text}`);
  },
  async 'lookup-full-scan'({ base }) {
    const t = await tok(base, 'viewer');
    const all = await scanAll(base, LK, t, 'limit=1000');
    assert(all.length >= 250, `lookups ${all.length}`);
    const small = await scanAll(base, LK, t, 'limit=23', d => assert(d.values.length <= 23, 'page size'));
    assert(same(small.map(lkey), all.map(lkey)), 'small pages give the same sequence');
    assert(all.some(v => v.enabled === false) && all.some(v => !('endDate' in v)), 'seed variety');
    const dflt = await http(base, 'POST', LK, { token: t });
    assert(dflt.status === 200 && dflt.data.values.length <= 100 && dflt.data.scrollId, 'default page');
    const nul = await http(base, 'POST', LK, { token: t, raw: 'null', headers: { 'Content-Type': 'application/json' } });
    assert(nul.status === 200 && same(nul.data.values, dflt.data.values), 'null body = first request');
    const raw = await http(base, 'POST', `${LK}?limit=10`, { token: t });
    const p2 = await http(base, 'POST', `${LK}?limit=10`, { token: t, raw: raw.data.scrollId });
    assert(p2.status === 200 && same(p2.data.values.map(lkey), all.slice(10, 20).map(lkey)), 'raw scroll id body');
  },
  async 'lookup-sort-ties'({ base }) {
    const t = await tok(base, 'viewer');
    const all = await scanAll(base, LK, t, 'limit=1000');
    for (const [q, desc] of [['sort=code&order=asc', false], ['sort=code&order=desc', true]]) {
      const got = await scanAll(base, LK, t, `limit=7&${q}`);
      const keys = got.map(lkey);
      assert(new Set(keys).size === keys.length, `${q}: no lookup twice across pages`);
      assert(keys.length === all.length, `${q}: every lookup once (${keys.length} vs ${all.length})`);
      assert(sorted(got, v => v.code.toLowerCase(), desc), `${q}: sorted by code`);
      assert(same(keys, (await scanAll(base, LK, t, `limit=1000&${q}`)).map(lkey)), `${q}: pages equal one big page`);
    }
  },
  async 'lookup-filter'({ base }) {
    const t = await tok(base, 'viewer');
    const all = await scanAll(base, LK, t, 'limit=1000');
    const got = await scanAll(base, LK, t, `limit=9&filter=${encodeURIComponent("equals(type,'Plant')")}&sort=code&order=desc`);
    const want = all.filter(v => v.type === 'rdm/lookupTypes/Plant');
    assert(got.length === want.length && got.every(v => v.type === 'rdm/lookupTypes/Plant'), 'filter equals(type)');
    assert(sorted(got, v => v.code, true), 'desc');
    assert((await http(base, 'POST', `${LK}?filter=${encodeURIComponent('equals(type')}`, { token: t })).status === 400, 'bad filter 400');
  },
  async 'interleaved-scrolls'({ base }) {
    const t = await tok(base, 'viewer');
    const qs = [[LK, 'limit=31&sort=code'], [LK, `limit=11&filter=${encodeURIComponent("equals(type,'Color')")}`], [ST, 'limit=40&sort=createdAt&order=desc'], [STT('Country'), 'limit=13']];
    const refs = [];
    for (const [p, q] of qs) refs.push(await scanAll(base, p, t, q));
    const state = await Promise.all(qs.map(([p, q]) => http(base, 'POST', `${p}?${q}`, { token: t })));
    const acc = state.map(r => [...r.data.values]);
    for (let round = 0; round < 100; round++) {
      let moved = false;
      for (let i = qs.length - 1; i >= 0; i--) {
        const r = state[i];
        if (!r || !r.data.scrollId || !r.data.values.length) { state[i] = null; continue; }
        state[i] = await http(base, 'POST', `${qs[i][0]}?${qs[i][1]}`, { token: t, json: { scrollId: r.data.scrollId } });
        assert(state[i].status === 200, `scroll ${i} next: ${state[i].status}`);
        acc[i].push(...state[i].data.values); moved = true;
      }
      if (!moved) break;
    }
    for (let i = 0; i < qs.length; i++) assert(same(acc[i], refs[i]), `interleaved scroll ${i} equals its own scan`);
  },
  async 'stats-scans'({ base }) {
    const t = await tok(base, 'viewer');
    const all = await scanAll(base, ST, t, 'limit=45');
    assert(all.length > 100 && new Set(all.map(skey)).size === all.length, `stats ${all.length}`);
    for (const s of ['LOOKUP_CREATED', 'MISSPELLED', 'AUTOMAPPED', 'MANUALLY_MAPPED']) assert(all.some(v => v.status === s), s);
    assert(all.some(v => 'dcrId' in v) && all.some(v => !('mappedAt' in v)) && all.some(v => !('candidateLookupCode' in v)), 'optional fields');
    for (const v of all) assert(typeof v.createdAt === 'number' && typeof v.semanticScore === 'number' && typeof v.centroidMatch === 'boolean', 'types');
    for (const tn of [...new Set(all.map(v => v.lookupType))]) {
      const part = await scanAll(base, STT(tn), t, 'limit=17');
      assert(part.length === all.filter(v => v.lookupType === tn).length && part.every(v => v.lookupType === tn), `type scan ${tn}`);
    }
    const f = await scanAll(base, ST, t, `limit=10&filter=${encodeURIComponent("equals(status,'AUTOMAPPED')")}&sort=createdAt&order=desc`);
    assert(f.length === all.filter(v => v.status === 'AUTOMAPPED').length && f.every(v => v.status === 'AUTOMAPPED') && sorted(f, v => v.createdAt, true), 'filter + desc');
  },
  // | limit | integer | No | page size; default 100, maximum 100 |
  async 'stats-limits'({ base }) {
    const t = await tok(base, 'viewer');
    for (const p of [ST, STT('Country')]) {
      const d = await http(base, 'POST', p, { token: t });
      const n = Math.min(100, (await scanAll(base, p, t, 'limit=50')).length);
      assert(d.status === 200 && d.data.values.length === n, `${p} default page ${d.data?.values?.length} vs ${n}`);
      const e = await http(base, 'POST', `${p}?limit=100`, { token: t });
      assert(e.status === 200 && e.data.values.length === n, `${p} explicit limit=100 (the maximum) must be served: ${e.status} ${e.text.slice(0, 120)}`);
      const o = await http(base, 'POST', `${p}?limit=101`, { token: t });
      assert(o.status === 400 || (o.status === 200 && o.data.values.length <= 100), 'above the maximum');
    }
  },
  async 'blocked-values'({ base }) {
    const t = await tok(base, 'viewer');
    const d = await http(base, 'GET', BV('Country'), { token: t });
    assert(d.status === 200 && d.data.length === 100, `default limit 100: ${d.data?.length}`);
    const p1 = (await http(base, 'GET', `${BV('Country')}?offset=100&limit=100`, { token: t })).data;
    assert(p1.length > 0 && !p1.some(x => d.data.some(y => y.value === x.value)), 'offset pages');
    const mid = (await http(base, 'GET', `${BV('Country')}?offset=7&limit=3`, { token: t })).data;
    assert(same(mid, d.data.slice(7, 10)), 'offset 7 limit 3');
    for (const f of ['tenantId', 'lookupType', 'value', 'createdAt', 'createdBy']) assert(f in d.data[0], f);
  },
  // ROLE_RDM / ROLE_RDM_EDIT: "the tenant must be in the user's tenant list"
  async 'tenant-isolation'({ base }) {
    for (const role of ['viewer', 'editor', 'admin', 'quota']) {
      const t = await tok(base, role);
      assert((await http(base, 'POST', `${LK}?limit=3`, { token: t })).status === 200, `${role} reads acme lookups`);
      assert((await http(base, 'POST', `${ST}?limit=3`, { token: t })).status === 200, `${role} reads acme stats`);
      assert((await http(base, 'GET', BV('Country'), { token: t })).status === 200, `${role} reads acme blocked values`);
      for (const [m, p] of [['POST', '/lookups/globex/_scan'], ['POST', '/configuration/globex/autopilot/stats/_scan'], ['POST', '/configuration/globex/autopilot/stats/Country/_scan'], ['GET', BV('Country', 'globex')]]) {
        const r = await http(base, m, p, { token: t });
        assert(r.status === 403, `${role} after reading acme: ${m} ${p} must be refused, got ${r.status}`);
      }
    }
    const g = await tok(base, 'otherAdmin');
    assert((await http(base, 'GET', BV('Country'), { token: g })).status === 403, 'globex admin: acme blocked values refused');
  },
  // ROLE_RDM: "View access to the lookup-data tenant"
  async 'delete-roles'({ base }) {
    const v = await tok(base, 'viewer');
    const r = await http(base, 'POST', '/tasks/acme', { token: v, json: { type: 'delete', parameters: { type: 'rdm/lookupTypes/Color' } } });
    assert(r.status === 403, `view access may not delete: ${r.status}`);
    await sleep(1700);
    const e = await tok(base, 'editor');
    assert((await scanAll(base, LK, e, `limit=1000&filter=${encodeURIComponent("equals(type,'Color')")}`)).length > 0, 'Color lookups still there');
    assert((await http(base, 'POST', '/tasks/globex', { token: e, json: { type: 'delete' } })).status === 403, 'editor: other tenant refused');
  },
  // "with parameters.type it removes the lookups of that lookup type only" — seen by every read afterwards
  async 'delete-type'({ base }) {
    const a = await tok(base, 'admin');
    const before = await scanAll(base, LK, a, 'limit=1000');
    const r = await http(base, 'POST', '/tasks/acme', { token: a, json: { type: 'delete', parameters: { type: 'rdm/lookupTypes/Currency' } } });
    assert(ok(r), `task ${r.status} ${r.text}`);
    await eventually(async () => {
      const after = await scanAll(base, LK, a, 'limit=1000');
      assert(same(after.map(lkey), before.filter(v => v.type !== 'rdm/lookupTypes/Currency').map(lkey)), 'unfiltered scan lacks exactly Currency');
    }, 'delete by type');
    for (const expr of ["equals(type,'Currency')", "equals(type,'rdm/lookupTypes/Currency')"]) {
      const f = await scanAll(base, LK, a, `limit=50&filter=${encodeURIComponent(expr)}`);
      assert(f.length === 0, `filter ${expr} after the delete: ${f.length} lookups still answered`);
    }
    const c = await scanAll(base, LK, a, `limit=50&filter=${encodeURIComponent("equals(type,'Country')")}`);
    assert(c.length === before.filter(v => v.type === 'rdm/lookupTypes/Country').length, 'other types intact');
  },
  // "with parameters.uris it removes the listed lookups"
  async 'delete-uris'({ base }) {
    const e = await tok(base, 'editor');
    const before = await scanAll(base, LK, e, 'limit=1000');
    const victims = [before[3], before.find(v => v.type !== before[3].type && v.code === before[3].code), before[200]];
    const uris = victims.map(v => `acme/${typeName(v.type)}/${v.code}`);
    const r = await http(base, 'POST', '/tasks/acme', { token: e, json: { type: 'delete', parameters: { uris } } });
    assert(ok(r), `task ${r.status} ${r.text}`);
    await eventually(async () => {
      const after = await scanAll(base, LK, e, 'limit=1000');
      const gone = new Set(victims.map(lkey));
      assert(same(after.map(lkey), before.filter(v => !gone.has(lkey(v))).map(lkey)), `exactly the ${uris.length} listed lookups removed (${before.length} -> ${after.length})`);
    }, 'delete by uris');
  },
  // "body with type delete and no parameters removes all lookups of the tenant"
  async 'delete-all'({ base }) {
    const e = await tok(base, 'editor');
    const r = await http(base, 'POST', '/tasks/acme', { token: e, json: { type: 'delete' } });
    assert(ok(r), `task ${r.status}`);
    await eventually(async () => {
      const left = await scanAll(base, LK, e, 'limit=100');
      assert(left.length === 0, `all lookups removed: ${left.length} left (disabled: ${left.filter(v => v.enabled === false).length})`);
    }, 'delete all');
    const g = await tok(base, 'otherAdmin');
    assert((await scanAll(base, '/lookups/globex/_scan', g)).length > 0, 'globex untouched');
    for (const p of ['/status', '/healthcheck']) {
      const s = await http(base, 'GET', p, { token: e });
      assert(s.status === 200 && s.data.status === 'OK', `${p} after the tenant's lookups were deleted: ${s.status} ${s.text}`);
    }
    assert((await http(base, 'POST', '/tasks/acme', { token: e, json: { type: 'purge' } })).status === 400, 'unknown task type');
  },
  // parameters.type: "When the parameter is not set, all lookups of the tenant are deleted"
  async 'delete-empty-parameters'({ base }) {
    const a = await tok(base, 'admin');
    const r = await http(base, 'POST', '/tasks/acme', { token: a, json: { type: 'delete', parameters: {} } });
    assert(ok(r), `task ${r.status}`);
    await eventually(async () => {
      const left = await scanAll(base, LK, a, 'limit=1000');
      assert(left.length === 0, `parameters {} sets neither type nor uris: all lookups go, ${left.length} left`);
    }, 'delete with empty parameters');
  },
  async 'robustness'({ base }) {
    const t = await tok(base, 'admin');
    assert((await http(base, 'POST', '/tasks/acme', { token: t, raw: '{nope', headers: { 'Content-Type': 'application/json' } })).status === 400, 'bad JSON 400');
    assert((await http(base, 'POST', LK, { token: t, raw: 'garbage-scroll' })).status === 400, 'unknown scroll 400');
    assert((await http(base, 'POST', `${LK}?limit=x`, { token: t })).status === 400, 'bad limit');
    assert((await http(base, 'POST', `${LK}?order=up`, { token: t })).status === 400, 'bad order');
    assert((await http(base, 'PUT', '/oauth/customers/cust-acme/clients', { token: t, json: [{ clientId: 'nobody' }] })).status === 400, 'unknown client');
    const par = await Promise.all(Array.from({ length: 8 }, () => http(base, 'GET', '/status', { token: t })));
    assert(par.every(r => r.status === 200), 'concurrent');
  },
};

const FAULT_CHECK = {
  'single-token-returns-expired': 'single-token-cycle', 'expired-reported-as-unknown': 'single-token-cycle',
  'reissue-slides-expiry': 'single-token-no-sliding', 'validity-checked-in-ms': 'validity-seconds',
  'validity-set-for-whole-customer': 'validity-per-client', 'multitoken-enable-keeps-cached-token': 'multitoken-enable',
  'customer-post-ignores-multitoken': 'multitoken-post', 'multitoken-leaks-to-other-customers': 'multitoken-scope',
  'quota-refusal-revokes-active': 'quota-refusal-unchanged', 'quota-raise-ignored-after-limit': 'quota-raise',
  'rdbms-rejected-but-applied': 'rdbms-rule', 'sort-ties-unstable-across-pages': 'lookup-sort-ties',
  'stats-limit-100-rejected': 'stats-limits', 'authz-cache-ignores-tenant': 'tenant-isolation',
  'blocked-values-cross-tenant': 'tenant-isolation', 'viewer-delete-task-accepted': 'delete-roles',
  'deleted-type-still-filterable': 'delete-type', 'delete-uris-last-dropped': 'delete-uris',
  'delete-all-keeps-disabled': 'delete-all', 'status-degraded-after-tenant-wipe': 'delete-all',
  'delete-empty-parameters-noop': 'delete-empty-parameters',
};

// ---------------------------------------------------------------- runner
let passed = 0, failed = 0;
function report(good, label, msg = '') {
  if (good) passed++; else failed++;
  console.log(`${good ? 'PASS' : 'FAIL'} ${label}${msg ? ' :: ' + msg : ''}`);
}
async function runCheck(env, name) {
  const s = await start(env);
  try { await CHECKS[name]({ base: s.base }); return null; } catch (e) { return e.message || String(e); } finally { await stop(s); }
}
// two checks at a time: most of a check's time is spent sleeping through token validity
async function pool(jobs, n = 2) {
  const out = new Array(jobs.length);
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => { while (next < jobs.length) { const i = next++; out[i] = await jobs[i](); } }));
  return out;
}

const argv = process.argv.slice(2);
const onlyIdx = argv.indexOf('--only');
const only = onlyIdx >= 0 ? argv[onlyIdx + 1] : null;
const names = Object.keys(CHECKS).filter(n => !only || n === only);
for (const f of faults) assert(CHECKS[FAULT_CHECK[f.name]], `fault ${f.name} has no check`);

if (argv.includes('--collateral')) {
  for (const f of faults) {
    const res = await pool(names.map(n => () => runCheck({ FAULT: f.name }, n)));
    console.log(`${f.name}: breaks ${names.filter((_, i) => res[i]).join(', ') || 'nothing'}`);
  }
  process.exit(0);
}

const faultsOnly = argv.includes('--faults');
const uf = await runExit({ FAULT: 'no-such-fault' });
report(uf.code === 2 && faults.every(f => uf.err.includes(f.name)), 'unknown FAULT exits 2 listing faults');
const uc = await runExit({ CHOICES: 'no-such-choice' });
report(uc.code === 2 && choices.every(c => uc.err.includes(c.name)), 'unknown CHOICES exits 2 listing choices');
for (const v of faultsOnly ? [] : [null, ...choices.map(c => c.name)]) {
  const res = await pool(names.map(n => () => runCheck(v ? { CHOICES: v } : {}, n)));
  names.forEach((n, i) => report(!res[i], `${v || 'correct'} ${n}`, res[i] || ''));
}
const fl = faults.filter(f => !only || FAULT_CHECK[f.name] === only);
const fres = await pool(fl.map(f => () => runCheck({ FAULT: f.name }, FAULT_CHECK[f.name])));
fl.forEach((f, i) => report(!!fres[i], `FAULT=${f.name} shown by ${FAULT_CHECK[f.name]}`, fres[i] ? `shown: ${fres[i]}` : 'fault NOT shown'));
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
