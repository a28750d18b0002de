// Self-test of the Kestrel server: my own reading of the interface document.
// Starts the correct server and every choice on a fresh process per check (all must pass), then every
// fault (its check must fail). Node 20, no dependencies.
// Usage: node selftest.mjs [--only <check>] [--variant correct|<choice>] [--fault <name>] [--collateral]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ENV = {};
for (const line of readFileSync(path.join(HERE, 'credentials.env'), 'utf8').split('\n')) {
  const m = /^export\s+(\w+)=(.*)$/.exec(line.trim());
  if (m) ENV[m[1]] = m[2];
}
const ROLES = { admin: 'ACME_ADMIN', editor: 'ACME_EDITOR', viewer: 'ACME_VIEWER', quota: 'ACME_QUOTA', otherAdmin: 'GLOBEX_ADMIN', rdbmsAdmin: 'LEGACY_ADMIN' };
const idOf = r => ENV[`${ROLES[r]}_ID`];
const secretOf = r => ENV[`${ROLES[r]}_SECRET`];
const faults = JSON.parse(readFileSync(path.join(HERE, 'faults.json'), 'utf8'));
const choices = JSON.parse(readFileSync(path.join(HERE, 'choices.json'), 'utf8'));
const sleep = ms => new Promise(r => setTimeout(r, ms));

