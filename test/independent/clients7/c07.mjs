// Ops probe: service health, version and the size of the autopilot backlog of one lookup type.
const base = process.env.LCKIT_BASE_URL.replace(/\/$/, '');
const rdm = process.env.LCKIT_RDM_URL.replace(/\/$/, '');
const tenant = process.env.LCKIT_TENANT;
const lookupType = process.env.LCKIT_LOOKUP_TYPE.replace(/^.*\//, '');

const timeout = () => AbortSignal.timeout(4000);

async function grant() {
  const r = await fetch(process.env.LCKIT_TOKEN_URL, {
    method: 'POST',
    headers: {
      authorization: 'Basic ' + Buffer.from(process.env.LCKIT_CLIENT_ID + ':' + process.env.LCKIT_CLIENT_SECRET).toString('base64'),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
    signal: timeout(),
  });
  if (!r.ok) throw new Error(`token: ${r.status}`);
  const t = await r.json();
  // Use the scheme the server tells us, as OAuth intends.
  return `${t.token_type} ${t.access_token}`;
}

async function getJson(auth, url, init = {}) {
  const r = await fetch(url, { ...init, headers: { ...(init.headers || {}), authorization: auth }, signal: timeout() });
  if (!r.ok) throw new Error(`${url}: ${r.status}`);
  return r.json();
}

const report = {};
let failed = false;
try {
  const auth = await grant();
  for (const probe of ['healthcheck', 'status']) {
    report[probe] = (await getJson(auth, `${rdm}/${probe}`)).status;
  }
  report.version = (await getJson(auth, `${rdm}/version`))['rdm-service'];
  let backlog = 0;
  let scrollId = null;
  for (let i = 0; i < 40; i++) {
    const page = await getJson(auth, `${base}/configuration/${tenant}/autopilot/stats/${lookupType}/_scan?limit=100`, {
      method: 'POST',
      ...(scrollId ? { body: JSON.stringify({ scrollId }), headers: { 'content-type': 'application/json' } } : {}),
    });
    const values = page.values || [];
    backlog += values.filter((v) => !v.candidateLookupCode).length;
    if (!page.scrollId || !values.length) break;
    scrollId = page.scrollId;
  }
  report.withoutCandidate = backlog;
} catch (e) {
  report.error = e.message;
  failed = true;
}
console.log(JSON.stringify(report, null, 1));
if (failed) process.exit(2);
