// Nightly clean-up of retired codes (run as the sync client): the lookups of one type that are disabled
// are deleted by URI with one delete task per chunk of 50; the job then re-reads the type with a filter
// and reports what is left. Only the configured type is ever touched.
const need = (k) => process.env[k] ?? (() => { throw new Error(`${k} is not set`); })();
const rdmUrl = need("LCKIT_RDM_URL").replace(/\/$/, "");
const tenant = need("LCKIT_TENANT");
const typeName = need("LCKIT_LOOKUP_TYPE");
const CHUNK = 50;

let token;
let tokenExpiresAt = 0;
async function bearer() {
  if (token && Date.now() < tokenExpiresAt) return token;
  const res = await fetch(need("LCKIT_TOKEN_URL"), {
    method: "POST",
    headers: {
      Authorization: `Basic ${Buffer.from(`${need("LCKIT_CLIENT_ID")}:${need("LCKIT_CLIENT_SECRET")}`).toString("base64")}`,
      "Content-Type": "application/x-www-form-urlencoded",
      Accept: "application/json",
    },
    body: new URLSearchParams({ grant_type: "client_credentials" }).toString(),
    signal: AbortSignal.timeout(5000),
  });
  if (!res.ok) throw new Error(`token: HTTP ${res.status} ${await res.text()}`);
  const t = await res.json();
  token = t.access_token;
  // renew ten seconds early, never hold a token beyond what the service promised
  tokenExpiresAt = Date.now() + Math.max(1, (Number(t.expires_in) || 60) - 10) * 1000;
  return token;
}

async function postJson(url, body, retried = false) {
  const init = { method: "POST", headers: { Authorization: `Bearer ${await bearer()}` }, signal: AbortSignal.timeout(5000) };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(url, init);
  const text = await res.text();
  if (res.status === 401 && !retried) {
    // the service ended the token before our own clock did: drop it and try once more
    token = undefined;
    return postJson(url, body, true);
  }
  if (!res.ok) throw new Error(`POST ${url}: HTTP ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function readType() {
  const qs = new URLSearchParams({ limit: "33", filter: `equals(type,'rdm/lookupTypes/${typeName}')`, sort: "code", order: "asc" });
  const url = `${rdmUrl}/lookups/${encodeURIComponent(tenant)}/_scan?${qs}`;
  const found = [];
  let page = await postJson(url, null);
  for (let i = 0; i < 100; i++) {
    found.push(...(page.values ?? []));
    if (!page.scrollId || !(page.values ?? []).length) break;
    page = await postJson(url, page.scrollId);
  }
  return found.filter((l) => l.type === `rdm/lookupTypes/${typeName}`);
}

const before = await readType();
const retire = before.filter((l) => l.enabled === false).map((l) => `${tenant}/${typeName}/${l.code}`);
const tasks = [];
for (let i = 0; i < retire.length; i += CHUNK) {
  const task = await postJson(`${rdmUrl}/tasks/${encodeURIComponent(tenant)}`, {
    type: "delete",
    parameters: { uris: retire.slice(i, i + CHUNK) },
  });
  tasks.push(task?.id ?? "(no id)");
}
const after = await readType();
console.log(`${typeName}: ${before.length} before, ${retire.length} retired in ${tasks.length} task(s) [${tasks.join(", ")}], ${after.length} visible now`);
