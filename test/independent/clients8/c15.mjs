// Parallel warehouse loader: six independent extract jobs run at once (lookups of the type, all lookups,
// statistics of all types, statistics of the type, blocked values, version). Each job authenticates on
// its own so that one job's token trouble cannot stall another.
const X = process.env;
const base = X.LCKIT_BASE_URL.replace(/\/$/, "");
const rdm = X.LCKIT_RDM_URL.replace(/\/$/, "");
const ten = encodeURIComponent(X.LCKIT_TENANT);
const typ = encodeURIComponent(X.LCKIT_LOOKUP_TYPE);
const basic = "Basic " + Buffer.from(`${X.LCKIT_CLIENT_ID}:${X.LCKIT_CLIENT_SECRET}`).toString("base64");
const sharedTokens = [];

async function authenticate(job) {
  let last = "";
  for (let attempt = 1; attempt <= 8; attempt++) {
    const r = await fetch(X.LCKIT_TOKEN_URL, {
      method: "POST",
      headers: { Authorization: basic, "Content-Type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials",
      signal: AbortSignal.timeout(4000),
    });
    if (r.ok) {
      const t = (await r.json()).access_token;
      sharedTokens.push(t);
      return t;
    }
    last = `${r.status} ${await r.text()}`;
    // transient: try again straight away
  }
  // still nothing: borrow a token another job already holds
  if (sharedTokens.length) return sharedTokens[sharedTokens.length - 1];
  throw new Error(`${job}: no token (${last})`);
}

async function scanJob(name, url) {
  let tk = await authenticate(name);
  let renewed = false;
  let rows = 0;
  let sid = null;
  for (let p = 0; p < 100; p++) {
    const r = await fetch(url, {
      method: "POST",
      headers: { Authorization: `Bearer ${tk}`, "Content-Type": "application/json" },
      body: JSON.stringify(sid),
      signal: AbortSignal.timeout(4000),
    });
    if (r.status === 401 && !renewed) {
      await r.text();
      renewed = true;
      tk = await authenticate(name);
      p--;
      continue;
    }
    if (!r.ok) throw new Error(`${name}: ${r.status} ${await r.text()}`);
    const page = await r.json();
    rows += (page.values ?? []).length;
    if (!page.scrollId || !(page.values ?? []).length) break;
    sid = page.scrollId;
  }
  return [name, rows];
}

async function getJob(name, url) {
  const tk = await authenticate(name);
  const r = await fetch(url, { headers: { Authorization: `Bearer ${tk}` }, signal: AbortSignal.timeout(4000) });
  if (!r.ok) throw new Error(`${name}: ${r.status}`);
  const body = await r.json();
  return [name, Array.isArray(body) ? body.length : body["rdm-service"]];
}

const filter = encodeURIComponent(`equals(type,'rdm/lookupTypes/${X.LCKIT_LOOKUP_TYPE}')`);
const results = await Promise.all([
  scanJob("lookups-of-type", `${rdm}/lookups/${ten}/_scan?limit=100&filter=${filter}`),
  scanJob("lookups-all", `${rdm}/lookups/${ten}/_scan?limit=100&sort=code&order=asc`),
  scanJob("stats-all", `${base}/configuration/${ten}/autopilot/stats/_scan?limit=100`),
  scanJob("stats-type", `${base}/configuration/${ten}/autopilot/stats/${typ}/_scan?limit=100`),
  getJob("blocked", `${base}/configuration/${ten}/autopilot/${typ}/blockedValues?limit=100&offset=0`),
  getJob("version", `${rdm}/version`),
]);
for (const [name, n] of results) console.log(`${name.padEnd(16)} ${n}`);
