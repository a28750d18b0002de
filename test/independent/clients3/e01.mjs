#!/usr/bin/env node
// Lookup cache refresh (integration team). Node 20, built-ins only.
// Refreshes the local cache file of one lookup type (code -> value) that the integration layer reads.
const JOB = 'e01';
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

async function scan(url, what) {
  const rows = [];
  const seen = new Set();
  let page = parse(await call('POST', url), what);
  for (;;) {
    const values = Array.isArray(page?.values) ? page.values : [];
    const fresh = values.filter((v) => !seen.has(v.code));
    for (const v of fresh) seen.add(v.code);
    rows.push(...fresh);
    const sid = page?.scrollId;
    // a page that brings nothing new means we are done (guards against a cursor that does not move)
    if (typeof sid !== 'string' || sid === '' || values.length === 0 || fresh.length === 0) return rows;
    // the cursor goes along with the other scan parameters
    page = parse(await call('POST', `${url}&scrollId=${encodeURIComponent(sid)}`), what);
  }
}

const fs = await import('node:fs');
const os = await import('node:os');
const path = await import('node:path');
const q = new URLSearchParams({ filter: `equals(type,'${TYPE}')`, sort: 'code', order: 'asc', limit: '100' });
const rows = await scan(`${RDM}/lookups/${T}/_scan?${q}`, 'lookup scan');
const cache = {};
for (const l of rows) {
  const canonical = (l.sourceMappings || []).flatMap((m) => m.values || []).find((v) => v.canonicalValue);
  cache[l.code] = canonical ? canonical.value : l.code;
}
const file = path.join(os.tmpdir(), `lookup-cache-${TENANT}-${TYPE}.json`);
fs.writeFileSync(file, JSON.stringify(cache));
console.log(`${JOB}: cached ${rows.length} lookups of ${TYPE} in ${file}`);
if (rows.length === 0) process.exit(1);
