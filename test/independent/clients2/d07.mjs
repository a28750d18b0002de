#!/usr/bin/env node
// Lookup retirement tool (MDM stewards): removes a few codes of a lookup type, one delete task per code,
// and checks they are gone. Pagination with async generators. Node 20 built-ins only.
const cfg = Object.freeze({
  base: (process.env.LCKIT_BASE_URL ?? '').replace(/\/+$/, ''),
  rdm: (process.env.LCKIT_RDM_URL ?? '').replace(/\/+$/, ''),
  tokenUrl: process.env.LCKIT_TOKEN_URL,
  id: process.env.LCKIT_CLIENT_ID ?? '',
  secret: process.env.LCKIT_CLIENT_SECRET ?? '',
  tenant: process.env.LCKIT_TENANT ?? '',
  type: process.env.LCKIT_LOOKUP_TYPE ?? '',
});
const pe = encodeURIComponent;

const auth = {
  value: null, issuedAt: 0, lifetimeMs: 0, requests: 0,
  // Renews once 80% of the lifetime has passed, so a long run never sends an expired token.
  async header() {
    if (!this.value || Date.now() - this.issuedAt > this.lifetimeMs * 0.8) {
      this.requests++;
      const res = await fetch(cfg.tokenUrl || `${cfg.base}/oauth/token`, {
        method: 'POST',
        headers: {
          Authorization: 'Basic ' + Buffer.from(`${cfg.id}:${cfg.secret}`).toString('base64'),
          'Content-Type': 'application/x-www-form-urlencoded;charset=UTF-8',
        },
        body: 'grant_type=client_credentials',
      });
      if (!res.ok) throw new Error(`cannot obtain a token (HTTP ${res.status})`);
      const body = await res.json();
      this.value = body.access_token;
      this.issuedAt = Date.now();
      this.lifetimeMs = (Number(body.expires_in) > 0 ? Number(body.expires_in) : 3600) * 1000;
    }
    return `Bearer ${this.value}`;
  },
};

// JSON, except /version, whose number may be unquoted ({"rdm-service": 2016.3.0.0.1}).
function parseBody(text) {
  try { return JSON.parse(text); } catch (err) {
    const m = /"rdm-service"\s*:\s*"?([0-9][0-9.]*)/.exec(text);
    if (m) return { 'rdm-service': m[1] };
    throw err;
  }
}

let rawScroll = false; // {"scrollId": ...} first; the raw id as text if the service refuses that

async function http(method, url, json, raw, renewed = false) {
  const headers = { Authorization: await auth.header(), Accept: 'application/json' };
  const init = { method, headers };
  if (raw !== undefined) { headers['Content-Type'] = 'text/plain'; init.body = raw; }
  else if (json !== undefined) { headers['Content-Type'] = 'application/json'; init.body = JSON.stringify(json); }
  const res = await fetch(url, init);
  const text = await res.text();
  if (res.status === 401 && !renewed) { auth.value = null; return http(method, url, json, raw, true); } // expired in flight
  if (!res.ok) throw Object.assign(new Error(`${method} ${new URL(url).pathname} failed: HTTP ${res.status} ${text.slice(0, 160)}`), { status: res.status });
  return text.trim() ? parseBody(text) : null;
}

async function* scroll(url) {
  let res = await http('POST', url);
  for (let n = 0; n < 10000; n++) {
    const values = res?.values ?? [];
    yield* values;
    if (typeof res?.scrollId !== 'string' || res.scrollId === '' || values.length === 0) return;
    const sid = res.scrollId;
    try {
      res = rawScroll ? await http('POST', url, undefined, sid) : await http('POST', url, { scrollId: sid });
    } catch (err) {
      if (rawScroll || ![400, 415, 422].includes(err.status)) throw err;
      rawScroll = true;
      res = await http('POST', url, undefined, sid);
    }
  }
  throw new Error(`endless scan: ${url}`);
}

async function* blockedValues() {
  const url = `${cfg.base}/configuration/${pe(cfg.tenant)}/autopilot/${pe(cfg.type)}/blockedValues`;
  for (let offset = 0; ;) {
    const page = await http('GET', `${url}?limit=30&offset=${offset}`);
    if (!Array.isArray(page) || page.length === 0) return; // an empty page ends the listing
    yield* page;
    offset += page.length;
  }
}

async function count(it) { let n = 0; for await (const _ of it) n++; return n; }

async function main() {
  if (!cfg.base || !cfg.rdm || !cfg.tenant || !cfg.type) throw new Error('LCKIT_BASE_URL, LCKIT_RDM_URL, LCKIT_TENANT and LCKIT_LOOKUP_TYPE are required');
  const typeScan = () => `${cfg.rdm}/lookups/${pe(cfg.tenant)}/_scan?limit=25&sort=code&order=asc&filter=${pe(`equals(type,'${cfg.type}')`)}`;
  const before = [];
  for await (const l of scroll(typeScan())) before.push(l.code);
  const victims = before.filter((c) => typeof c === 'string' && c).slice(-2);
  const tasks = [];
  for (const code of victims) {
    tasks.push(await http('POST', `${cfg.rdm}/tasks/${pe(cfg.tenant)}`, { type: 'delete', parameters: { uris: [`${cfg.tenant}/${cfg.type}/${code}`] } }));
  }
  let after = before.length;
  for (let i = 0; i < 20 && after > before.length - victims.length; i++) {
    if (i) await new Promise((r) => setTimeout(r, 500));
    after = await count(scroll(typeScan()));
  }
  const stats = await count(scroll(`${cfg.base}/configuration/${pe(cfg.tenant)}/autopilot/stats/${pe(cfg.type)}/_scan?limit=100&order=desc`));
  const blocked = await count(blockedValues());
  console.log(JSON.stringify({ before: before.length, deleted: victims, tasks: tasks.length, after, statsOfType: stats, blocked, tokenRequests: auth.requests }));
}

main().catch((err) => { console.error(`retire: ${err.message}`); process.exit(1); });
