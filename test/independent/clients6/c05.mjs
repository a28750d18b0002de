// Lookup <-> autopilot reconciliation (analytics team). Pulls all lookups and all autopilot
// statistics of the tenant in parallel to save wall-clock time, then reports candidate codes that
// autopilot proposes but which do not exist as lookups.
const { LCKIT_BASE_URL: base, LCKIT_RDM_URL: rdm, LCKIT_TOKEN_URL: tokenUrl,
  LCKIT_CLIENT_ID: clientId, LCKIT_CLIENT_SECRET: clientSecret, LCKIT_TENANT: tenant } = process.env;

let accessToken;
let pending; // shared in-flight token request so parallel callers do not each ask for one

function getToken(renew = false) {
  if (renew) accessToken = undefined;
  if (accessToken) return Promise.resolve(accessToken);
  pending ??= fetch(tokenUrl, {
    method: 'POST',
    headers: {
      Authorization: 'Basic ' + Buffer.from(clientId + ':' + clientSecret).toString('base64'),
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
    signal: AbortSignal.timeout(4000),
  }).then(async (r) => {
    if (!r.ok) throw new Error('token: ' + r.status + ' ' + (await r.text()));
    accessToken = (await r.json()).access_token;
    return accessToken;
  }).finally(() => { pending = undefined; });
  return pending;
}

// where the running scan is; every page request sends it back and every answer moves it on
let cursor = null;

async function nextPage(url) {
  for (let attempt = 0; attempt < 2; attempt++) {
    const token = await getToken(attempt > 0);
    const init = { method: 'POST', headers: { Authorization: 'Bearer ' + token }, signal: AbortSignal.timeout(5000) };
    if (cursor !== null) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify({ scrollId: cursor });
    }
    const r = await fetch(url, init);
    if (r.status === 401 && attempt === 0) { await r.text(); continue; }
    if (!r.ok) throw new Error(`POST ${url}: ${r.status} ${await r.text()}`);
    const page = await r.json();
    cursor = page.scrollId ?? null;
    return page;
  }
  throw new Error('unauthorised twice');
}

// Both scans advance in lock-step rounds: each round asks both services for their next page at once,
// and a scan that is finished simply sits out the following rounds.
async function readBoth(lookupsUrl, statsUrl) {
  const scans = [
    { url: lookupsUrl, items: [], done: false },
    { url: statsUrl, items: [], done: false },
  ];
  cursor = null;
  for (let round = 0; round < 300 && scans.some((s) => !s.done); round++) {
    await Promise.all(scans.filter((s) => !s.done).map(async (s) => {
      const page = await nextPage(s.url);
      const values = page.values ?? [];
      s.items.push(...values);
      if (!page.scrollId || values.length === 0) s.done = true;
    }));
  }
  return scans.map((s) => s.items);
}

const t = encodeURIComponent(tenant);
const [lookups, stats] = await readBoth(
  `${rdm}/lookups/${t}/_scan?limit=100`,
  `${base}/configuration/${t}/autopilot/stats/_scan?limit=100`,
);

const known = new Set(lookups.map((l) => `${String(l.type).split('/').pop()}|${l.code}`));
const orphans = stats.filter((s) => s.candidateLookupCode && !known.has(`${s.lookupType}|${s.candidateLookupCode}`));
console.log(`lookups=${lookups.length} statistics=${stats.length} orphan-candidates=${orphans.length}`);
for (const o of orphans.slice(0, 10)) console.log(`  ${o.lookupType}: ${o.unmappedValue} -> ${o.candidateLookupCode}`);
