#!/usr/bin/env node
// Recently changed lookups digest (data stewards). Node 20, built-ins only.
// Prints the 20 lookups of one type that changed last, newest first, for the weekly review mail.
const JOB = 'e07';
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

const q = new URLSearchParams({ filter: `equals(type,'${TYPE}')`, sort: 'updateDate', order: 'descending', limit: '50' });
const rows = await scan(`${RDM}/lookups/${T}/_scan?${q}`, 'lookup scan');
if (rows.length === 0) {
  console.error(`${JOB}: no lookups of type ${TYPE}`);
  process.exit(1);
}
for (const l of rows.slice(0, 20)) {
  console.log(`${new Date(Number(l.updateDate) || 0).toISOString()}  ${l.code}  by ${l.updatedBy || '?'}`);
}
console.log(`${JOB}: ${rows.length} lookups of ${TYPE} read`);