// ------------------------------------------------------------------------------------------ process
function start(env) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [path.join(HERE, 'server.mjs'), '--port', '0'], { env: { ...process.env, FAULT: '', CHOICES: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    const timer = setTimeout(() => { p.kill(); reject(new Error(`no "listening" line: ${err}`)); }, 15000);
    p.stdout.on('data', d => { out += d; const m = /listening (\d+)/.exec(out); if (m) { clearTimeout(timer); resolve({ proc: p, base: `http://127.0.0.1:${m[1]}`, err: () => err }); } });
    p.stderr.on('data', d => { err += d; });
    p.on('exit', code => { clearTimeout(timer); reject(new Error(`server exited ${code}: ${err}`)); });
  });
}
function stop(s) {
  return new Promise(r => { s.proc.removeAllListeners('exit'); s.proc.on('exit', () => r()); s.proc.kill('SIGTERM'); setTimeout(r, 3000); });
}
function exitOf(env) {
  return new Promise(resolve => {
    const p = spawn(process.execPath, [path.join(HERE, 'server.mjs'), '--port', '0'], { env: { ...process.env, FAULT: '', CHOICES: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    p.stderr.on('data', d => { err += d; });
    const t = setTimeout(() => p.kill(), 8000);
    p.on('exit', code => { clearTimeout(t); resolve({ code, err }); });
  });
}

// ------------------------------------------------------------------------------------------ http
function check(cond, msg) { if (!cond) throw new Error(msg); }
async function call(base, method, p, { token, json, raw, headers = {} } = {}) {
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
const basic = role => `Basic ${Buffer.from(`${idOf(role)}:${secretOf(role)}`).toString('base64')}`;
const askToken = (base, role) => call(base, 'POST', '/oauth/token?grant_type=client_credentials', { headers: { Authorization: basic(role) } });
async function token(base, role) {
  const r = await askToken(base, role);
  check(r.status === 200 && r.data?.access_token, `token for ${role}: ${r.status} ${r.text}`);
  return r.data.access_token;
}
const expiredError = r => r.status >= 400 && r.status < 500 && /expir/i.test(r.text);
const limitError = r => r.status >= 400 && r.status < 500 && /limit|exceed/i.test(r.text);

// Next page: alternates the two encodings the server documents (raw id, {"scrollId"}).
let encodeToggle = 0;
function nextPage(base, p, tok, sid) {
  encodeToggle ^= 1;
  return call(base, 'POST', p, encodeToggle ? { token: tok, raw: sid } : { token: tok, json: { scrollId: sid } });
}
// A scan ends on a response without scrollId or with an empty values array.
async function scan(base, p, tok, query = '', onPage) {
  const url = query ? `${p}?${query}` : p;
  let r = await call(base, 'POST', url, { token: tok });
  check(r.status === 200, `scan ${url}: ${r.status} ${r.text.slice(0, 200)}`);
  const values = [];
  for (let n = 0; n < 3000; n++) {
    check(Array.isArray(r.data?.values), `scan page without values array: ${r.text.slice(0, 200)}`);
    onPage?.(r.data, n);
    values.push(...r.data.values);
    if (!r.data.scrollId || r.data.values.length === 0) return values;
    r = await nextPage(base, url, tok, r.data.scrollId);
    check(r.status === 200, `next page of ${url}: ${r.status} ${r.text.slice(0, 200)}`);
  }
  throw new Error(`scan ${url} did not end`);
}
async function eventually(what, probe, ms = 6000) {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    check(Date.now() < until, `${what} (waited ${ms} ms)`);
    await sleep(200);
  }
}
const LK = t => `/lookups/${t}/_scan`;
const ST = '/configuration/acme/autopilot/stats/_scan';
const STT = ty => `/configuration/acme/autopilot/stats/${ty}/_scan`;
const BV = ty => `/configuration/acme/autopilot/${ty}/blockedValues`;
const tn = uri => uri.replace(/^rdm\/lookupTypes\//, '');
const lkey = v => `${v.type}|${v.code}`;
const skey = v => `${v.lookupType}|${v.unmappedValue}|${v.createdAt}`;
const q = s => encodeURIComponent(s);
function ordered(list, f, desc) {
  const present = list.map(f).filter(x => x !== undefined);
  for (let i = 1; i < present.length; i++) if (desc ? present[i - 1] < present[i] : present[i - 1] > present[i]) return false;
  return true;
}
const countBy = (list, f) => list.reduce((m, v) => ((m[f(v)] = (m[f(v)] || 0) + 1), m), {});
function acmeCustomer(max) {
  const c = { id: 'cust-acme', tenants: ['acme'], externalProviderConfig: [], description: 'acme', caseSensitiveLoginEnabled: false, applicationClients: ['admin', 'editor', 'viewer', 'quota'].map(idOf), customerSpecificRoles: [] };
  if (max !== undefined) c.multitokenConfig = { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: max } };
  return c;
}
const putCustomer = (base, tok, body, method = 'PUT') => call(base, method, `/oauth/customers/${body.id}`, { token: tok, json: body });
async function setValidity(base, tok, role, secs) {
  const r = await call(base, 'PUT', '/oauth/customers/cust-acme/clients', { token: tok, json: [{ clientId: idOf(role), accessTokenValidity: secs }] });
  check(r.status >= 200 && r.status < 300, `validity change: ${r.status} ${r.text}`);
}
async function task(base, tok, body, tenant = 'acme') {
  return call(base, 'POST', `/tasks/${tenant}`, { token: tok, json: body });
}

// ------------------------------------------------------------------------------------------ checks
const CHECKS = {
  async 'token-endpoint'({ base }) {
    const r = await askToken(base, 'admin');
    check(r.status === 200 && /^bearer$/i.test(r.data.token_type) && Number.isInteger(r.data.expires_in), `token response ${r.text}`);
    check(/no-store/.test(r.headers.get('cache-control') || ''), 'Cache-Control: no-store');
    const form = await call(base, 'POST', '/oauth/token', { raw: `grant_type=client_credentials&client_id=${idOf('viewer')}&client_secret=${secretOf('viewer')}`, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    check(form.status === 200 && form.data.access_token, `form credentials ${form.status}`);
    const bad = await call(base, 'POST', '/oauth/token?grant_type=client_credentials', { headers: { Authorization: `Basic ${Buffer.from(`${idOf('admin')}:nope`).toString('base64')}` } });
    check(bad.status === 401 && bad.data.error === 'invalid_client' && bad.headers.get('www-authenticate'), `wrong secret ${bad.status} ${bad.text}`);
    const pw = await call(base, 'POST', '/oauth/token?grant_type=password', { headers: { Authorization: basic('admin') } });
    check(pw.status === 400 && pw.data.error === 'unsupported_grant_type', `password grant ${pw.status}`);
    check((await call(base, 'GET', '/status')).status === 401, 'no Authorization header is refused');
    check((await call(base, 'GET', '/status', { token: 'forged' })).status === 401, 'unknown bearer refused');
  },
  async 'token-reuse-and-quota'({ base }) {
    check((await token(base, 'viewer')) === (await token(base, 'viewer')), 'multi-token off: the same token is returned again');
    const adm = await token(base, 'admin');
    const r = await putCustomer(base, adm, acmeCustomer(3));
    check(r.status >= 200 && r.status < 300, `enable multi-token: ${r.status} ${r.text}`);
    const got = new Set([await token(base, 'quota'), await token(base, 'quota'), await token(base, 'quota')]);
    check(got.size === 3, 'multi-token on: a new token per request');
    check(limitError(await askToken(base, 'quota')), '4th token request declined with limit-exceeded');
    check((await askToken(base, 'editor')).status === 200, 'the quota applies per client');
    for (const t of got) check((await call(base, 'GET', '/healthcheck', { token: t })).status === 200, 'issued tokens usable');
    const off = await putCustomer(base, adm, acmeCustomer(undefined));
    check(off.status < 300, `disable multi-token: ${off.status}`);
    check((await token(base, 'viewer')) === (await token(base, 'viewer')), 'after PUT without multitokenConfig the same token again');
  },
  async 'quota-expiry'({ base }) {
    const adm = await token(base, 'admin');
    await setValidity(base, adm, 'quota', 2);
    check((await putCustomer(base, adm, acmeCustomer(2))).status < 300, 'enable');
    const t1 = await token(base, 'quota'); await token(base, 'quota');
    check(limitError(await askToken(base, 'quota')), 'third declined');
    await sleep(2300);
    check(expiredError(await call(base, 'POST', LK('acme'), { token: t1 })), 'expired token yields expired-token error');
    check((await askToken(base, 'quota')).status === 200, 'expired tokens no longer count');
  },
  async 'customer-validation'({ base }) {
    const adm = await token(base, 'admin');
    check((await putCustomer(base, adm, acmeCustomer(201))).status === 400, '201 rejected');
    check((await putCustomer(base, adm, acmeCustomer(200), 'POST')).status < 300, '200 accepted');
    const leg = await token(base, 'rdbmsAdmin');
    const lb = { id: 'cust-legacy', tenants: ['legacy'] };
    check((await putCustomer(base, leg, { ...lb, multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: 4 } } })).status === 400, 'rdbms tenant: validation error');
    check((await putCustomer(base, leg, lb)).status < 300, 'rdbms plain update accepted');
    check((await putCustomer(base, await token(base, 'viewer'), acmeCustomer(5))).status === 403, 'viewer may not configure');
    check((await putCustomer(base, adm, { id: 'cust-globex', tenants: ['globex'] })).status === 403, 'acme admin may not configure globex');
  },
  async 'service-endpoints'({ base }) {
    const t = await token(base, 'viewer');
    for (const p of ['/healthcheck', '/status']) {
      const r = await call(base, 'GET', p, { token: t });
      check(r.status === 200 && r.data.status === 'OK', `${p} ${r.text}`);
    }
    const v = await call(base, 'GET', '/version', { token: t });
    check(v.status === 200 && /^\d+(\.\d+)+$/.test(String(v.data?.['rdm-service'])), `version ${v.text}`);
  },
  async 'lookup-full-scan'({ base }) {
    const t = await token(base, 'viewer');
    const all = await scan(base, LK('acme'), t, 'limit=1000');
    check(all.length >= 250, `a few hundred lookups, got ${all.length}`);
    const paged = await scan(base, LK('acme'), t, 'limit=37', d => check(d.values.length <= 37, 'page size above limit'));
    check(new Set(paged.map(lkey)).size === paged.length, 'no duplicate across pages');
    check(paged.length === all.length, `paged scan returns every lookup: ${paged.length} vs ${all.length}`);
    const dflt = await call(base, 'POST', LK('acme'), { token: t, raw: 'null', headers: { 'Content-Type': 'application/json' } });
    check(dflt.status === 200 && dflt.data.values.length > 0 && dflt.data.values.length <= 100, 'null body = first page');
    check(all.every(v => /^rdm\/lookupTypes\/[^/]+$/.test(v.type) && typeof v.enabled === 'boolean'), 'type URI and enabled boolean');
  },
  async 'lookup-sort-global'({ base }) {
    const t = await token(base, 'viewer');
    const ref = (await scan(base, LK('acme'), t, 'limit=1000')).map(v => v.code).sort();
    const asc = await scan(base, LK('acme'), t, 'limit=40&sort=code&order=asc');
    check(asc.length === ref.length && ordered(asc, v => v.code, false), 'sort=code asc across every page');
    check(JSON.stringify(asc.slice(0, 40).map(v => v.code)) === JSON.stringify(ref.slice(0, 40)), 'first page holds the 40 smallest codes');
    const desc = await scan(base, LK('acme'), t, 'limit=40&sort=code&order=desc');
    check(desc.length === ref.length && ordered(desc, v => v.code, true), 'sort=code desc across every page');
  },
  async 'scan-ties-paging'({ base }) {
    const t = await token(base, 'viewer');
    const total = (await scan(base, LK('acme'), t, 'limit=1000')).length;
    for (const qs of ['limit=20&sort=enabled', 'limit=33&sort=updateDate&order=desc', 'limit=17&sort=version']) {
      const got = await scan(base, LK('acme'), t, qs);
      check(got.length === total && new Set(got.map(lkey)).size === total, `${qs}: every lookup once (${new Set(got.map(lkey)).size} distinct of ${got.length}, want ${total})`);
    }
    const stotal = (await scan(base, ST, t, 'limit=100')).length;
    const sg = await scan(base, ST, t, 'limit=25&sort=status');
    check(sg.length === stotal && new Set(sg.map(skey)).size === stotal, 'stats sort=status: every record once');
  },
  async 'filter-type-name'({ base }) {
    const t = await token(base, 'viewer');
    const all = await scan(base, LK('acme'), t, 'limit=1000');
    const by = countBy(all, v => tn(v.type));
    for (const name of ['Unit', 'Country']) {
      const got = await scan(base, LK('acme'), t, `limit=1000&filter=${q(`equals(type,'${name}')`)}`);
      check(got.length === by[name] && got.every(v => tn(v.type) === name), `equals(type,'${name}'): ${got.length} of ${by[name]}`);
    }
  },
  async 'filter-paging'({ base }) {
    const t = await token(base, 'viewer');
    const all = await scan(base, LK('acme'), t, 'limit=1000');
    const off = all.filter(v => v.enabled === false).length;
    check(off > 0, 'seed has disabled lookups');
    const got = await scan(base, LK('acme'), t, `limit=7&filter=${q("equals(enabled,'false')")}`);
    check(got.length === off && got.every(v => v.enabled === false), `equals(enabled,'false') paged by 7: ${got.length} of ${off}`);
    const stats = await scan(base, ST, t, 'limit=100');
    const units = stats.filter(v => v.lookupType === 'Unit').length;
    const su = await scan(base, ST, t, `limit=3&filter=${q("equals(lookupType,'Unit')")}`);
    check(su.length === units && su.every(v => v.lookupType === 'Unit'), `stats equals(lookupType,'Unit') paged by 3: ${su.length} of ${units}`);
  },
  async 'scrolls-many-open'({ base }) {
    const t = await token(base, 'viewer');
    const specs = [
      [LK('acme'), 'limit=10&sort=code'], [ST, 'limit=10&sort=createdAt&order=desc'], [STT('Unit'), 'limit=5'],
      [LK('acme'), `limit=9&filter=${q("equals(type,'Currency')")}`],
    ];
    const refs = [];
    for (const [p, qs] of specs) refs.push(await scan(base, p, t, qs.replace(/limit=\d+/, 'limit=100')));
    const open = [];
    for (const [p, qs] of specs) {
      const r = await call(base, 'POST', `${p}?${qs}`, { token: t });
      check(r.status === 200, `open ${p}`);
      open.push({ url: `${p}?${qs}`, r, got: [...r.data.values] });
    }
    for (let round = 0; round < 200 && open.some(o => o.r); round++) {
      for (const o of open) {
        if (!o.r) continue;
        if (!o.r.data.scrollId || o.r.data.values.length === 0) { o.r = null; continue; }
        o.r = await nextPage(base, o.url, t, o.r.data.scrollId);
        check(o.r.status === 200, `continuing ${o.url} with 4 scrolls open: ${o.r.status} ${o.r.text.slice(0, 120)}`);
        o.got.push(...o.r.data.values);
      }
    }
    open.forEach((o, i) => {
      const k = i === 1 || i === 2 ? skey : lkey;
      check(JSON.stringify(o.got.map(k)) === JSON.stringify(refs[i].map(k)), `interleaved ${o.url} equals its own scan (${o.got.length} vs ${refs[i].length})`);
    });
  },
  async 'scroll-after-delete'({ base }) {
    const e = await token(base, 'editor');
    const url = `${LK('acme')}?limit=50&sort=code`;
    const all = await scan(base, LK('acme'), e, 'limit=1000');
    const first = await call(base, 'POST', url, { token: e });
    check(first.status === 200 && first.data.scrollId, 'first page with scrollId');
    const seen = new Set(first.data.values.map(lkey));
    const gone = first.data.values.slice(0, 10);
    const r = await task(base, e, { type: 'delete', parameters: { uris: gone.map(v => `acme/${tn(v.type)}/${v.code}`) } });
    check(r.status >= 200 && r.status < 300, `delete task ${r.status} ${r.text}`);
    let page = first; const rest = [];
    for (let i = 0; i < 100 && page.data.scrollId && page.data.values.length; i++) {
      page = await nextPage(base, url, e, page.data.scrollId);
      check(page.status === 200, `continuation after a delete task: ${page.status}`);
      rest.push(...page.data.values);
    }
    const want = all.filter(v => !seen.has(lkey(v))).map(lkey).sort();
    const got = rest.map(lkey).sort();
    check(JSON.stringify(got) === JSON.stringify(want), `the scroll still yields every lookup it had not shown: ${got.length} of ${want.length}`);
  },
  async 'delete-type'({ base }) {
    const e = await token(base, 'editor');
    const before = await scan(base, LK('acme'), e, 'limit=1000');
    const by = countBy(before, v => tn(v.type));
    const r = await task(base, e, { type: 'delete', parameters: { type: 'rdm/lookupTypes/Country' } });
    check(r.status >= 200 && r.status < 300, `task ${r.status} ${r.text}`);
    const after = await eventually('Country lookups removed from a new scan', async () => {
      const a = await scan(base, LK('acme'), e, 'limit=1000');
      return a.every(v => tn(v.type) !== 'Country') && a;
    });
    const ab = countBy(after, v => tn(v.type));
    for (const [name, n] of Object.entries(by)) if (name !== 'Country') check(ab[name] === n, `type ${name} untouched: ${ab[name]} of ${n}`);
  },
  async 'delete-uris-persist'({ base }) {
    const e = await token(base, 'editor');
    const before = await scan(base, LK('acme'), e, 'limit=1000');
    const victims = [before[5], before[120], before[200]];
    const r = await task(base, e, { type: 'delete', parameters: { uris: victims.map(v => `acme/${tn(v.type)}/${v.code}`) } });
    check(r.status >= 200 && r.status < 300, `task ${r.status}`);
    const keys = new Set(victims.map(lkey));
    await eventually('listed lookups removed', async () => (await scan(base, LK('acme'), e, 'limit=1000')).every(v => !keys.has(lkey(v))));
    await sleep(3600);
    const later = await scan(base, LK('acme'), e, 'limit=1000');
    check(later.every(v => !keys.has(lkey(v))), 'deleted lookups stay deleted');
    check(later.length === before.length - 3, `only the listed lookups removed: ${before.length} -> ${later.length}`);
  },
  async 'delete-uris-foreign'({ base }) {
    const g = await token(base, 'otherAdmin');
    const gl = await scan(base, LK('globex'), g, 'limit=1000');
    const e = await token(base, 'editor');
    const victim = gl[3];
    await task(base, e, { type: 'delete', parameters: { uris: [`globex/${tn(victim.type)}/${victim.code}`] } });
    await sleep(1400); // lets an asynchronous task run before looking
    const after = await scan(base, LK('globex'), g, 'limit=1000');
    check(after.some(v => lkey(v) === lkey(victim)) && after.length === gl.length, 'an acme task must not delete a globex lookup');
  },
  async 'delete-all-and-roles'({ base }) {
    const v = await token(base, 'viewer');
    check((await task(base, v, { type: 'delete' })).status === 403, 'viewer may not delete');
    const e = await token(base, 'editor');
    check((await task(base, e, { type: 'delete' }, 'globex')).status === 403, 'acme editor may not delete globex');
    check((await call(base, 'POST', LK('globex'), { token: e })).status === 403, 'acme editor may not read globex');
    check((await task(base, e, { type: 'purge' })).status === 400, 'unknown task type 400');
    check((await task(base, e, { type: 'delete' })).status < 300, 'delete all');
    await eventually('all acme lookups removed', async () => (await scan(base, LK('acme'), e, 'limit=1000')).length === 0);
    check((await scan(base, LK('globex'), await token(base, 'otherAdmin'))).length > 0, 'globex untouched');
  },
  async 'stats-full-scan'({ base }) {
    const t = await token(base, 'viewer');
    const all = await scan(base, ST, t, 'limit=45', d => check(d.values.length <= 45, 'page above limit'));
    check(all.length >= 250 && new Set(all.map(skey)).size === all.length, `stats ${all.length}, no duplicates`);
    for (const s of ['LOOKUP_CREATED', 'MISSPELLED', 'AUTOMAPPED', 'MANUALLY_MAPPED']) check(all.some(v => v.status === s), `status ${s}`);
    for (const f of ['candidateLookupCode', 'candidateValue', 'mappedAt', 'mappedBy']) check(all.some(v => !(f in v)), `${f} absent on some`);
    check(all.some(v => typeof v.dcrId === 'string'), 'dcrId on some');
    for (const v of all) {
      for (const f of ['semanticScore', 'currentFrequency', 'requiredFrequency', 'createdAt', 'updateDate', 'aiConfidence', 'configVersion']) check(typeof v[f] === 'number', `${f} number`);
      check(typeof v.centroidMatch === 'boolean' && typeof v.sourceFrequency?.totalCount === 'number', 'centroidMatch / sourceFrequency');
    }
  },
  async 'stats-defaults'({ base }) {
    const t = await token(base, 'viewer');
    const r = await call(base, 'POST', ST, { token: t });
    check(r.status === 200 && r.data.values.length === 100 && r.data.scrollId, `default page size 100: ${r.data?.values?.length}`);
    const o = await call(base, 'POST', `${ST}?limit=101`, { token: t });
    check(o.status === 400 || (o.status === 200 && o.data.values.length <= 100), 'limit above 100');
  },
  async 'stats-type-scan'({ base }) {
    const t = await token(base, 'viewer');
    const all = await scan(base, ST, t, 'limit=100');
    for (const [name, n] of Object.entries(countBy(all, v => v.lookupType))) {
      const got = await scan(base, STT(name), t, 'limit=30');
      check(got.every(v => v.lookupType === name), `type scan ${name} limited to the type`);
      check(got.length === n, `type scan ${name}: ${got.length} of ${n}`);
      const bare = all.filter(v => v.lookupType === name && !('candidateLookupCode' in v)).length;
      check(got.filter(v => !('candidateLookupCode' in v)).length === bare, `type scan ${name} keeps the ${bare} records without candidateLookupCode`);
    }
  },
  async 'stats-sort-numeric'({ base }) {
    const t = await token(base, 'viewer');
    const total = (await scan(base, ST, t, 'limit=100')).length;
    const asc = await scan(base, ST, t, 'limit=50&sort=currentFrequency&order=asc');
    check(asc.length === total && ordered(asc, v => v.currentFrequency, false), 'currentFrequency ascending, numerically');
    const desc = await scan(base, ST, t, 'limit=50&sort=currentFrequency&order=desc');
    check(desc.length === total && ordered(desc, v => v.currentFrequency, true), 'currentFrequency descending, numerically');
  },
  async 'stats-sort-missing'({ base }) {
    const t = await token(base, 'viewer');
    const total = (await scan(base, ST, t, 'limit=100')).length;
    for (const f of ['mappedAt', 'candidateLookupCode']) {
      const got = await scan(base, ST, t, `limit=40&sort=${f}`);
      check(got.length === total, `sort=${f} keeps records without ${f}: ${got.length} of ${total}`);
      check(ordered(got, v => v[f], false), `sort=${f} orders the records that have it`);
    }
  },
  async 'blocked-offset-pages'({ base }) {
    const t = await token(base, 'viewer');
    const p0 = await call(base, 'GET', `${BV('Country')}?offset=0&limit=100`, { token: t });
    const p1 = await call(base, 'GET', `${BV('Country')}?offset=100&limit=100`, { token: t });
    check(p0.status === 200 && p0.data.length === 100, 'first page of 100');
    check(p1.status === 200 && p1.data.length > 50 && p1.data.length < 100, `second page holds the rest: ${p1.data?.length}`);
    check([...p0.data, ...p1.data].every(v => v.lookupType === 'rdm/lookupTypes/Country'), 'blocked values of the requested type only');
    const vals = [...p0.data, ...p1.data].map(v => v.value);
    check(new Set(vals).size === vals.length, 'offset pages do not overlap');
    const again = await call(base, 'GET', `${BV('Country')}?offset=0&limit=100`, { token: t });
    check(JSON.stringify(again.data) === JSON.stringify(p0.data), 'the same page twice');
    const end = await call(base, 'GET', `${BV('Country')}?offset=${vals.length}`, { token: t });
    check(end.status === 200 && end.data.length === 0, 'offset at the end: empty');
  },
  async 'blocked-defaults'({ base }) {
    const t = await token(base, 'viewer');
    const all = [...(await call(base, 'GET', `${BV('Country')}?offset=0&limit=100`, { token: t })).data, ...(await call(base, 'GET', `${BV('Country')}?offset=100&limit=100`, { token: t })).data];
    const d = await call(base, 'GET', BV('Country'), { token: t });
    check(d.status === 200 && JSON.stringify(d.data) === JSON.stringify(all.slice(0, 100)), 'no parameters: offset 0, limit 100');
    const o = await call(base, 'GET', `${BV('Country')}?offset=20`, { token: t });
    check(o.status === 200 && JSON.stringify(o.data) === JSON.stringify(all.slice(20, 120)), `offset=20 without limit: items 20..119 (got ${o.data?.length})`);
    const l = await call(base, 'GET', `${BV('Country')}?limit=5`, { token: t });
    check(JSON.stringify(l.data) === JSON.stringify(all.slice(0, 5)), 'limit=5 without offset: items 0..4');
    for (const k of ['Currency', 'Unit']) {
      const one = (await call(base, 'GET', `${BV(k)}?limit=1`, { token: t })).data[0];
      for (const f of ['tenantId', 'lookupType', 'value', 'createdAt', 'createdBy']) check(one && f in one, `${k} blocked value has ${f}`);
      check(one.lookupType === `rdm/lookupTypes/${k}`, `${k} blocked value lookupType is the type URI`);
    }
  },
  async 'config-then-scroll'({ base }) {
    const t = await token(base, 'viewer');
    const url = `${LK('acme')}?limit=30&sort=code`;
    const ref = await scan(base, LK('acme'), t, 'limit=30&sort=code');
    let r = await call(base, 'POST', url, { token: t });
    const got = [...r.data.values];
    const adm = await token(base, 'admin');
    check((await putCustomer(base, adm, acmeCustomer(undefined))).status < 300, 'customer PUT');
    await setValidity(base, adm, 'editor', 1800);
    for (let i = 0; i < 100 && r.data.scrollId && r.data.values.length; i++) {
      r = await nextPage(base, url, t, r.data.scrollId);
      check(r.status === 200, `continuation after a configuration change: ${r.status} ${r.text.slice(0, 120)}`);
      got.push(...r.data.values);
    }
    check(JSON.stringify(got.map(lkey)) === JSON.stringify(ref.map(lkey)), 'the scroll survives a configuration change');
  },
  async 'scroll-tenant-bound'({ base }) {
    const v = await token(base, 'viewer');
    const g = await token(base, 'otherAdmin');
    for (const [mine, theirs] of [[LK('acme'), LK('globex')], [ST, '/configuration/globex/autopilot/stats/_scan']]) {
      const r = await call(base, 'POST', `${mine}?limit=10`, { token: v });
      check(r.status === 200 && r.data.scrollId, 'acme scroll opened');
      const x = await call(base, 'POST', theirs, { token: g, json: { scrollId: r.data.scrollId } });
      check(x.status >= 400 || (x.data?.values || []).every(o => o.tenantId === 'globex'), `globex admin continuing an acme scrollId on ${theirs} must not get acme data`);
    }
  },
  async 'robustness'({ base }) {
    const t = await token(base, 'admin');
    check((await call(base, 'POST', `${LK('acme')}?limit=abc`, { token: t })).status === 400, 'bad limit');
    check((await call(base, 'POST', `${LK('acme')}?order=up`, { token: t })).status === 400, 'bad order');
    check((await call(base, 'POST', `${LK('acme')}?filter=${q('equals(type')}`, { token: t })).status === 400, 'bad filter');
    check((await call(base, 'POST', LK('acme'), { token: t, raw: 'nope' })).status >= 400, 'unknown scrollId');
    check((await call(base, 'POST', '/tasks/acme', { token: t, raw: '{x', headers: { 'Content-Type': 'application/json' } })).status === 400, 'garbage task');
    check((await call(base, 'GET', `${BV('Country')}?limit=0`, { token: t })).status === 400, 'blocked limit 0');
  },
};
const FAULT_CHECK = {
  'scan-cache-stale-after-delete': 'delete-type', 'scroll-skips-after-delete': 'scroll-after-delete',
  'scroll-evicts-at-three': 'scrolls-many-open', 'tie-order-unstable-across-pages': 'scan-ties-paging',
  'sort-within-page-only': 'lookup-sort-global', 'numeric-sort-as-text': 'stats-sort-numeric',
  'stats-sort-drops-missing': 'stats-sort-missing', 'type-scan-drops-uncandidated': 'stats-type-scan',
  'filter-page-empty-ends-scan': 'filter-paging', 'type-filter-needs-uri': 'filter-type-name',
  'blocked-order-drifts': 'blocked-offset-pages', 'blocked-page-overruns-type': 'blocked-offset-pages',
  'config-write-resets-scrolls': 'config-then-scroll', 'scroll-crosses-tenant': 'scroll-tenant-bound',
  'delete-resurrects-after-ttl': 'delete-uris-persist', 'delete-type-prefix-match': 'delete-type',
  'delete-uris-cross-tenant': 'delete-uris-foreign', 'blocked-limit-default-only-without-offset': 'blocked-defaults',
};

// ------------------------------------------------------------------------------------------ runner
let passed = 0, failed = 0;
function report(ok, label, msg = '') {
  if (ok) passed++; else failed++;
  console.log(`${ok ? 'PASS' : 'FAIL'} ${label}${msg ? ` :: ${msg}` : ''}`);
}
async function runCheck(env, name) {
  const s = await start(env);
  try { await CHECKS[name]({ base: s.base }); return s.err().includes('internal error') ? `server error: ${s.err()}` : null; } catch (e) { return e.message; } finally { await stop(s); }
}
const argv = process.argv.slice(2);
const opt = k => { const i = argv.indexOf(k); return i >= 0 ? argv[i + 1] : null; };
const only = opt('--only'), onlyFault = opt('--fault'), onlyVariant = opt('--variant');
const names = Object.keys(CHECKS).filter(n => !only || n === only);

if (argv.includes('--collateral')) {
  for (const f of faults.filter(x => !onlyFault || x.name === onlyFault)) {
    const broken = [];
    for (const n of names) if (await runCheck({ FAULT: f.name }, n)) broken.push(n);
    console.log(`${f.name}: breaks ${broken.join(', ') || 'nothing'}`);
  }
  process.exit(0);
}
if (!onlyFault && !argv.includes('--faults-only')) {
  const uf = await exitOf({ FAULT: 'no-such-fault' });
  report(uf.code === 2 && faults.every(f => uf.err.includes(f.name)), 'unknown FAULT exits 2 listing every fault');
  const uc = await exitOf({ CHOICES: 'no-such-choice' });
  report(uc.code === 2 && choices.every(c => uc.err.includes(c.name)), 'unknown CHOICES exits 2 listing every choice');
  for (const v of [null, ...choices.map(c => c.name)].filter(x => !onlyVariant || (x || 'correct') === onlyVariant)) {
    for (const n of names) {
      const err = await runCheck(v ? { CHOICES: v } : {}, n);
      report(!err, `${v || 'correct'} ${n}`, err || '');
    }
  }
}
for (const f of faults.filter(x => (!onlyFault || x.name === onlyFault) && !onlyVariant)) {
  const n = FAULT_CHECK[f.name];
  if (only && n !== only) continue;
  const err = await runCheck({ FAULT: f.name }, n);
  report(!!err, `FAULT=${f.name} shown by ${n}`, err ? `shown: ${err}` : 'fault NOT shown');
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
