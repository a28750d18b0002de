#!/usr/bin/env node
// Reference-data dashboard feed (operations team). Node 20, built-ins only.
// Gathers everything the dashboard shows at once: service health, the lookups of one type read in both
// directions (a consistency check: both must hold the same codes), the autopilot statistics across all
// types and for the type, and the type's blocked values.
// Choices where the interface leaves room:
// - all of it runs concurrently (Promise.all), two scans of the same lookup endpoint at the same time,
//   each with its own scroll; one token shared by all, requested once even when many calls need it;
// - the token is renewed once two thirds of its lifetime have passed (or on a 401);
// - page size 100 everywhere (the documented maximum), blocked values paged with limit 1 (small lists);
// - a scan ends when a response has no scrollId or an empty values array.
const env = process.env;
process.on('uncaughtException', (e) => {
  console.error(`e11: ${e.message}`);
  process.exit(1);
});
function need(name) {
  const v = env[name];
  if (!v) {
    console.error(`e11: environment variable ${name} is not set`);
    process.exit(2);
  }
  return v;
}
const BASE = need('LCKIT_BASE_URL').replace(/\/+$/, '');
const RDM = need('LCKIT_RDM_URL').replace(/\/+$/, '');
const TOKEN_URL = need('LCKIT_TOKEN_URL');
const BASIC = Buffer.from(`${need('LCKIT_CLIENT_ID')}:${need('LCKIT_CLIENT_SECRET')}`).toString('base64');
const TENANT = encodeURIComponent(need('LCKIT_TENANT'));
const TYPE = need('LCKIT_LOOKUP_TYPE');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let tokenPromise = null; // single flight: concurrent callers share one token request
let tokenRenewAt = 0;

async function issueToken() {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(TOKEN_URL, {
      method: 'POST',
      headers: { authorization: `Basic ${BASIC}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    const text = await res.text();
    if (res.ok) {
      const j = JSON.parse(text);
      const ttl = Number(j.expires_in) > 0 ? Number(j.expires_in) : 3600;
      tokenRenewAt = Date.now() + (ttl * 1000 * 2) / 3;
      return j.access_token;
    }
    if (res.status === 429 && attempt < 6) {
      const ra = Number(res.headers.get('retry-after'));
      await sleep((ra > 0 ? ra : 2 ** attempt) * 1000);
      continue;
    }
    throw new Error(`token request failed: HTTP ${res.status} ${text.slice(0, 200)}`);
  }
}

function token(stale) {
  if (!tokenPromise || Date.now() >= tokenRenewAt || (stale && tokenPromise.value === stale)) {
    tokenRenewAt = Number.POSITIVE_INFINITY; // in flight: later callers wait for this one
    const p = issueToken();
    p.then((v) => (p.value = v)).catch(() => (tokenRenewAt = 0));
    tokenPromise = p;
  }
  return tokenPromise;
}

async function call(method, url, body) {
  let tried401 = false;
  for (let attempt = 0; ; attempt++) {
    const tk = await token();
    const headers = { authorization: `Bearer ${tk}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(url, { method, headers, body });
    const text = await res.text();
    if (res.status === 401 && !tried401) {
      tried401 = true;
      await token(tk); // renew unless another call already did
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

function json(r, what) {
  if (r.status !== 200) throw new Error(`${what}: HTTP ${r.status} ${r.text.slice(0, 200)}`);
  try {
    return JSON.parse(r.text);
  } catch {
    throw new Error(`${what}: response is not JSON: ${r.text.slice(0, 200)}`);
  }
}

async function scan(url, what) {
  const rows = [];
  let page = json(await call('POST', url), what);
  let asObject = true;
  for (;;) {
    const values = Array.isArray(page.values) ? page.values : [];
    rows.push(...values);
    if (typeof page.scrollId !== 'string' || !page.scrollId || values.length === 0) return rows;
    let r = await call('POST', url, asObject ? JSON.stringify({ scrollId: page.scrollId }) : page.scrollId);
    if (r.status === 400 && asObject) {
      asObject = false;
      r = await call('POST', url, page.scrollId);
    }
    page = json(r, what);
  }
}

async function health() {
  const out = {};
  await Promise.all(
    ['healthcheck', 'status', 'version'].map(async (p) => {
      const r = await call('GET', `${RDM}/${p}`);
      if (r.status !== 200) throw new Error(`${p}: HTTP ${r.status}`);
      // the version may come unquoted (not valid JSON): read it as text
      const m = p === 'version' ? r.text.match(/"rdm-service"\s*:\s*"?([0-9][0-9.]*)/) : r.text.match(/"status"\s*:\s*"([^"]*)"/);
      out[p] = m ? m[1] : r.text.slice(0, 40);
    }),
  );
  return out;
}

async function blocked() {
  const rows = [];
  for (let offset = 0; ; offset += 1) {
    const page = json(await call('GET', `${BASE}/configuration/${TENANT}/autopilot/${encodeURIComponent(TYPE)}/blockedValues?offset=${offset}&limit=1`), 'blockedValues');
    if (!Array.isArray(page) || page.length === 0) return rows;
    rows.push(...page);
    if (rows.length > 10000) throw new Error('blockedValues: more than 10000 rows, stopping');
  }
}

const filter = encodeURIComponent(`equals(type,'${TYPE}')`);
const lk = `${RDM}/lookups/${TENANT}/_scan?filter=${filter}&limit=100&sort=code`;
const [h, up, down, all, ofType, bv] = await Promise.all([
  health(),
  scan(`${lk}&order=asc`, 'lookups asc'),
  scan(`${lk}&order=desc`, 'lookups desc'),
  scan(`${BASE}/configuration/${TENANT}/autopilot/stats/_scan?limit=100`, 'autopilot stats'),
  scan(`${BASE}/configuration/${TENANT}/autopilot/stats/${encodeURIComponent(TYPE)}/_scan?limit=100`, 'autopilot stats of type'),
  blocked(),
]);
const a = new Set(up.map((l) => l.code));
const b = new Set(down.map((l) => l.code));
const same = a.size === b.size && [...a].every((c) => b.has(c));
const byStatus = {};
for (const s of all) byStatus[s.status] = (byStatus[s.status] || 0) + 1;
console.log(JSON.stringify({ health: h, lookups: a.size, consistent: same, autopilot: all.length, autopilotOfType: ofType.length, byStatus, blockedValues: bv.length }));
if (!same) {
  console.error('e11: the two reading directions disagree on the codes of the type');
  process.exit(1);
}
