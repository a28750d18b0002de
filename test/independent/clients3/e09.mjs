#!/usr/bin/env node
// Lookup retirement job (master-data team). Node 20, built-ins only.
// Retires the three lookups of one type that were updated longest ago, with one delete task, then
// re-reads the type until they are gone (the deletion runs asynchronously).
const JOB = 'e09';
const env = process.env;
process.on('uncaughtException', (e) => {
  console.error(`${JOB}: ${e.message}`);
  process.exit(1);
});
function need(name) {
  const v = env[name];
  if (!v) {
    console.error(`${JOB}: environment variable ${name} is not set`);
    process.exit(2);
  }
  return v;
}
const BASE = need('LCKIT_BASE_URL').replace(/\/+$/, '');
const RDM = need('LCKIT_RDM_URL').replace(/\/+$/, '');
const TOKEN_URL = need('LCKIT_TOKEN_URL');
const BASIC = Buffer.from(`${need('LCKIT_CLIENT_ID')}:${need('LCKIT_CLIENT_SECRET')}`).toString('base64');
const TENANT = need('LCKIT_TENANT');
const TYPE = need('LCKIT_LOOKUP_TYPE');
const T = encodeURIComponent(TENANT);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let token = null;
let renewAt = 0;

async function newToken() {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(TOKEN_URL, {
      method: 'POST',
      headers: { authorization: `Basic ${BASIC}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: 'grant_type=client_credentials',
    });
    const text = await res.text();
    if (res.ok) {
      const j = JSON.parse(text);
      const ttl = Number(j.expires_in) > 0 ? Number(j.expires_in) : 3600;
      token = j.access_token;
      renewAt = Date.now() + ttl * 800; // renew after 80% of the lifetime
      return;
    }
    if (res.status === 429 && attempt < 6) {
      // active-token quota reached (or a burst limit): wait for a token to expire, then ask again
      const ra = Number(res.headers.get('retry-after'));
      await sleep((ra > 0 ? ra : 2 ** attempt) * 1000);
      continue;
    }
    throw new Error(`token request failed: HTTP ${res.status} ${text.slice(0, 200)}`);
  }
}

async function call(method, url, body) {
  let renewed = false;
  for (let attempt = 0; ; attempt++) {
    if (!token || Date.now() >= renewAt) await newToken();
    const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(url, { method, headers, body });
    const text = await res.text();
    if (res.status === 401 && !renewed) {
      renewed = true;
      await newToken();
      continue;
    }
    if (res.status === 429 && attempt < 5) {
      const ra = Number(res.headers.get('retry-after'));
      await sleep((ra > 0 ? ra : 1 + attempt) * 1000);
      continue;
    }
    return { status: res.status, text };
  }
}

function parse(r, what) {
  if (r.status < 200 || r.status > 299) throw new Error(`${what}: HTTP ${r.status} ${r.text.slice(0, 200)}`);
  try {
    return r.text ? JSON.parse(r.text) : null;
  } catch {
    throw new Error(`${what}: response is not JSON: ${r.text.slice(0, 200)}`);
  }
}

let rawScroll = false; // some deployments take the bare scroll id instead of {"scrollId": ...}

async function scan(url, what) {
  const rows = [];
  let page = parse(await call('POST', url), what);
  for (;;) {
    const values = Array.isArray(page?.values) ? page.values : [];
    rows.push(...values);
    const sid = page?.scrollId;
    if (typeof sid !== 'string' || sid === '' || values.length === 0) return rows;
    let r = await call('POST', url, rawScroll ? sid : JSON.stringify({ scrollId: sid }));
    if (r.status === 400 && !rawScroll) {
      rawScroll = true;
      r = await call('POST', url, sid);
    }
    page = parse(r, what);
  }
}

const RETIRE = 3;
const url = `${RDM}/lookups/${T}/_scan?${new URLSearchParams({ filter: `equals(type,'${TYPE}')`, limit: '100' })}`;
const rows = await scan(url, 'lookup scan');
if (rows.length === 0) {
  console.error(`${JOB}: no lookups of type ${TYPE}`);
  process.exit(1);
}
const victims = rows
  .slice()
  .sort((a, b) => (Number(a.updateDate) || 0) - (Number(b.updateDate) || 0) || String(a.code).localeCompare(String(b.code)))
  .slice(0, RETIRE);
// a lookup is addressed by its type URI and its code, as in the lookups' parents
const uris = victims.map((l) => `${l.type || `rdm/lookupTypes/${TYPE}`}/${l.code}`);
const r = await call('POST', `${RDM}/tasks/${T}`, JSON.stringify({ type: 'delete', parameters: { uris } }));
if (r.status === 401 || r.status === 403) {
  console.log(`${JOB}: this client may not delete lookups (HTTP ${r.status}); dry run only: would retire ${uris.join(', ')}`);
  process.exit(0);
}
parse(r, 'delete task');
console.log(`${JOB}: delete task accepted for ${uris.join(', ')}`);
const codes = new Set(victims.map((l) => l.code));
for (let i = 0; i < 10; i++) {
  const left = (await scan(url, 'lookup re-read')).filter((l) => codes.has(l.code));
  if (left.length === 0) {
    console.log(`${JOB}: retired ${codes.size} lookups of ${TYPE}`);
    process.exit(0);
  }
  await sleep(1000);
}
console.log(`${JOB}: the task was accepted but the lookups are still listed; the deletion may still be running`);
