// Match-quality report (team: ML platform). Pulls the autopilot statistics of the first lookup type,
// strongest semantic matches first, and reports how the AI confidence tracks the semantic score, and
// how many results per status were produced by each configuration version.
const env = (k) => { const v = process.env[k]; if (!v) { console.error(`missing ${k}`); process.exit(2); } return v; };
const BASE = env('LCKIT_BASE_URL').replace(/\/+$/, '');
const RDM = env('LCKIT_RDM_URL').replace(/\/+$/, '');
const TOKEN_URL = env('LCKIT_TOKEN_URL');
const CLIENT_ID = env('LCKIT_CLIENT_ID');
const CLIENT_SECRET = env('LCKIT_CLIENT_SECRET');
const TENANT = env('LCKIT_TENANT');
const LOOKUP_TYPE = env('LCKIT_LOOKUP_TYPE');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
void BASE;

async function http(method, url, { headers = {}, body } = {}) {
  const res = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(4000) });
  const text = await res.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = null; }
  return { status: res.status, text, json, headers: res.headers };
}

let cached = null; // { value, expiresAt }
async function requestToken() {
  for (let attempt = 1; attempt <= 3; attempt++) {
    const issuedAround = Date.now();
    const r = await http('POST', TOKEN_URL, {
      headers: {
        authorization: 'Basic ' + Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64'),
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: 'grant_type=client_credentials',
    });
    if (r.status === 200 && r.json && r.json.access_token) {
      const life = Number(r.json.expires_in) > 0 ? Number(r.json.expires_in) : 3600;
      cached = { value: r.json.access_token, expiresAt: issuedAround + life * 1000, life };
      return cached.value;
    }
    if (r.status === 429 || /limit|exceeded|quota/i.test(r.text)) {
      // Quota or rate limit: wait before asking again (a slot frees when a token expires).
      const ra = Number(r.headers.get('retry-after'));
      if (attempt < 3) await sleep(Math.min(ra > 0 ? ra * 1000 : 500 * attempt, 1500));
      continue;
    }
    throw new Error(`token request refused: ${r.status} ${r.text.slice(0, 200)}`);
  }
  throw new Error('no token: the quota stayed exhausted');
}
async function token() {
  if (cached) {
    const margin = Math.min(5000, cached.life * 100);
    if (Date.now() < cached.expiresAt - margin) return cached.value;
  }
  return requestToken();
}
async function api(method, url, body, contentType) {
  let renewed = false;
  for (let i = 0; i < 4; i++) {
    const headers = { authorization: `Bearer ${await token()}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = contentType || 'application/json';
    const r = await http(method, url, { headers, body });
    const why = r.text + ' ' + (r.headers.get('www-authenticate') || '');
    if ((r.status === 401 || r.status === 403) && !renewed && /invalid_token|expired/i.test(why)) {
      cached = null; renewed = true; continue;
    }
    if (r.status === 429 && i < 3) { await sleep(Math.min((Number(r.headers.get('retry-after')) || 1) * 1000, 2000)); continue; }
    return r;
  }
  throw new Error(`${method} ${url}: gave up`);
}

const ENCODINGS = [
  (id) => [JSON.stringify({ scrollId: id }), 'application/json'],
  (id) => [JSON.stringify(id), 'application/json'],
  (id) => [id, 'text/plain'],
];
let preferred = 0;
async function scan(url, onPage, maxPages = 80) {
  let r = await api('POST', url);
  for (let page = 0; page < maxPages; page++) {
    if (r.status !== 200 || !r.json) throw new Error(`scan ${url}: ${r.status} ${r.text.slice(0, 200)}`);
    const values = Array.isArray(r.json.values) ? r.json.values : [];
    if (values.length) onPage(values);
    const id = r.json.scrollId;
    if (!id || values.length === 0) return;
    let next = null;
    for (let k = 0; k < ENCODINGS.length; k++) {
      const idx = (preferred + k) % ENCODINGS.length;
      const [b, ct] = ENCODINGS[idx](id);
      next = await api('POST', url, b, ct);
      if (next.status === 200) { preferred = idx; break; }
      if (![400, 415, 422].includes(next.status)) break;
    }
    r = next;
  }
  throw new Error(`scan ${url}: no end after ${maxPages} pages`);
}

async function main() {
  // Strongest matches first.
  const q = new URLSearchParams({ sort: 'semanticScore', order: 'DESC', limit: '100' });
  const rows = [];
  await scan(`${BASE}/configuration/${encodeURIComponent(TENANT)}/autopilot/stats/${encodeURIComponent(LOOKUP_TYPE)}/_scan?${q}`, (values) => {
    for (const s of values) rows.push(s);
  });
  const byVersion = new Map();
  let agree = 0;
  for (const s of rows) {
    const key = `v${s.configVersion ?? '?'}`;
    const m = byVersion.get(key) || {};
    m[s.status] = (m[s.status] || 0) + 1;
    byVersion.set(key, m);
    if (typeof s.aiConfidence === 'number' && typeof s.semanticScore === 'number' && Math.abs(s.aiConfidence - s.semanticScore) < 0.2) agree++;
  }
  console.log(`${LOOKUP_TYPE}: ${rows.length} statistics; AI confidence within 0.2 of the semantic score: ${agree}`);
  for (const s of rows.slice(0, 5)) console.log(`  ${s.semanticScore} ${s.unmappedValue} -> ${s.candidateLookupCode ?? '(none)'} [${s.status}]`);
  for (const [v, m] of byVersion) console.log(`  ${v}: ${Object.entries(m).map(([k, n]) => `${k}=${n}`).join(' ')}`);
}
main().then(() => process.exit(0), (e) => { console.error(String(e && e.stack || e)); process.exit(1); });
