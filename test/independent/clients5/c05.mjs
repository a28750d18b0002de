// Mapping reconciler (team: integration). Walks the lookups of the first lookup type and that type's
// autopilot statistics side by side, page by page, and reports candidate codes that point at no lookup
// and automapped statistics whose lookup is disabled.
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

// A pager walks one scan a page at a time so that two scans can advance side by side.
let cursor = null; // scroll id handed out by the last scan page
class Pager {
  constructor(url) { this.url = url; this.started = false; this.done = false; this.pages = 0; }
  async next() {
    if (this.done) return [];
    if (++this.pages > 60) { this.done = true; return []; }
    let r;
    if (!this.started) {
      this.started = true;
      r = await api('POST', this.url);
    } else {
      if (!cursor) { this.done = true; return []; }
      r = null;
      for (let k = 0; k < ENCODINGS.length; k++) {
        const idx = (preferred + k) % ENCODINGS.length;
        const [b, ct] = ENCODINGS[idx](cursor);
        r = await api('POST', this.url, b, ct);
        if (r.status === 200) { preferred = idx; break; }
        if (![400, 415, 422].includes(r.status)) break;
      }
    }
    if (r.status !== 200 || !r.json) { console.error(`page of ${this.url}: ${r.status}`); this.done = true; return []; }
    const values = Array.isArray(r.json.values) ? r.json.values : [];
    cursor = r.json.scrollId || null;
    if (!cursor || values.length === 0) this.done = true;
    return values;
  }
}

async function main() {
  const t = encodeURIComponent(TENANT);
  const lookups = new Pager(`${RDM}/lookups/${t}/_scan?${new URLSearchParams({ filter: `equals(type,'${LOOKUP_TYPE}')`, sort: 'code', order: 'asc', limit: '20' })}`);
  const stats = new Pager(`${BASE}/configuration/${t}/autopilot/stats/${encodeURIComponent(LOOKUP_TYPE)}/_scan?${new URLSearchParams({ sort: 'updateDate', order: 'asc', limit: '20' })}`);
  const codes = new Map();
  const statistics = [];
  for (let round = 0; round < 60 && !(lookups.done && stats.done); round++) {
    for (const l of await lookups.next()) if (l.type === `rdm/lookupTypes/${LOOKUP_TYPE}` || l.type === LOOKUP_TYPE) codes.set(l.code, l.enabled !== false);
    for (const s of await stats.next()) statistics.push(s);
  }
  const dangling = statistics.filter((s) => s.candidateLookupCode && !codes.has(s.candidateLookupCode));
  const disabled = statistics.filter((s) => s.status === 'AUTOMAPPED' && codes.get(s.candidateLookupCode) === false);
  console.log(`${LOOKUP_TYPE}: ${codes.size} lookups, ${statistics.length} statistics`);
  console.log(`candidates without a lookup: ${dangling.length}; automapped onto disabled lookups: ${disabled.length}`);
  for (const s of dangling.slice(0, 5)) console.log(`  ${s.source}:${s.unmappedValue} -> ${s.candidateLookupCode}`);
}
main().then(() => process.exit(0), (e) => { console.error(String(e && e.stack || e)); process.exit(1); });
