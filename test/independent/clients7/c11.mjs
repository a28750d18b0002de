// Autopilot coverage per lookup type: finds the tenant's lookup types, then scans the statistics of every
// type concurrently and prints status counts per type.
const cfg = Object.fromEntries(['BASE_URL', 'RDM_URL', 'TOKEN_URL', 'CLIENT_ID', 'CLIENT_SECRET', 'TENANT', 'LOOKUP_TYPE']
  .map((k) => [k, process.env[`LCKIT_${k}`]]));
const strip = (u) => u.replace(/\/$/, '');

async function post(url, { token, json, form, basic } = {}) {
  const headers = {};
  let body;
  if (basic) headers.authorization = `Basic ${Buffer.from(basic).toString('base64')}`;
  if (token) headers.authorization = `Bearer ${token}`;
  if (form) { headers['content-type'] = 'application/x-www-form-urlencoded'; body = form; }
  if (json !== undefined) { headers['content-type'] = 'application/json'; body = JSON.stringify(json); }
  const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(4000) });
  if (!res.ok) throw new Error(`POST ${url}: ${res.status}`);
  return res.json();
}

class StatsPager {
  constructor(token) {
    this.token = token;
    this.scrollId = undefined;
  }

  async collect(url) {
    const rows = [];
    this.scrollId = undefined;
    for (let i = 0; i < 60; i++) {
      const page = await post(url, { token: this.token, json: this.scrollId });
      const values = page.values ?? [];
      rows.push(...values);
      if (!page.scrollId || values.length === 0) break;
      this.scrollId = page.scrollId;
    }
    return rows;
  }
}

async function lookupTypes(token) {
  const types = new Set([cfg.LOOKUP_TYPE.split('/').pop()]);
  let sid;
  for (let i = 0; i < 60; i++) {
    const page = await post(`${strip(cfg.RDM_URL)}/lookups/${cfg.TENANT}/_scan?limit=100`, { token, json: sid });
    for (const l of page.values ?? []) types.add(String(l.type).split('/').pop());
    if (!page.scrollId || !(page.values ?? []).length) break;
    sid = page.scrollId;
  }
  return [...types];
}

try {
  const { access_token: token } = await post(cfg.TOKEN_URL, {
    basic: `${cfg.CLIENT_ID}:${cfg.CLIENT_SECRET}`,
    form: 'grant_type=client_credentials',
  });
  const types = await lookupTypes(token);
  const pager = new StatsPager(token);
  const results = await Promise.all(types.map(async (t) => {
    const rows = await pager.collect(`${strip(cfg.BASE_URL)}/configuration/${cfg.TENANT}/autopilot/stats/${encodeURIComponent(t)}/_scan?limit=20`);
    const counts = {};
    for (const r of rows) counts[r.status] = (counts[r.status] ?? 0) + 1;
    return [t, rows.length, counts];
  }));
  for (const [t, n, counts] of results) console.log(`${t}: ${n} ${JSON.stringify(counts)}`);
} catch (e) {
  console.error(e.message);
  process.exit(1);
}
