#!/usr/bin/env node
// Blocked-values report (data stewards). Node 20, built-ins only.
// Lists the blocked values of every lookup type that has lookups in the tenant, one JSON line per type.
const JOB = 'e03';
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

async function blockedValues(lookupType) {
  const rows = [];
  for (let offset = 0; ; ) {
    const r = await call('GET', `${BASE}/configuration/${T}/autopilot/${lookupType}/blockedValues?offset=${offset}&limit=50`);
    if (r.status === 404) return null; // no autopilot configuration for this type
    const page = parse(r, `blocked values of ${lookupType}`);
    if (!Array.isArray(page) || page.length === 0) return rows;
    rows.push(...page);
    offset += page.length;
    if (page.length < 50) return rows;
  }
}

const lookups = await scan(`${RDM}/lookups/${T}/_scan?limit=100`, 'lookup scan');
// the types as the lookups name them
const types = [...new Set(lookups.map((l) => l.type).filter(Boolean))].sort();
if (types.length === 0) {
  console.error(`${JOB}: the tenant has no lookups`);
  process.exit(1);
}
for (const type of types) {
  const rows = await blockedValues(type);
  console.log(JSON.stringify({ type, configured: rows !== null, blocked: rows ? rows.map((b) => b.value) : [] }));
}
