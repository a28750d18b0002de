// Blocklist auditor: finds every lookup type that appears in the autopilot statistics and lists the
// blocked values of each, flagging statistics whose unmapped value is blocked. The token is kept until
// the service refuses it; then a new one is fetched and the request is retried once.
import { request } from "node:http";
import { request as requestTls } from "node:https";

const { LCKIT_BASE_URL, LCKIT_TOKEN_URL, LCKIT_CLIENT_ID, LCKIT_CLIENT_SECRET, LCKIT_TENANT } = process.env;

function send(urlText, { method = "GET", headers = {}, body } = {}) {
  const url = new URL(urlText);
  const lib = url.protocol === "https:" ? requestTls : request;
  return new Promise((resolve, reject) => {
    const req = lib(url, { method, headers, timeout: 5000 }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json = null;
        try { json = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
        resolve({ status: res.statusCode, json, text });
      });
    });
    req.on("timeout", () => req.destroy(new Error(`timeout: ${method} ${urlText}`)));
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

let accessToken = null;
async function newToken() {
  const r = await send(LCKIT_TOKEN_URL, {
    method: "POST",
    headers: {
      authorization: "Basic " + Buffer.from(`${LCKIT_CLIENT_ID}:${LCKIT_CLIENT_SECRET}`).toString("base64"),
      "content-type": "application/x-www-form-urlencoded",
    },
    body: "grant_type=client_credentials",
  });
  if (r.status !== 200) throw new Error(`token ${r.status} ${r.text}`);
  accessToken = r.json.access_token;
}

async function api(url, opts = {}) {
  if (!accessToken) await newToken();
  const headers = { ...(opts.headers ?? {}), authorization: `Bearer ${accessToken}` };
  let r = await send(url, { ...opts, headers });
  if (r.status === 401) {
    // expired or revoked: get a fresh one and try again
    await newToken();
    r = await send(url, { ...opts, headers });
  }
  if (r.status >= 300) throw new Error(`${opts.method ?? "GET"} ${url} -> ${r.status} ${r.text}`);
  return r.json;
}

const cfgRoot = `${LCKIT_BASE_URL.replace(/\/$/, "")}/configuration/${encodeURIComponent(LCKIT_TENANT)}/autopilot`;

const stats = [];
let scroll = null;
for (let i = 0; i < 100; i++) {
  const page = await api(`${cfgRoot}/stats/_scan?limit=20`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(scroll === null ? null : { scrollId: scroll }),
  });
  stats.push(...(page.values ?? []));
  if (!page.scrollId || !(page.values ?? []).length) break;
  scroll = page.scrollId;
}

const byType = new Map();
for (const s of stats) {
  if (!byType.has(s.lookupType)) byType.set(s.lookupType, []);
  byType.get(s.lookupType).push(s);
}

let flagged = 0;
for (const [type, rows] of byType) {
  const blocked = new Set();
  for (let offset = 0, n = 0; n < 20; n++) {
    const page = await api(`${cfgRoot}/${encodeURIComponent(type)}/blockedValues?offset=${offset}&limit=50`);
    for (const b of page ?? []) blocked.add(String(b.value).toLowerCase());
    if (!page || page.length < 50) break;
    offset += page.length;
  }
  const hits = rows.filter((s) => blocked.has(String(s.unmappedValue).toLowerCase()));
  flagged += hits.length;
  console.log(`${type}: ${rows.length} statistics, ${blocked.size} blocked, ${hits.length} blocked-but-tracked`);
}
console.log(`types=${byType.size} flagged=${flagged}`);
