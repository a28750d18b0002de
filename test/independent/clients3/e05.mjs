#!/usr/bin/env node
// Lookup export job (master-data team). Node 20, built-ins only.
// Exports every lookup of one type (and counts the whole tenant) as JSON lines on stdout.
// Choices where the interface leaves room:
// - the token is requested with the client credentials as form fields in the body (RFC 6749 2.3.1);
//   HTTP Basic is used only if the token endpoint refuses that;
// - the token is renewed only when the service says it expired (401), not ahead of time;
// - the next scan page is requested with the raw scroll id as the body, {"scrollId": ...} if refused;
// - type scan: limit 33, sorted by updateDate asc; tenant scan: no query parameters at all.
const env = process.env;
process.on('uncaughtException', (e) => {
  console.error(`e05: ${e.message}`);
  process.exit(1);
});
function need(name) {
  const v = env[name];
  if (!v) {
    console.error(`e05: environment variable ${name} is not set; set it to run the export`);
    process.exit(2);
  }
  return v;
}
const RDM = need('LCKIT_RDM_URL').replace(/\/+$/, '');
const TOKEN_URL = need('LCKIT_TOKEN_URL');
const CLIENT_ID = need('LCKIT_CLIENT_ID');
const CLIENT_SECRET = need('LCKIT_CLIENT_SECRET');
const TENANT = need('LCKIT_TENANT');
const TYPE = need('LCKIT_LOOKUP_TYPE');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let useBasic = false;
let token = null;
let sendRaw = true; // until the service refuses the raw id once

async function requestToken() {
  for (let attempt = 0; ; attempt++) {
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    const headers = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (useBasic) headers.authorization = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`;
    else {
      form.set('client_id', CLIENT_ID);
      form.set('client_secret', CLIENT_SECRET);
    }
    const res = await fetch(TOKEN_URL, { method: 'POST', headers, body: form.toString() });
    const text = await res.text();
    if (res.ok) {
      const j = JSON.parse(text);
      if (!j.access_token) throw new Error(`token response has no access_token: ${text.slice(0, 200)}`);
      token = j.access_token;
      return token;
    }
    if ((res.status === 400 || res.status === 401) && !useBasic) {
      useBasic = true; // this deployment wants Basic client authentication
      continue;
    }
    if (res.status === 429 && attempt < 6) {
      // quota of active tokens reached (or a burst limit): wait for one to expire
      const ra = Number(res.headers.get('retry-after'));
      await sleep((ra > 0 ? ra : 2 ** attempt) * 1000);
      continue;
    }
    throw new Error(`token request failed: HTTP ${res.status} ${text.slice(0, 200)}`);
  }
}

async function call(url, body, contentType) {
  if (!token) await requestToken();
  for (let attempt = 0; ; attempt++) {
    const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = contentType;
    const res = await fetch(url, { method: 'POST', headers, body });
    const text = await res.text();
    if (res.status === 401 && attempt === 0) {
      await requestToken();
      continue;
    }
    if (res.status === 429 && attempt < 5) {
      const ra = Number(res.headers.get('retry-after'));
      await sleep((ra > 0 ? ra : 1 + attempt) * 1000);
      continue;
    }
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: res.status, json, text };
  }
}

async function scanAll(url) {
  const out = [];
  let res = await call(url);
  for (;;) {
    if (res.status !== 200 || !res.json) throw new Error(`scan ${url} failed: HTTP ${res.status} ${res.text.slice(0, 200)}`);
    const values = Array.isArray(res.json.values) ? res.json.values : [];
    out.push(...values);
    const sid = res.json.scrollId;
    if (typeof sid !== 'string' || sid === '' || values.length === 0) return out;
    res = sendRaw ? await call(url, sid, 'text/plain') : await call(url, JSON.stringify({ scrollId: sid }), 'application/json');
    if (res.status === 400 && sendRaw) {
      sendRaw = false;
      res = await call(url, JSON.stringify({ scrollId: sid }), 'application/json');
    }
  }
}

const t = encodeURIComponent(TENANT);
const q = new URLSearchParams({ filter: `equals(type,'${TYPE}')`, limit: '33', sort: 'updateDate', order: 'asc' });
const ofType = await scanAll(`${RDM}/lookups/${t}/_scan?${q}`);
const all = await scanAll(`${RDM}/lookups/${t}/_scan`);
const seen = new Set();
for (const l of ofType) {
  if (seen.has(l.code)) continue;
  seen.add(l.code);
  process.stdout.write(`${JSON.stringify({ code: l.code, enabled: l.enabled, updateDate: l.updateDate })}\n`);
}
console.error(`e05: exported ${seen.size} lookups of ${TYPE}; tenant holds ${all.length}`);
if (seen.size === 0) {
  console.error(`e05: no lookups of type ${TYPE} found`);
  process.exit(1);
}
