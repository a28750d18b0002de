#!/usr/bin/env node
// Consistency checker (QA team): reads each scan twice and reports whether the two passes agree.
// One Scanner object per endpoint, reused for both passes. Node 20 built-ins only.
const env = process.env;
const need = ['LCKIT_BASE_URL', 'LCKIT_RDM_URL', 'LCKIT_TENANT', 'LCKIT_LOOKUP_TYPE'].filter((k) => !env[k]);
if (need.length) { console.error(`missing ${need.join(', ')}`); process.exit(2); }
const base = env.LCKIT_BASE_URL.replace(/\/+$/, '');
const rdm = env.LCKIT_RDM_URL.replace(/\/+$/, '');
const tenant = encodeURIComponent(env.LCKIT_TENANT);
const type = env.LCKIT_LOOKUP_TYPE;

let accessToken = null;
let tokenExpiry = 0;
async function getToken() {
  if (accessToken && Date.now() < tokenExpiry) return accessToken;
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  const r = await fetch(env.LCKIT_TOKEN_URL || `${base}/oauth/token`, {
    method: 'POST',
    headers: { Authorization: `Basic ${btoa(`${env.LCKIT_CLIENT_ID ?? ''}:${env.LCKIT_CLIENT_SECRET ?? ''}`)}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  if (!r.ok) throw new Error(`token: ${r.status}`);
  const j = await r.json();
  accessToken = j.access_token;
  tokenExpiry = Date.now() + 900 * (Number(j.expires_in) || 3600);
  return accessToken;
}

let rawScroll = false; // {"scrollId": ...} first; the raw id as text if the service refuses that

class Scanner {
  constructor(url) { this.url = url; this.scrollId = null; }
  async page(sid, renewed = false) {
    const headers = { Authorization: `Bearer ${await getToken()}` };
    let body;
    if (sid !== undefined) {
      headers['Content-Type'] = rawScroll ? 'text/plain' : 'application/json';
      body = rawScroll ? sid : JSON.stringify({ scrollId: sid });
    }
    const r = await fetch(this.url, { method: 'POST', headers, body });
    if (r.status === 401 && !renewed) { accessToken = null; return this.page(sid, true); }
    if (!r.ok && sid !== undefined && !rawScroll && [400, 415, 422].includes(r.status)) {
      rawScroll = true;
      return this.page(sid);
    }
    if (!r.ok) throw new Error(`POST ${this.url}: ${r.status} ${(await r.text()).slice(0, 160)}`);
    return r.json();
  }
  async readAll() {
    const keys = [];
    let res = await this.page(this.scrollId ?? undefined);
    for (let guard = 0; guard < 5000; guard++) {
      const values = res.values ?? [];
      for (const v of values) keys.push(JSON.stringify([v.code ?? v.unmappedValue, v.type ?? v.lookupType, v.source]));
      if (res.scrollId) this.scrollId = res.scrollId;
      if (!res.scrollId || values.length === 0) return keys;
      res = await this.page(this.scrollId);
    }
    throw new Error(`${this.url} never ends`);
  }
}

const scanners = {
  lookupsOfType: new Scanner(`${rdm}/lookups/${tenant}/_scan?limit=100&sort=code&order=asc&filter=${encodeURIComponent(`equals(type,'${type}')`)}`),
  statsAll: new Scanner(`${base}/configuration/${tenant}/autopilot/stats/_scan?limit=100`),
  statsOfType: new Scanner(`${base}/configuration/${tenant}/autopilot/stats/${encodeURIComponent(type)}/_scan?limit=100`),
};

try {
  const report = {};
  for (const [name, s] of Object.entries(scanners)) {
    const first = await s.readAll();
    const second = await s.readAll();
    const a = new Set(first), b = new Set(second);
    report[name] = { first: first.length, second: second.length, agree: a.size === b.size && [...a].every((k) => b.has(k)) };
  }
  console.log(JSON.stringify(report));
} catch (e) {
  console.error(`check failed: ${e.message}`);
  process.exit(1);
}
