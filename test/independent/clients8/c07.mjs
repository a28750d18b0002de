// Retire disabled lookups: the sync job scans the lookups of its type, collects the disabled ones and
// asks the lookup-data service to delete exactly those (in batches), then reports the task answers.
const E = process.env;
const rdm = E.LCKIT_RDM_URL.replace(/\/+$/, "");
const typeUri = `rdm/lookupTypes/${E.LCKIT_LOOKUP_TYPE}`;
const BATCH = 200;

async function obtainToken() {
  const form = new URLSearchParams({ grant_type: "client_credentials" });
  const res = await fetch(E.LCKIT_TOKEN_URL, {
    method: "POST",
    headers: {
      Authorization: "Basic " + btoa(`${E.LCKIT_CLIENT_ID}:${E.LCKIT_CLIENT_SECRET}`),
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body: form,
    signal: AbortSignal.timeout(5000),
  });
  const json = await res.json().catch(() => ({}));
  if (res.status !== 200 || !json.access_token) throw new Error(`token refused: ${res.status}`);
  return json.access_token;
}

let token = await obtainToken();
const authed = (extra = {}) => ({ Authorization: `Bearer ${token}`, ...extra });

// one renewal when the service says the token is no longer good
async function send(url, build) {
  let res = await fetch(url, build());
  if (res.status === 401) {
    await res.text();
    token = await obtainToken();
    res = await fetch(url, build());
  }
  return res;
}

async function* lookupsOfType() {
  const q = new URLSearchParams({ filter: `equals(type,'${typeUri}')`, limit: "100", sort: "code", order: "asc" });
  const url = `${rdm}/lookups/${encodeURIComponent(E.LCKIT_TENANT)}/_scan?${q}`;
  let next = undefined;
  for (let guard = 0; guard < 50; guard++) {
    const res = await send(url, () => ({
      method: "POST",
      headers: authed(next ? { "Content-Type": "application/json" } : {}),
      body: next ? JSON.stringify({ scrollId: next }) : undefined,
      signal: AbortSignal.timeout(5000),
    }));
    if (!res.ok) throw new Error(`scan ${res.status} ${await res.text()}`);
    const page = await res.json();
    yield* page.values ?? [];
    if (!page.scrollId || !page.values?.length) return;
    next = page.scrollId;
  }
}

const doomed = [];
for await (const lk of lookupsOfType()) {
  if (lk.enabled === false && lk.type === typeUri) doomed.push(`${lk.type}/${lk.code}`);
}

if (doomed.length === 0) {
  console.log("nothing to retire");
} else {
  for (let i = 0; i < doomed.length; i += BATCH) {
    const uris = doomed.slice(i, i + BATCH);
    const res = await send(`${rdm}/tasks/${encodeURIComponent(E.LCKIT_TENANT)}`, () => ({
      method: "POST",
      headers: authed({ "Content-Type": "application/json" }),
      body: JSON.stringify({ type: "delete", parameters: { uris } }),
      signal: AbortSignal.timeout(5000),
    }));
    const text = await res.text();
    if (!res.ok) {
      console.error(`delete task refused: ${res.status} ${text}`);
      process.exit(1);
    }
    console.log(`task for ${uris.length} lookups: ${text.slice(0, 200)}`);
  }
}
