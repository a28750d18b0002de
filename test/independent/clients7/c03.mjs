// Mapping-quality dashboard feed: per-type autopilot statistics plus the blocked values of that type.
import { request } from 'node:http';
import { request as requestTls } from 'node:https';

const cfg = {
  base: process.env.LCKIT_BASE_URL.replace(/\/+$/, ''),
  tokenUrl: process.env.LCKIT_TOKEN_URL,
  id: process.env.LCKIT_CLIENT_ID,
  secret: process.env.LCKIT_CLIENT_SECRET,
  tenant: process.env.LCKIT_TENANT,
  type: process.env.LCKIT_LOOKUP_TYPE.split('/').pop(),
};

function call(method, url, { headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const fn = u.protocol === 'https:' ? requestTls : request;
    const req = fn(u, { method, headers, timeout: 4000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json = null;
        try { json = text ? JSON.parse(text) : null; } catch { json = null; }
        resolve({ status: res.statusCode, json, text });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`timeout on ${method} ${url}`)));
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

// Token kept in memory and renewed ahead of time: at 80% of its announced lifetime.
const wallet = { value: null, renewAt: 0 };
async function token(force = false) {
  if (!force && wallet.value && Date.now() < wallet.renewAt) return wallet.value;
  const form = new URLSearchParams({ grant_type: 'client_credentials' }).toString();
  const r = await call('POST', cfg.tokenUrl, {
    headers: {
      authorization: 'Basic ' + Buffer.from(`${cfg.id}:${cfg.secret}`).toString('base64'),
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': Buffer.byteLength(form),
    },
    body: form,
  });
  if (r.status !== 200 || !r.json?.access_token) throw new Error(`no token: ${r.status} ${r.text}`);
  const life = Number(r.json.expires_in) || 3600;
  wallet.value = r.json.access_token;
  wallet.renewAt = Date.now() + life * 800;
  return wallet.value;
}

async function authed(method, url, body) {
  for (let attempt = 0; attempt < 2; attempt++) {
    const headers = { authorization: `Bearer ${await token(attempt > 0)}` };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(body);
    }
    const r = await call(method, url, { headers, body });
    if (r.status === 401 && attempt === 0) continue;
    if (r.status >= 400) throw new Error(`${method} ${url} -> ${r.status}`);
    return r.json;
  }
}

async function statsOfType() {
  const q = `limit=50&sort=createdAt&order=desc`;
  const url = `${cfg.base}/configuration/${encodeURIComponent(cfg.tenant)}/autopilot/stats/${encodeURIComponent(cfg.type)}/_scan?${q}`;
  const rows = [];
  let cursor; // undefined: first call without body
  for (let i = 0; i < 100; i++) {
    // Continuation pages carry the raw scroll id as a JSON string.
    const page = await authed('POST', url, cursor === undefined ? undefined : JSON.stringify(cursor));
    const vals = Array.isArray(page?.values) ? page.values : [];
    rows.push(...vals);
    if (typeof page?.scrollId !== 'string' || page.scrollId === '' || vals.length === 0) break;
    cursor = page.scrollId;
  }
  return rows;
}

async function blocked() {
  const out = [];
  for (let offset = 0, i = 0; i < 50; i++) {
    const list = await authed('GET', `${cfg.base}/configuration/${encodeURIComponent(cfg.tenant)}/autopilot/${encodeURIComponent(cfg.type)}/blockedValues?offset=${offset}&limit=100`);
    const items = Array.isArray(list) ? list : [];
    out.push(...items);
    if (items.length < 100) break;
    offset += items.length;
  }
  return out;
}

const stats = await statsOfType();
const blockedValues = await blocked();
const pending = stats.filter((s) => !s.mappedAt).length;
const avgScore = stats.length ? stats.reduce((a, s) => a + (s.semanticScore ?? 0), 0) / stats.length : 0;
console.log(JSON.stringify({
  type: cfg.type,
  statistics: stats.length,
  unmapped: pending,
  averageSemanticScore: Number(avgScore.toFixed(3)),
  blocked: blockedValues.map((b) => b.value),
}));
