#!/usr/bin/env node
// Reference-data audit job (platform team). Node 20, built-ins only.
// Reads the four scans concurrently (each keeps its own scroll), then the blocked values.
const env = process.env;
const trim = (s) => String(s || '').replace(/\/+$/, '');
const base = trim(env.LCKIT_BASE_URL);
const rdm = trim(env.LCKIT_RDM_URL);
const tokenUrl = env.LCKIT_TOKEN_URL || `${base}/oauth/token`;
const tenant = env.LCKIT_TENANT;
const lookupType = env.LCKIT_LOOKUP_TYPE;
const e = encodeURIComponent;

let token; // { value, until }
let tokenCalls = 0;
let pending; // one token request in flight, shared by the concurrent scans

async function newToken() {
  tokenCalls++;
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${env.LCKIT_CLIENT_ID}:${env.LCKIT_CLIENT_SECRET}`).toString('base64')}`,
      'Content-Type': 'application/x-www-form-urlencoded',
      Accept: 'application/json',
    },
    body: 'grant_type=client_credentials',
  });
  if (!res.ok) throw new Error(`token endpoint answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  const j = await res.json();
  const ttl = Number(j.expires_in) > 0 ? Number(j.expires_in) : 3600;
  return { value: j.access_token, until: Date.now() + ttl * 1000 - Math.min(5000, ttl * 100) }; // renew a little early
}

async function bearer(stale) {
  if (stale && token && token.value === stale) token = undefined;
  if (!token || Date.now() >= token.until) {
    pending ??= newToken().finally(() => { pending = undefined; });
    token = await pending;
  }
  return token.value;
}

async function call(method, url, body, type = 'application/json') {
  let used;
  for (let attempt = 0; attempt < 2; attempt++) {
    used = await bearer(attempt ? used : undefined);
    const res = await fetch(url, {
      method,
      headers: { Authorization: `Bearer ${used}`, Accept: 'application/json', ...(body !== undefined && { 'Content-Type': type }) },
      body,
    });
    if (res.status === 401 && attempt === 0) continue; // expired: one fresh token, one retry
    const text = await res.text();
    if (!res.ok) { const e = new Error(`${method} ${url} answered ${res.status}: ${text.slice(0, 200)}`); e.status = res.status; throw e; }
    return text ? parse(text) : null;
  }
}

// /version may hold the number unquoted ({"rdm-service": 2016.3.0.0.1}), which is not JSON.
function parse(text) {
  try { return JSON.parse(text); } catch (err) {
    const m = /"rdm-service"\s*:\s*"?([0-9][0-9.]*)/.exec(text);
    if (m) return { 'rdm-service': m[1] };
    throw err;
  }
}

const qs = (o) => new URLSearchParams(Object.entries(o).filter(([, v]) => v !== undefined)).toString();

// First page: explicit JSON null body; later pages: {"scrollId": ...}, or the raw id if the service refuses that
// (the document leaves the encoding open). Stops when no scrollId or an empty page.
let rawScroll = false;
async function scan(url) {
  let n = 0, scrollId = null, pages = 0;
  for (;;) {
    let page;
    const sentRaw = rawScroll; // the scans run concurrently: judge the encoding this request used
    try {
      if (scrollId === null) page = await call('POST', url, 'null');
      else if (rawScroll) page = await call('POST', url, scrollId, 'text/plain');
      else page = await call('POST', url, JSON.stringify({ scrollId }));
    } catch (err) {
      if (scrollId === null || sentRaw || ![400, 415, 422].includes(err.status)) throw err;
      rawScroll = true;
      continue;
    }
    const values = Array.isArray(page?.values) ? page.values : [];
    n += values.length;
    if (++pages > 10000) throw new Error(`scan ${url} never ends`);
    if (!page?.scrollId || values.length === 0) return n;
    scrollId = page.scrollId;
  }
}

async function blocked() {
  const url = `${base}/configuration/${e(tenant)}/autopilot/${e(lookupType)}/blockedValues`;
  let offset = 0;
  for (;;) {
    const list = await call('GET', `${url}?${qs({ offset, limit: 100 })}`);
    if (!Array.isArray(list)) throw new Error('blockedValues did not return an array');
    offset += list.length;
    if (list.length < 100) return offset;
  }
}

async function main() {
  if (!base || !rdm || !tenant || !lookupType) throw new Error('set LCKIT_BASE_URL, LCKIT_RDM_URL, LCKIT_TENANT and LCKIT_LOOKUP_TYPE');
  const [health, status, version] = await Promise.all(['healthcheck', 'status', 'version'].map((p) => call('GET', `${rdm}/${p}`)));
  const lookups = `${rdm}/lookups/${e(tenant)}/_scan`;
  const stats = `${base}/configuration/${e(tenant)}/autopilot/stats`;
  const [ofType, all, statsAll, statsOfType] = await Promise.all([
    scan(`${lookups}?${qs({ filter: `equals(type,'${lookupType}')`, limit: 40, sort: 'updateDate', order: 'desc' })}`),
    scan(`${lookups}?${qs({ limit: 40 })}`),
    scan(`${stats}/_scan?${qs({ limit: 60, sort: 'createdAt', order: 'asc' })}`),
    scan(`${stats}/${e(lookupType)}/_scan?${qs({ limit: 60 })}`),
  ]);
  const blockedValues = await blocked();
  console.log(JSON.stringify({ health: health?.status, status: status?.status, version: version?.['rdm-service'], ofType, all, statsAll, statsOfType, blockedValues, tokenCalls }));
}

main().catch((err) => { console.error(`audit failed: ${err.message}`); process.exit(1); });
