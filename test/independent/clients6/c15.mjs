// Blocked-value coverage per lookup type (reference-data quality team). For every lookup type of
// the tenant: how many codes it has, how many blocked values, how many autopilot statistics. The
// per-type work runs three types at a time, each type's statistics scan with its own scroll.

const E = process.env;
const tenant = encodeURIComponent(E.LCKIT_TENANT);

let tokenPromise = null;
function token(forceNew = false) {
  if (forceNew || !tokenPromise) {
    tokenPromise = (async () => {
      const r = await fetch(E.LCKIT_TOKEN_URL, {
        method: 'POST',
        headers: {
          authorization: 'Basic ' + Buffer.from(`${E.LCKIT_CLIENT_ID}:${E.LCKIT_CLIENT_SECRET}`).toString('base64'),
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
        signal: AbortSignal.timeout(4000),
      });
      if (!r.ok) throw new Error(`token ${r.status}`);
      return (await r.json()).access_token;
    })();
  }
  return tokenPromise;
}

async function api(method, url, body) {
  let used = await token();
  for (let i = 0; i < 2; i++) {
    const r = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${used}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(5000),
    });
    if (r.status === 401 && i === 0) {
      const why = await r.text();
      if (!why.includes('expired')) throw new Error(`401 ${why}`);
      // someone else may have renewed already
      const current = await token();
      used = current === used ? await token(true) : current;
      continue;
    }
    if (!r.ok) throw new Error(`${method} ${url} -> ${r.status} ${await r.text()}`);
    return r.json();
  }
  throw new Error(`${method} ${url}: unauthorised after renewal`);
}

async function scanAll(url) {
  const all = [];
  let sid = null;
  for (let i = 0; i < 1000; i++) {
    const page = await api('POST', url, sid === null ? undefined : { scrollId: sid });
    all.push(...(page.values ?? []));
    if (!page.scrollId || !(page.values ?? []).length) break;
    sid = page.scrollId;
  }
  return all;
}

async function pool(items, width, fn) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  }));
  return out;
}

const lookups = await scanAll(`${E.LCKIT_RDM_URL}/lookups/${tenant}/_scan?limit=100`);
const codesPerType = new Map();
for (const l of lookups) codesPerType.set(l.type, (codesPerType.get(l.type) ?? 0) + 1);

const types = [...codesPerType.keys()].sort();
const rows = await pool(types, 3, async (lookupType) => {
  const lt = encodeURIComponent(lookupType);
  const [blocked, stats] = await Promise.all([
    api('GET', `${E.LCKIT_BASE_URL}/configuration/${tenant}/autopilot/${lt}/blockedValues?offset=0&limit=100`),
    scanAll(`${E.LCKIT_BASE_URL}/configuration/${tenant}/autopilot/stats/${lt}/_scan?limit=100`),
  ]);
  return { lookupType, codes: codesPerType.get(lookupType), blocked: blocked.length, stats: stats.length };
});
console.table(rows);
