// Synthetic probe run by the platform team every five minutes: is the lookup-data service up,
// which version runs, and does the autopilot configuration answer for the tenant?
// Prints one JSON line for the probe collector; exits 1 when a check fails.
import process from "node:process";

const {
  LCKIT_BASE_URL: BASE,
  LCKIT_RDM_URL: RDM,
  LCKIT_TOKEN_URL: TOKEN_URL,
  LCKIT_CLIENT_ID: CLIENT_ID,
  LCKIT_CLIENT_SECRET: CLIENT_SECRET,
  LCKIT_TENANT: TENANT,
  LCKIT_LOOKUP_TYPE: TYPE,
} = process.env;

if (!BASE || !RDM || !TOKEN_URL || !CLIENT_ID || !CLIENT_SECRET || !TENANT || !TYPE) {
  console.error("probe: LCKIT_* environment incomplete");
  process.exit(2);
}

const timeout = () => AbortSignal.timeout(10_000);
let tokenPromise = null;

function token() {
  tokenPromise ??= (async () => {
    const res = await fetch(TOKEN_URL, {
      method: "POST",
      signal: timeout(),
      headers: {
        authorization: `Basic ${btoa(`${CLIENT_ID}:${CLIENT_SECRET}`)}`,
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
      },
      body: "grant_type=client_credentials",
    });
    if (!res.ok) throw new Error(`token endpoint ${res.status}`);
    return (await res.json()).access_token;
  })();
  return tokenPromise;
}

// Health endpoints are meant for load balancers, so the probe calls them bare; only if an
// environment puts them behind the gateway's auth does it repeat the call with a token.
async function health(path) {
  const started = Date.now();
  let res = await fetch(`${RDM.replace(/\/$/, "")}${path}`, { signal: timeout() });
  if (res.status === 401 || res.status === 403) {
    res = await fetch(`${RDM.replace(/\/$/, "")}${path}`, {
      signal: timeout(),
      headers: { authorization: `Bearer ${await token()}` },
    });
  }
  const body = res.ok ? await res.json() : null;
  return { path, status: res.status, ms: Date.now() - started, body };
}

async function autopilotReachable() {
  const url = `${BASE.replace(/\/$/, "")}/configuration/${encodeURIComponent(TENANT)}/autopilot/stats/${encodeURIComponent(TYPE)}/_scan?limit=5`;
  const res = await fetch(url, {
    method: "POST",
    signal: timeout(),
    headers: { authorization: `Bearer ${await token()}` },
  });
  const body = res.ok ? await res.json() : null;
  return { path: "autopilot stats", status: res.status, sample: body?.values?.length ?? 0 };
}

const checks = [];
let failed = false;
try {
  for (const path of ["/healthcheck", "/status", "/version"]) {
    const result = await health(path);
    checks.push(result);
    if (result.status !== 200) failed = true;
    if (path !== "/version" && result.body?.status !== "OK") failed = true;
  }
  const ap = await autopilotReachable();
  checks.push(ap);
  if (ap.status !== 200) failed = true;
} catch (err) {
  console.error(`probe: ${err.message}`);
  failed = true;
}
const version = checks.find((c) => c.path === "/version")?.body?.["rdm-service"];
console.log(JSON.stringify({ probe: "rdm", ok: !failed, version: version ?? null, checks: checks.map(({ body, ...c }) => c) }));
process.exit(failed ? 1 : 0);
