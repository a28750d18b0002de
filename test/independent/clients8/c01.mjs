// Catalogue mirror: pulls every lookup and every autopilot statistic of the tenant at the same time
// and prints a small coverage summary (which unmapped values point at codes we hold).
import { appendFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const env = process.env;
const BASE = env.LCKIT_BASE_URL.replace(/\/+$/, "");
const RDM = env.LCKIT_RDM_URL.replace(/\/+$/, "");
const TENANT = env.LCKIT_TENANT;

let bearer = null;

async function fetchToken() {
  const basic = Buffer.from(`${env.LCKIT_CLIENT_ID}:${env.LCKIT_CLIENT_SECRET}`).toString("base64");
  const res = await fetch(env.LCKIT_TOKEN_URL, {
    method: "POST",
    headers: { Authorization: `Basic ${basic}`, "Content-Type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
    signal: AbortSignal.timeout(4000),
  });
  if (!res.ok) throw new Error(`token endpoint said ${res.status}: ${await res.text()}`);
  bearer = (await res.json()).access_token;
}

// the scroll we continue with; set from every page we receive
let cursor = null;

async function page(url, first) {
  const init = {
    method: "POST",
    headers: { Authorization: `Bearer ${bearer}` },
    signal: AbortSignal.timeout(4000),
  };
  if (!first) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(cursor);
  }
  let res = await fetch(url, init);
  if (res.status === 401) {
    await res.text();
    await fetchToken();
    init.headers.Authorization = `Bearer ${bearer}`;
    init.signal = AbortSignal.timeout(4000);
    res = await fetch(url, init);
  }
  if (!res.ok) throw new Error(`${url} -> ${res.status}: ${await res.text()}`);
  const data = await res.json();
  cursor = data.scrollId ?? null;
  return data;
}

// pages are spooled to disk as they arrive (the downstream loader tails these files)
const spoolDir = await mkdtemp(join(tmpdir(), "mirror-"));
async function spool(name, values) {
  await appendFile(join(spoolDir, `${name}.jsonl`), values.map((v) => JSON.stringify(v) + "\n").join(""));
}

async function drain(name, url) {
  const rows = [];
  let first = true;
  for (let i = 0; i < 60; i++) {
    const data = await page(url, first);
    first = false;
    rows.push(...(data.values ?? []));
    await spool(name, data.values ?? []);
    if (!data.scrollId || (data.values ?? []).length === 0) break;
  }
  return rows;
}

let lookups, stats;
try {
  await fetchToken();
  [lookups, stats] = await Promise.all([
    drain("lookups", `${RDM}/lookups/${encodeURIComponent(TENANT)}/_scan?limit=40&sort=code&order=asc`),
    drain("statistics", `${BASE}/configuration/${encodeURIComponent(TENANT)}/autopilot/stats/_scan?limit=15`),
  ]);
} finally {
  await rm(spoolDir, { recursive: true, force: true });
}
const known = new Set(lookups.map((l) => `${l.type.split("/").pop()}:${l.code}`));
let covered = 0;
for (const s of stats) if (s.candidateLookupCode && known.has(`${s.lookupType}:${s.candidateLookupCode}`)) covered++;
console.log(`lookups=${lookups.length} statistics=${stats.length} candidates-known=${covered}`);
