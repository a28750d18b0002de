// CSV extract of all autopilot statistics of the tenant for the BI team (stdout).
const { LCKIT_BASE_URL, LCKIT_TOKEN_URL, LCKIT_CLIENT_ID, LCKIT_CLIENT_SECRET, LCKIT_TENANT } = process.env;

const COLUMNS = ['lookupType', 'source', 'unmappedValue', 'candidateLookupCode', 'status', 'semanticScore', 'aiConfidence', 'createdAt', 'dcrId'];
const csvCell = (v) => {
  if (v === undefined || v === null) return '';
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};

async function accessToken() {
  const r = await fetch(LCKIT_TOKEN_URL, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${LCKIT_CLIENT_ID}:${LCKIT_CLIENT_SECRET}`).toString('base64')}`,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
    signal: AbortSignal.timeout(5000),
  });
  if (r.status !== 200) throw new Error(`token: HTTP ${r.status}`);
  const { access_token } = await r.json();
  return access_token;
}

async function* statistics(token) {
  const endpoint = `${LCKIT_BASE_URL.replace(/\/$/, '')}/configuration/${LCKIT_TENANT}/autopilot/stats/_scan?limit=100&sort=createdAt&order=asc`;
  let scrollId; // the scan's cursor, learned from the first page
  for (let pageNo = 1; pageNo <= 80; pageNo++) {
    const r = await fetch(endpoint, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(scrollId ?? null),
      signal: AbortSignal.timeout(5000),
    });
    if (!r.ok) throw new Error(`scan page ${pageNo}: HTTP ${r.status}`);
    const page = await r.json();
    const values = page.values ?? [];
    yield* values;
    if (!page.scrollId || values.length === 0) return;
    scrollId ??= page.scrollId;
  }
}

let rows = 0;
try {
  const token = await accessToken();
  process.stdout.write(COLUMNS.join(',') + '\n');
  for await (const rec of statistics(token)) {
    process.stdout.write(COLUMNS.map((c) => csvCell(rec[c])).join(',') + '\n');
    rows++;
  }
  console.error(`${rows} rows`);
} catch (err) {
  console.error(`extract failed after ${rows} rows: ${err.message}`);
  process.exitCode = 1;
}
