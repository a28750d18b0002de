// Catalogue exporter: dumps every lookup of the tenant's first lookup type as NDJSON lines on stdout.
const env = process.env;
const rdm = env.LCKIT_RDM_URL.replace(/\/$/, '');
const typeName = env.LCKIT_LOOKUP_TYPE.replace(/^rdm\/lookupTypes\//, '');

async function obtainToken() {
  const basic = Buffer.from(`${env.LCKIT_CLIENT_ID}:${env.LCKIT_CLIENT_SECRET}`).toString('base64');
  const res = await fetch(env.LCKIT_TOKEN_URL, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
    signal: AbortSignal.timeout(4000),
  });
  if (!res.ok) throw new Error(`token endpoint said ${res.status}`);
  return (await res.json()).access_token;
}

async function main() {
  const token = await obtainToken();
  const params = new URLSearchParams({ limit: '100', filter: `equals(type,'${typeName}')`, sort: 'code', order: 'asc' });
  let scroll = null;
  let exported = 0;
  for (let page = 0; page < 50; page++) {
    const q = new URLSearchParams(params);
    if (scroll) q.set('scrollId', scroll);
    const res = await fetch(`${rdm}/lookups/${encodeURIComponent(env.LCKIT_TENANT)}/_scan?${q}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(4000),
    });
    if (!res.ok) throw new Error(`scan page ${page} failed with ${res.status}`);
    const body = await res.json();
    const values = body.values ?? [];
    for (const lk of values) {
      process.stdout.write(JSON.stringify({ code: lk.code, enabled: lk.enabled, version: lk.version }) + '\n');
      exported++;
    }
    if (!body.scrollId || values.length === 0) break;
    scroll = body.scrollId;
  }
  console.error(`exported ${exported} lookups of ${typeName}`);
}

main().catch((e) => { console.error(e.message); process.exit(1); });
