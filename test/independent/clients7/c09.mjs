// Reconciliation snapshot: lookups of one type and the tenant-wide autopilot statistics, fetched side by
// side, then joined on candidate code.
const env = process.env;
const trim = (s) => s.replace(/\/+$/, '');
const BASE = trim(env.LCKIT_BASE_URL);
const RDM = trim(env.LCKIT_RDM_URL);
const T = encodeURIComponent(env.LCKIT_TENANT);
const TYPE = env.LCKIT_LOOKUP_TYPE.startsWith('rdm/lookupTypes/')
  ? env.LCKIT_LOOKUP_TYPE.slice('rdm/lookupTypes/'.length)
  : env.LCKIT_LOOKUP_TYPE;

// One token for the whole run; replaced only when the service says it has expired.
let current = null;
let inflight = null;
async function freshToken() {
  if (!inflight) {
    inflight = (async () => {
      const r = await fetch(env.LCKIT_TOKEN_URL, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${env.LCKIT_CLIENT_ID}:${env.LCKIT_CLIENT_SECRET}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
        signal: AbortSignal.timeout(4000),
      });
      if (r.status !== 200) throw new Error(`token ${r.status}`);
      current = (await r.json()).access_token;
      return current;
    })().finally(() => { inflight = null; });
  }
  return inflight;
}

async function api(url, init = {}) {
  let used = current ?? (await freshToken());
  for (let round = 0; round < 2; round++) {
    const r = await fetch(url, { ...init, headers: { ...init.headers, authorization: `Bearer ${used}` }, signal: AbortSignal.timeout(4000) });
    if (r.status === 401 && round === 0) {
      const text = await r.text();
      if (/expired|invalid_token/i.test(text)) {
        used = current !== used ? current : await freshToken();
        continue;
      }
      throw new Error(`401 on ${url}: ${text}`);
    }
    if (!r.ok) throw new Error(`${r.status} on ${url}`);
    return r.json();
  }
  throw new Error(`still unauthorized on ${url}`);
}

function scanner(url) {
  // Each scan owns its cursor; continuation pages send {"scrollId": ...}.
  return async function drain() {
    const out = [];
    let cursor = null;
    for (let n = 0; n < 100; n++) {
      const init = { method: 'POST' };
      if (cursor !== null) {
        init.body = JSON.stringify({ scrollId: cursor });
        init.headers = { 'content-type': 'application/json' };
      }
      const page = await api(url, init);
      const vals = page?.values ?? [];
      out.push(...vals);
      if (!page?.scrollId || vals.length === 0) break;
      cursor = page.scrollId;
    }
    return out;
  };
}

try {
  const version = await api(`${RDM}/version`);
  const filter = encodeURIComponent(`equals(type,'${TYPE}')`);
  const [lookups, stats] = await Promise.all([
    scanner(`${RDM}/lookups/${T}/_scan?limit=40&filter=${filter}&sort=code&order=desc`)(),
    scanner(`${BASE}/configuration/${T}/autopilot/stats/_scan?limit=100&order=asc`)(),
  ]);
  const codes = new Set(lookups.map((l) => l.code));
  const ofType = stats.filter((s) => s.lookupType === TYPE);
  const dangling = ofType.filter((s) => s.candidateLookupCode && !codes.has(s.candidateLookupCode));
  console.log(`rdm-service ${version['rdm-service']}: ${lookups.length} lookups of ${TYPE}, ` +
    `${stats.length} statistics (${ofType.length} of this type, ${dangling.length} with unknown candidate)`);
} catch (e) {
  console.error('reconciliation failed:', e.message);
  process.exit(1);
}
