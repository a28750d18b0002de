// Autopilot backlog watcher (operations team). Samples the tenant's autopilot statistics a few times
// in a row and reports how the status counts move between samples; in production it runs for hours
// with a longer interval, here three samples close together. One cached token, renewed when its
// lifetime from expires_in has run out.
import { setTimeout as sleep } from 'node:timers/promises';

const E = process.env;
const SAMPLES = 3;
const INTERVAL_MS = 700;

class TokenCache {
  constructor(url, id, secret) {
    this.url = url;
    this.basic = Buffer.from(`${id}:${secret}`).toString('base64');
    this.value = null;
    this.expiresAt = 0;
  }

  valid() {
    return this.value !== null && Date.now() / 1000 < this.expiresAt;
  }

  async get() {
    if (this.valid()) return this.value;
    const res = await fetch(this.url, {
      method: 'POST',
      headers: { Authorization: `Basic ${this.basic}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
      signal: AbortSignal.timeout(4000),
    });
    if (!res.ok) throw new Error(`token: HTTP ${res.status} ${await res.text()}`);
    const doc = await res.json();
    this.value = doc.access_token;
    this.expiresAt = Date.now() + Number(doc.expires_in ?? 0) * 1000 - 5000; // 5 s safety margin
    return this.value;
  }
}

const tokens = new TokenCache(E.LCKIT_TOKEN_URL, E.LCKIT_CLIENT_ID, E.LCKIT_CLIENT_SECRET);

async function scanPage(url, scrollId) {
  const headers = { Authorization: `Bearer ${await tokens.get()}`, Accept: 'application/json' };
  const init = { method: 'POST', headers, signal: AbortSignal.timeout(5000) };
  if (scrollId) { headers['Content-Type'] = 'application/json'; init.body = JSON.stringify({ scrollId }); }
  for (let tries = 0; tries < 3; tries++) {
    const res = await fetch(url, init);
    if (res.status === 429) { await sleep(Math.min(Number(res.headers.get('retry-after')) || 1, 2) * 1000); continue; }
    if (!res.ok) throw new Error(`${url}: HTTP ${res.status} ${await res.text()}`);
    return res.json();
  }
  throw new Error(`${url}: still rate limited`);
}

async function sample() {
  const url = `${E.LCKIT_BASE_URL}/configuration/${encodeURIComponent(E.LCKIT_TENANT)}/autopilot/stats/_scan?limit=100`;
  const counts = {};
  let scrollId = null;
  for (let page = 0; page < 500; page++) {
    const body = await scanPage(url, scrollId);
    for (const s of body.values ?? []) counts[s.status] = (counts[s.status] ?? 0) + 1;
    if (!body.scrollId || !(body.values ?? []).length) break;
    scrollId = body.scrollId;
  }
  return counts;
}

let previous = null;
for (let i = 0; i < SAMPLES; i++) {
  if (i > 0) await sleep(INTERVAL_MS);
  const now = await sample();
  const line = Object.keys(now).sort().map((k) => {
    const d = previous ? now[k] - (previous[k] ?? 0) : 0;
    return `${k}=${now[k]}${d ? (d > 0 ? ` (+${d})` : ` (${d})`) : ''}`;
  }).join(' ');
  console.log(`sample ${i + 1}: ${line}`);
  previous = now;
}
