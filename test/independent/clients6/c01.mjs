// Catalogue export job (storefront team): reads every lookup of our first lookup type, newest code
// first, and prints a compact code -> canonical value table. One token, renewed ahead of expiry.
const env = process.env;
const BASE = env.LCKIT_BASE_URL;
const RDM = env.LCKIT_RDM_URL;
const TOKEN_URL = env.LCKIT_TOKEN_URL;
const TENANT = env.LCKIT_TENANT;
const TYPE = env.LCKIT_LOOKUP_TYPE;
const basic = Buffer.from(`${env.LCKIT_CLIENT_ID}:${env.LCKIT_CLIENT_SECRET}`).toString('base64');

let token = null; // { value, renewAt }

async function fetchToken(tries = 0) {
  const res = await fetch(TOKEN_URL, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
    signal: AbortSignal.timeout(4000),
  });
  const retryAfter = Number(res.headers.get('retry-after'));
  if (res.status === 429 && tries < 3 && retryAfter > 0 && retryAfter <= 2) {
    // short Retry-After: gateway throttling, not the token quota (that one means waiting for an expiry)
    await res.text();
    await new Promise((r) => setTimeout(r, retryAfter * 1000));
    return fetchToken(tries + 1);
  }
  if (!res.ok) throw new Error(`token endpoint said ${res.status}: ${await res.text()}`);
  const body = await res.json();
  const life = Number(body.expires_in) || 60;
  // renew when 80% of the lifetime has gone by
  token = { value: body.access_token, renewAt: Date.now() + life * 800 };
  return token.value;
}

async function bearer() {
  if (!token || Date.now() >= token.renewAt) return fetchToken();
  return token.value;
}

async function call(url, init = {}, attempt = 0) {
  const res = await fetch(url, {
    ...init,
    headers: { ...(init.headers || {}), authorization: `Bearer ${await bearer()}` },
    signal: AbortSignal.timeout(5000),
  });
  if (res.status === 401 && attempt === 0) {
    const text = await res.text();
    if (/invalid_token|expired/i.test(text)) {
      token = null; // the service says our token is done: fetch a fresh one and try once more
      return call(url, init, 1);
    }
    throw new Error(`401: ${text}`);
  }
  if (res.status === 429 && attempt < 3) {
    const wait = Math.min(Number(res.headers.get('retry-after')) || 1, 2);
    await new Promise((r) => setTimeout(r, wait * 1000));
    return call(url, init, attempt + 1);
  }
  if (!res.ok) throw new Error(`${init.method || 'GET'} ${url} -> ${res.status}: ${await res.text()}`);
  return res.json();
}

const ver = await call(`${RDM}/version`);
console.log(`rdm-service ${ver['rdm-service']}`);

const qs = new URLSearchParams({ limit: '50', filter: `equals(type,'${TYPE}')`, sort: 'code', order: 'desc' });
const scanUrl = `${RDM}/lookups/${encodeURIComponent(TENANT)}/_scan?${qs}`;
const table = new Map();
let scrollId = null;
for (let page = 0; page < 500; page++) {
  // first page: no body at all; later pages: the scroll id as a JSON string
  const init = scrollId === null
    ? { method: 'POST' }
    : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(scrollId) };
  const out = await call(scanUrl, init);
  const values = Array.isArray(out.values) ? out.values : [];
  for (const lk of values) {
    const canon = (lk.sourceMappings || []).flatMap((m) => m.values || []).find((v) => v.canonicalValue);
    table.set(lk.code, canon ? canon.value : '');
  }
  if (!out.scrollId || values.length === 0) break;
  scrollId = out.scrollId;
}
for (const [code, value] of table) console.log(`${code}\t${value}`);
console.log(`exported ${table.size} lookups of ${TYPE}`);
