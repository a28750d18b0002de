// Nightly retirement of disabled lookups (integration team, runs as the sync client).
// Walks the lookups of our lookup type, collects the disabled ones and asks the service to delete
// exactly those by URI, in batches. Written on node:http directly (no fetch).
import http from 'node:http';
import https from 'node:https';

const cfg = {
  base: process.env.LCKIT_BASE_URL,
  rdm: process.env.LCKIT_RDM_URL,
  tokenUrl: process.env.LCKIT_TOKEN_URL,
  id: process.env.LCKIT_CLIENT_ID,
  secret: process.env.LCKIT_CLIENT_SECRET,
  tenant: process.env.LCKIT_TENANT,
  type: process.env.LCKIT_LOOKUP_TYPE,
};

function send(method, target, { headers = {}, body } = {}) {
  const u = new URL(target);
  const lib = u.protocol === 'https:' ? https : http;
  const payload = body === undefined ? undefined : Buffer.from(body);
  return new Promise((resolve, reject) => {
    const req = lib.request(u, {
      method,
      headers: { accept: 'application/json', ...headers, ...(payload ? { 'content-length': payload.length } : {}) },
      timeout: 5000,
    }, (res) => {
      const parts = [];
      res.on('data', (c) => parts.push(c));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let json = null;
        try { json = text ? JSON.parse(text) : null; } catch { /* not json */ }
        resolve({ status: res.statusCode, headers: res.headers, text, json });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`timeout on ${method} ${target}`)));
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

class Session {
  #access = null;
  async #login() {
    const r = await send('POST', cfg.tokenUrl, {
      headers: {
        authorization: 'Basic ' + Buffer.from(`${cfg.id}:${cfg.secret}`).toString('base64'),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    if (r.status !== 200 || !r.json?.access_token) throw new Error(`login failed: ${r.status} ${r.text}`);
    this.#access = r.json.access_token;
  }
  async request(method, url, jsonBody) {
    for (let round = 0; round < 2; round++) {
      if (!this.#access) await this.#login();
      const headers = { authorization: `Bearer ${this.#access}` };
      let body;
      if (jsonBody !== undefined) { headers['content-type'] = 'application/json'; body = JSON.stringify(jsonBody); }
      const r = await send(method, url, { headers, body });
      if (r.status === 401 && round === 0 && /expired|invalid_token/i.test(r.text + (r.headers['www-authenticate'] || ''))) {
        this.#access = null; // expired: log in again and repeat once
        continue;
      }
      if (r.status === 429 && round === 0) {
        // gateway throttling: honour Retry-After (capped) and try once more
        const wait = Math.min(Number(r.headers['retry-after']) || 1, 2);
        await new Promise((done) => setTimeout(done, wait * 1000));
        continue;
      }
      if (r.status < 200 || r.status >= 300) throw new Error(`${method} ${url}: ${r.status} ${r.text}`);
      return r.json;
    }
    throw new Error(`${method} ${url}: still unauthorised after renewing the token`);
  }
}

const s = new Session();
const status = await s.request('GET', `${cfg.rdm}/status`);
if (status?.status !== 'OK') { console.error('lookup service not OK, skipping tonight', status); process.exit(0); }

const scanUrl = `${cfg.rdm}/lookups/${encodeURIComponent(cfg.tenant)}/_scan?limit=100&filter=${encodeURIComponent(`equals(type,'${cfg.type}')`)}`;
const disabled = [];
let seen = 0;
let next; // undefined: first page, sent without body
for (let i = 0; i < 1000; i++) {
  const page = await s.request('POST', scanUrl, next === undefined ? undefined : { scrollId: next });
  const rows = page?.values ?? [];
  seen += rows.length;
  for (const row of rows) {
    const typeName = String(row.type || '').split('/').pop();
    if (row.enabled === false && typeName === cfg.type) disabled.push(`${cfg.tenant}/${typeName}/${row.code}`);
  }
  if (!page?.scrollId || rows.length === 0) break;
  next = page.scrollId;
}
console.log(`${seen} lookups of ${cfg.type} read, ${disabled.length} disabled`);

const BATCH = 500;
for (let i = 0; i < disabled.length; i += BATCH) {
  const uris = disabled.slice(i, i + BATCH);
  const task = await s.request('POST', `${cfg.rdm}/tasks/${encodeURIComponent(cfg.tenant)}`, {
    type: 'delete',
    parameters: { uris },
  });
  console.log(`delete task ${task?.id ?? '(no id)'} for ${uris.length} lookups: ${task?.status ?? 'accepted'}`);
}
