#!/usr/bin/env node
// Sync worker (integration team): pulls lookups and autopilot statistics in round-robin batches so that
// no single feed starves the others. Node 20, built-ins only.
import { Buffer } from 'node:buffer';

let scrollAsObject = false; // raw id as text first; {"scrollId": ...} if the service refuses that

class RdmSession {
  constructor(env) {
    for (const k of ['LCKIT_BASE_URL', 'LCKIT_RDM_URL', 'LCKIT_TENANT', 'LCKIT_LOOKUP_TYPE']) {
      if (!env[k]) throw new Error(`${k} is missing from the environment`);
    }
    this.base = env.LCKIT_BASE_URL.replace(/\/+$/, '');
    this.rdm = env.LCKIT_RDM_URL.replace(/\/+$/, '');
    this.tokenUrl = env.LCKIT_TOKEN_URL || `${this.base}/oauth/token`;
    this.creds = Buffer.from(`${env.LCKIT_CLIENT_ID ?? ''}:${env.LCKIT_CLIENT_SECRET ?? ''}`).toString('base64');
    this.tenant = env.LCKIT_TENANT;
    this.type = env.LCKIT_LOOKUP_TYPE;
    this.token = null;
    this.expiresAt = 0;
    this.scrollId = null; // continuation of "the" scan
    this.calls = 0;
  }

  async bearer() {
    if (!this.token || Date.now() > this.expiresAt) {
      const r = await fetch(`${this.tokenUrl}?grant_type=client_credentials`, { method: 'POST', headers: { Authorization: `Basic ${this.creds}` } });
      if (!r.ok) throw new Error(`token request refused: ${r.status}`);
      const j = await r.json();
      this.token = j.access_token;
      this.expiresAt = Date.now() + (Number(j.expires_in) || 3600) * 900;
    }
    return this.token;
  }

  async send(method, url, scrollId, renewed = false) {
    this.calls++;
    const headers = { Authorization: `Bearer ${await this.bearer()}` };
    let body;
    if (scrollId !== undefined) {
      headers['Content-Type'] = scrollAsObject ? 'application/json' : 'text/plain';
      body = scrollAsObject ? JSON.stringify({ scrollId }) : scrollId;
    }
    const r = await fetch(url, { method, headers, body });
    const text = await r.text();
    if (r.status === 401 && !renewed) { this.token = null; return this.send(method, url, scrollId, true); }
    if (!r.ok && scrollId !== undefined && !scrollAsObject && [400, 415, 422].includes(r.status)) {
      scrollAsObject = true;
      return this.send(method, url, scrollId);
    }
    if (!r.ok) throw new Error(`${method} ${url}: ${r.status} ${text.slice(0, 160)}`);
    return text ? JSON.parse(text) : null;
  }

  feed(name, url) {
    const session = this;
    return {
      name, url, started: false, done: false, count: 0,
      async pull() {
        const page = await session.send('POST', url, this.started ? session.scrollId : undefined);
        this.started = true;
        const values = page?.values ?? [];
        this.count += values.length;
        session.scrollId = page?.scrollId ?? null;
        this.done = !page?.scrollId || values.length === 0;
      },
    };
  }
}

async function main() {
  const s = new RdmSession(process.env);
  const t = encodeURIComponent(s.tenant);
  const lt = encodeURIComponent(s.type);
  const filter = encodeURIComponent(`equals(type,'${s.type}')`);
  const feeds = [
    s.feed('lookups', `${s.rdm}/lookups/${t}/_scan?filter=${filter}&limit=50`),
    s.feed('stats', `${s.base}/configuration/${t}/autopilot/stats/_scan?limit=50`),
    s.feed('statsOfType', `${s.base}/configuration/${t}/autopilot/stats/${lt}/_scan?limit=50`),
  ];
  let rounds = 0;
  while (feeds.some((f) => !f.done)) {
    if (++rounds > 2000) throw new Error('feeds do not finish');
    for (const f of feeds) if (!f.done) await f.pull();
  }
  const hc = await s.send('GET', `${s.rdm}/healthcheck`);
  let blocked = 0;
  for (let offset = 0; ; offset += 100) {
    const page = await s.send('GET', `${s.base}/configuration/${t}/autopilot/${lt}/blockedValues?offset=${offset}&limit=100`);
    blocked += page.length;
    if (page.length < 100) break;
  }
  console.log(JSON.stringify({ health: hc?.status, ...Object.fromEntries(feeds.map((f) => [f.name, f.count])), blocked, calls: s.calls }));
}

main().catch((e) => {
  console.error(`sync failed: ${e.message}`);
  process.exitCode = 1;
});
