// Deployment readiness gate (release engineering). Before the order service is rolled out, checks
// that the lookup-data service is healthy and recent enough, that our lookup type has lookups, and
// that its blocked values can be read. Exit 0 = go, 1 = no-go.

const cfg = Object.fromEntries(
  ['BASE_URL', 'RDM_URL', 'TOKEN_URL', 'CLIENT_ID', 'CLIENT_SECRET', 'TENANT', 'LOOKUP_TYPE']
    .map((k) => [k, process.env[`LCKIT_${k}`]]),
);
const MIN_VERSION = [2016, 3];

const results = [];
const check = (name, ok, detail = '') => results.push({ name, ok, detail });

async function getJson(url, headers = {}) {
  const res = await fetch(url, { headers: { Accept: 'application/json', ...headers }, signal: AbortSignal.timeout(4000) });
  const text = await res.text();
  let body = null;
  try { body = JSON.parse(text); } catch { body = text; }
  return { status: res.status, body, res };
}

function olderThan(version, min) {
  const parts = String(version).split('.').map((p) => parseInt(p, 10) || 0);
  for (let i = 0; i < min.length; i++) {
    if ((parts[i] ?? 0) !== min[i]) return (parts[i] ?? 0) < min[i];
  }
  return false;
}

// 1. the service's own probes: cheap and side-effect free, so they are polled like a load balancer does
for (const probe of ['healthcheck', 'status']) {
  const { status, body } = await getJson(`${cfg.RDM_URL}/${probe}`);
  check(probe, status === 200 && body?.status === 'OK', `HTTP ${status}`);
}
const version = await getJson(`${cfg.RDM_URL}/version`);
const v = version.body?.['rdm-service'];
check('version', version.status === 200 && v !== undefined && !olderThan(v, MIN_VERSION), `rdm-service ${v}`);

// 2. our own data, with the service account
const tokenRes = await fetch(cfg.TOKEN_URL, {
  method: 'POST',
  headers: {
    Authorization: 'Basic ' + Buffer.from(`${cfg.CLIENT_ID}:${cfg.CLIENT_SECRET}`).toString('base64'),
    'Content-Type': 'application/x-www-form-urlencoded',
  },
  body: 'grant_type=client_credentials',
  signal: AbortSignal.timeout(4000),
});
check('token', tokenRes.ok, `HTTP ${tokenRes.status}`);
if (tokenRes.ok) {
  const bearer = { Authorization: `Bearer ${(await tokenRes.json()).access_token}` };
  let count = 0;
  let scrollId;
  for (let i = 0; i < 200; i++) {
    const init = { method: 'POST', headers: { ...bearer }, signal: AbortSignal.timeout(4000) };
    if (scrollId) { init.headers['Content-Type'] = 'application/json'; init.body = JSON.stringify({ scrollId }); }
    const filter = encodeURIComponent(`equals(type,'${cfg.LOOKUP_TYPE}')`);
    const res = await fetch(`${cfg.RDM_URL}/lookups/${encodeURIComponent(cfg.TENANT)}/_scan?filter=${filter}&limit=100`, init);
    if (!res.ok) { check('lookups', false, `HTTP ${res.status}`); break; }
    const page = await res.json();
    count += (page.values ?? []).length;
    scrollId = page.scrollId;
    if (!scrollId || !(page.values ?? []).length) break;
  }
  check('lookups', count > 0, `${count} lookups of ${cfg.LOOKUP_TYPE}`);
  const blocked = await getJson(
    `${cfg.BASE_URL}/configuration/${encodeURIComponent(cfg.TENANT)}/autopilot/${encodeURIComponent(cfg.LOOKUP_TYPE)}/blockedValues?limit=100`,
    bearer,
  );
  check('blocked values', blocked.status === 200 && Array.isArray(blocked.body), `HTTP ${blocked.status}`);
}

for (const r of results) console.log(`${r.ok ? 'PASS' : 'FAIL'}  ${r.name.padEnd(15)} ${r.detail}`);
const go = results.every((r) => r.ok);
console.log(go ? 'GO' : 'NO-GO');
process.exitCode = go ? 0 : 1;
