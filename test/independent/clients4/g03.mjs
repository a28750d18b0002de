// Nightly cache filler: copies every lookup of the tenant into the edge cache (here: a JSON
// summary on stdout) and stamps the cache with the lookup-data service version.
import process from "node:process";

const need = (name) => {
  const value = process.env[name];
  if (!value) {
    console.error(`cache-filler: ${name} is not set`);
    process.exit(2);
  }
  return value;
};

const RDM = need("LCKIT_RDM_URL").replace(/\/+$/, "");
const TOKEN_URL = need("LCKIT_TOKEN_URL");
const CLIENT_ID = need("LCKIT_CLIENT_ID");
const CLIENT_SECRET = need("LCKIT_CLIENT_SECRET");
const TENANT = need("LCKIT_TENANT");

const PAGE = 37; // small pages keep each response under the edge proxy's buffer
const MAX_PAGES = 500;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// --- token: credentials as form fields first; fall back to HTTP Basic if the server wants that ---
let token = null; // { value, renewAt }

async function requestToken() {
  const attempts = [
    {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
      }).toString(),
    },
    {
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(CLIENT_ID)}:${encodeURIComponent(CLIENT_SECRET)}`).toString("base64")}`,
      },
      body: "grant_type=client_credentials",
    },
  ];
  let last = "";
  for (const attempt of attempts) {
    const res = await fetch(TOKEN_URL, { method: "POST", ...attempt });
    const text = await res.text();
    if (res.ok) {
      const body = JSON.parse(text);
      const lifetime = Number(body.expires_in) > 0 ? Number(body.expires_in) : 3600;
      // renew once three quarters of the lifetime is used up
      token = { value: body.access_token, renewAt: Date.now() + lifetime * 750 };
      return token.value;
    }
    last = `${res.status} ${text}`;
    // only a rejected client authentication or request shape is worth the other form;
    // a refusal (quota, rate limit) is not retried here
    if ((res.status !== 400 && res.status !== 401) || /limit|quota/i.test(text)) break;
  }
  throw new Error(`token request refused: ${last}`);
}

async function currentToken() {
  if (token && Date.now() < token.renewAt) return token.value;
  return requestToken();
}

// --- one API call with 429 back-off and a single re-authentication on an invalid token ---
async function call(url, init = {}) {
  let reauthenticated = false;
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(url, {
      ...init,
      headers: { ...(init.headers ?? {}), authorization: `Bearer ${await currentToken()}` },
    });
    if (res.status === 429 && attempt < 4) {
      // rate limited: wait as told (or 1 s, 2 s, 3 s); a wait longer than 5 s fails the run
      const told = res.headers.get("retry-after");
      const wait = told === null ? attempt : Number(told);
      if (!(wait >= 0 && wait <= 5)) return res;
      await sleep(wait * 1000);
      continue;
    }
    if (res.status === 401 && !reauthenticated) {
      reauthenticated = true;
      token = null; // the service says the token is no good (expired): take a fresh one
      continue;
    }
    return res;
  }
}

async function json(res, what) {
  const text = await res.text();
  if (!res.ok) throw new Error(`${what}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

async function serviceVersion() {
  const body = await json(await call(`${RDM}/version`), "version");
  return body?.["rdm-service"] == null ? "unknown" : String(body["rdm-service"]);
}

// How the next-page body carries the scroll id differs between deployments. This job sends it
// as a JSON string first; when a continuation is refused with 400 it tries the other two forms
// once and keeps the one that is accepted.
const ENCODINGS = [
  (id) => ({ headers: { "content-type": "application/json" }, body: JSON.stringify(id) }),
  (id) => ({ headers: { "content-type": "application/json" }, body: JSON.stringify({ scrollId: id }) }),
  (id) => ({ headers: { "content-type": "text/plain" }, body: id }),
];
let encoding = 0;

async function continueScroll(url, scrollId, page) {
  let res = await call(url, { method: "POST", ...ENCODINGS[encoding](scrollId) });
  for (let k = 1; res.status === 400 && k < ENCODINGS.length; k++) {
    await res.text();
    const other = (encoding + k) % ENCODINGS.length;
    res = await call(url, { method: "POST", ...ENCODINGS[other](scrollId) });
    if (res.ok) encoding = other;
  }
  return json(res, `scan page ${page + 1}`);
}

// Scroll through all lookups; the scan ends on an empty page or on a page without a scroll id.
async function* allLookups() {
  const url = `${RDM}/lookups/${encodeURIComponent(TENANT)}/_scan?limit=${PAGE}`;
  let scrollId = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const body =
      scrollId === null ? await json(await call(url, { method: "POST" }), "scan page 1") : await continueScroll(url, scrollId, page);
    const values = Array.isArray(body?.values) ? body.values : [];
    yield* values;
    if (values.length === 0 || typeof body.scrollId !== "string" || body.scrollId === "") return;
    scrollId = body.scrollId;
  }
  throw new Error(`scan did not end within ${MAX_PAGES} pages`);
}

try {
  const version = await serviceVersion();
  const cache = new Map();
  for await (const lookup of allLookups()) {
    cache.set(`${lookup.type}/${lookup.code}`, lookup);
  }
  const perType = {};
  for (const lookup of cache.values()) perType[lookup.type] = (perType[lookup.type] ?? 0) + 1;
  console.log(JSON.stringify({ tenant: TENANT, version, entries: cache.size, perType }));
  if (cache.size === 0) console.error("cache-filler: warning, the tenant has no lookups");
} catch (err) {
  console.error(`cache-filler: ${err.message}`);
  process.exit(1);
}
