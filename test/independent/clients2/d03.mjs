#!/usr/bin/env node
// autopilot-report: prints how many match statistics and blocked values a lookup type has. Node 20 built-ins.
// Style: one flat script with top-level await.
const { LCKIT_BASE_URL, LCKIT_RDM_URL, LCKIT_TOKEN_URL, LCKIT_CLIENT_ID, LCKIT_CLIENT_SECRET, LCKIT_TENANT, LCKIT_LOOKUP_TYPE } = process.env;
if (!LCKIT_BASE_URL || !LCKIT_RDM_URL || !LCKIT_TENANT || !LCKIT_LOOKUP_TYPE) {
  console.error('usage: set LCKIT_BASE_URL, LCKIT_RDM_URL, LCKIT_TENANT, LCKIT_LOOKUP_TYPE (and client credentials)');
  process.exit(2);
}
const BASE = LCKIT_BASE_URL.replace(/\/$/, '');
const RDM = LCKIT_RDM_URL.replace(/\/$/, '');
const T = encodeURIComponent(LCKIT_TENANT);
const LT = encodeURIComponent(LCKIT_LOOKUP_TYPE);

function die(msg) { console.error(msg); process.exit(1); }

// JSON, except /version, whose number may be unquoted ({"rdm-service": 2016.3.0.0.1}).
function parseBody(text) {
  try { return JSON.parse(text); } catch (err) {
    const m = /"rdm-service"\s*:\s*"?([0-9][0-9.]*)/.exec(text);
    if (m) return { 'rdm-service': m[1] };
    throw err;
  }
}

let tok = null;
async function authHeaders(renew = false) {
  if (renew || !tok || Date.now() > tok.until) {
    const tr = await fetch(LCKIT_TOKEN_URL || `${BASE}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: LCKIT_CLIENT_ID ?? '', client_secret: LCKIT_CLIENT_SECRET ?? '' }),
    });
    if (!tr.ok) die(`token: HTTP ${tr.status}`);
    const j = await tr.json();
    tok = { value: j.access_token, until: Date.now() + (Number(j.expires_in) || 3600) * 900 };
  }
  return { authorization: `Bearer ${tok.value}` };
}
// one retry with a fresh token when the service says the token expired
async function send(url, init) {
  let r = await fetch(url, { ...init, headers: { ...(await authHeaders()), ...init.headers } });
  if (r.status === 401) r = await fetch(url, { ...init, headers: { ...(await authHeaders(true)), ...init.headers } });
  return r;
}

let rawScroll = false; // scroll id as {"scrollId": ...}; the raw id if the service refuses that
async function post(url, scrollId) {
  for (;;) {
    let body, type;
    if (scrollId !== undefined) [body, type] = rawScroll ? [scrollId, 'text/plain'] : [JSON.stringify({ scrollId }), 'application/json'];
    const r = await send(url, { method: 'POST', headers: body === undefined ? {} : { 'content-type': type }, body });
    if (!r.ok && scrollId !== undefined && !rawScroll && [400, 415, 422].includes(r.status)) { rawScroll = true; continue; }
    if (!r.ok) die(`POST ${url}: HTTP ${r.status} ${await r.text()}`);
    return parseBody(await r.text());
  }
}
async function get(url) {
  const r = await send(url, { headers: {} });
  if (!r.ok) die(`GET ${url}: HTTP ${r.status} ${await r.text()}`);
  return parseBody(await r.text());
}
async function count(url) {
  let total = 0;
  let page = await post(url);
  for (let guard = 0; guard < 5000; guard++) {
    total += page.values?.length ?? 0;
    if (!page.scrollId || !page.values?.length) return total;
    page = await post(url, page.scrollId);
  }
  die(`${url}: too many pages`);
}

const version = await get(`${RDM}/version`);
const lookups = await count(`${RDM}/lookups/${T}/_scan?limit=100&filter=${encodeURIComponent(`equals(type,'${LCKIT_LOOKUP_TYPE}')`)}`);
const statsAll = await count(`${BASE}/configuration/${T}/autopilot/stats/_scan?limit=100`);
const statsOfType = await count(`${BASE}/configuration/${T}/autopilot/${LT}/stats/_scan?limit=100`);
let blocked = 0;
for (;;) {
  const page = await get(`${BASE}/configuration/${T}/autopilot/${LT}/blockedValues?offset=${blocked}&limit=100`);
  blocked += page.length;
  if (page.length < 100) break;
}
console.log(JSON.stringify({ version: version['rdm-service'], lookups, statsAll, statsOfType, blocked }));
