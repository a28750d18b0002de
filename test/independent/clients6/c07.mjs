// Weekly autopilot KPI for one lookup type (BI team): share of unmapped values autopilot handled
// automatically, mean semantic score and mean AI confidence, best candidates first.
// Token kept fresh by a background timer that renews it a minute before it runs out.

const need = (k) => {
  const v = process.env[k];
  if (!v) { console.error(`missing ${k}`); process.exit(2); }
  return v;
};
const BASE_URL = need('LCKIT_BASE_URL');
const TOKEN_URL = need('LCKIT_TOKEN_URL');
const TENANT = need('LCKIT_TENANT');
const LOOKUP_TYPE = need('LCKIT_LOOKUP_TYPE');
const AUTH = 'Basic ' + Buffer.from(`${need('LCKIT_CLIENT_ID')}:${need('LCKIT_CLIENT_SECRET')}`).toString('base64');

// Most types have a few hundred statistics at most: one big page keeps the weekly run to a single call.
const PAGE_SIZE = 250;

const auth = { token: null, timer: null };

async function renew() {
  const r = await fetch(TOKEN_URL, {
    method: 'POST',
    headers: { Authorization: AUTH, 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: 'grant_type=client_credentials',
    signal: AbortSignal.timeout(4000),
  });
  if (r.status !== 200) throw new Error(`token refused (${r.status}): ${await r.text()}`);
  const { access_token, expires_in } = await r.json();
  auth.token = access_token;
  clearTimeout(auth.timer);
  const lead = Math.max((Number(expires_in) || 120) - 60, 5) * 1000;
  auth.timer = setTimeout(() => { renew().catch((e) => console.error('background renewal failed:', e.message)); }, lead);
  auth.timer.unref();
}

async function authorized(url, init) {
  if (!auth.token) await renew();
  let r = await fetch(url, { ...init, headers: { ...init.headers, Authorization: `Bearer ${auth.token}` }, signal: AbortSignal.timeout(5000) });
  if (r.status === 401) {
    const detail = await r.text();
    if (!/expired/i.test(detail)) throw new Error(`unauthorised: ${detail}`);
    await renew();
    r = await fetch(url, { ...init, headers: { ...init.headers, Authorization: `Bearer ${auth.token}` }, signal: AbortSignal.timeout(5000) });
  }
  return r;
}

async function* statistics() {
  const q = new URLSearchParams({ limit: String(PAGE_SIZE), sort: 'semanticScore', order: 'desc' });
  const url = `${BASE_URL}/configuration/${encodeURIComponent(TENANT)}/autopilot/stats/${encodeURIComponent(LOOKUP_TYPE)}/_scan?${q}`;
  let scrollId = null;
  for (let guard = 0; guard < 200; guard++) {
    const init = { method: 'POST', headers: {} };
    if (scrollId) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify({ scrollId });
    }
    const r = await authorized(url, init);
    if (!r.ok) throw new Error(`scan failed (${r.status}): ${await r.text()}`);
    const page = await r.json();
    yield* page.values ?? [];
    if (!page.scrollId || !page.values?.length) return;
    scrollId = page.scrollId;
  }
}

let n = 0, auto = 0, score = 0, conf = 0;
const top = [];
for await (const s of statistics()) {
  n++;
  if (s.status === 'AUTOMAPPED' || s.status === 'LOOKUP_CREATED' || s.status === 'MISSPELLED') auto++;
  score += Number(s.semanticScore) || 0;
  conf += Number(s.aiConfidence) || 0;
  if (top.length < 5) top.push(`${s.unmappedValue} -> ${s.candidateLookupCode ?? '(none)'} (${s.semanticScore})`);
}
console.log(`${LOOKUP_TYPE}: ${n} statistics, ${n ? ((100 * auto) / n).toFixed(1) : 0}% handled by autopilot`);
console.log(`mean semantic score ${n ? (score / n).toFixed(3) : '-'}, mean AI confidence ${n ? (conf / n).toFixed(3) : '-'}`);
for (const line of top) console.log('  ' + line);
