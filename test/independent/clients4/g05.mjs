// Lookup sync monitor: every run checks that the lookup-data service is up, counts the lookups,
// the autopilot statistics and the blocked values of the watched type, and prints one status line for the
// dashboard. Tokens are taken per request so the monitor never holds an expired one.
import process from "node:process";

const E = process.env;
for (const k of ["LCKIT_BASE_URL", "LCKIT_RDM_URL", "LCKIT_TOKEN_URL", "LCKIT_CLIENT_ID", "LCKIT_CLIENT_SECRET", "LCKIT_TENANT", "LCKIT_LOOKUP_TYPE"]) {
  if (!E[k]) {
    console.error(`monitor: ${k} missing`);
    process.exit(2);
  }
}
const base = E.LCKIT_BASE_URL.replace(/\/$/, "");
const rdm = E.LCKIT_RDM_URL.replace(/\/$/, "");
const tenant = encodeURIComponent(E.LCKIT_TENANT);
const type = E.LCKIT_LOOKUP_TYPE;

const pause = (ms) => new Promise((r) => setTimeout(r, ms));

// shared retry helper of the monitoring repo: retries 429 and 503 with a growing pause
async function withRetry(doFetch, tries = 3) {
  let res;
  for (let i = 0; i < tries; i++) {
    res = await doFetch();
    if (res.status !== 429 && res.status !== 503) return res;
    if (i < tries - 1) await pause(500 * 2 ** i);
  }
  return res;
}

let lastToken = null;

async function freshToken() {
  const res = await withRetry(() =>
    fetch(E.LCKIT_TOKEN_URL, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${E.LCKIT_CLIENT_ID}:${E.LCKIT_CLIENT_SECRET}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: "grant_type=client_credentials",
    }),
  );
  if (res.ok) {
    lastToken = (await res.json()).access_token;
  } else if (!lastToken) {
    throw new Error(`no token: ${res.status} ${await res.text()}`);
  } else {
    console.error(`monitor: token endpoint said ${res.status}; using the previous token`);
  }
  return lastToken;
}

async function api(url, init = {}) {
  const token = await freshToken();
  return withRetry(() => fetch(url, { ...init, headers: { ...(init.headers ?? {}), authorization: `Bearer ${token}` } }));
}

async function getJson(url, init) {
  const res = await api(url, init);
  if (!res.ok) throw new Error(`${init?.method ?? "GET"} ${url}: ${res.status}`);
  return res.json();
}

// counts the records of a scan, following its scroll
async function countScan(url) {
  let n = 0;
  let page = await getJson(url, { method: "POST" });
  for (let i = 0; i < 100; i++) {
    n += (page.values ?? []).length;
    if (!page.scrollId || !(page.values ?? []).length) break;
    page = await getJson(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ scrollId: page.scrollId }),
    });
  }
  return n;
}

const countLookups = () =>
  countScan(`${rdm}/lookups/${tenant}/_scan?limit=50&filter=${encodeURIComponent(`equals(type,'${type}')`)}`);
const countStatistics = () => countScan(`${base}/configuration/${tenant}/autopilot/stats/${encodeURIComponent(type)}/_scan?limit=50`);

async function countBlocked() {
  let n = 0;
  for (let offset = 0; offset < 10000; ) {
    const list = await getJson(`${base}/configuration/${tenant}/autopilot/${encodeURIComponent(type)}/blockedValues?offset=${offset}&limit=100`);
    n += list.length;
    if (list.length < 100) break;
    offset += list.length;
  }
  return n;
}

try {
  const health = await getJson(`${rdm}/healthcheck`);
  const status = await getJson(`${rdm}/status`);
  const version = await getJson(`${rdm}/version`);
  const lookups = await countLookups();
  const statistics = await countStatistics();
  const blocked = await countBlocked();
  console.log(
    `rdm=${health.status}/${status.status} version=${version["rdm-service"]} tenant=${E.LCKIT_TENANT} type=${type} lookups=${lookups} statistics=${statistics} blocked=${blocked}`,
  );
} catch (err) {
  console.error(`monitor: ${err.message}`);
  process.exit(1);
}
