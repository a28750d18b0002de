// Daily data-quality digest: the lookups of one type (newest code first), the autopilot statistics
// across all types and for that type, the blocked values of the type, and the service version.
// Token policy: renew ahead of expiry from expires_in (30 s margin, or a third of the validity when
// that is shorter); a 401 still triggers one renewal and one retry.
import { setTimeout as sleep } from "node:timers/promises";

const cfg = {
  base: process.env.LCKIT_BASE_URL.replace(/\/$/, ""),
  rdm: process.env.LCKIT_RDM_URL.replace(/\/$/, ""),
  tokenUrl: process.env.LCKIT_TOKEN_URL,
  id: process.env.LCKIT_CLIENT_ID,
  secret: process.env.LCKIT_CLIENT_SECRET,
  tenant: process.env.LCKIT_TENANT,
  type: process.env.LCKIT_LOOKUP_TYPE,
};

const tokenState = { value: null, renewAt: 0, pending: null };

async function requestToken() {
  for (let attempt = 0; attempt < 3; attempt++) {
    const res = await fetch(`${cfg.tokenUrl}?grant_type=client_credentials`, {
      method: "POST",
      headers: { Authorization: "Basic " + Buffer.from(`${cfg.id}:${cfg.secret}`).toString("base64") },
      signal: AbortSignal.timeout(5000),
    });
    if (res.ok) {
      const body = await res.json();
      const life = Number(body.expires_in) > 0 ? Number(body.expires_in) : 3600;
      const margin = Math.min(30, life / 3);
      tokenState.value = body.access_token;
      tokenState.renewAt = Date.now() + (life - margin) * 1000;
      return;
    }
    const text = await res.text();
    // quota refusal: keep a still-valid token if we have one, otherwise wait a little and give up
    if (res.status === 429 && tokenState.value) return;
    if (res.status === 429) {
      const wait = Math.min(Number(res.headers.get("retry-after")) || 1, 2);
      await sleep(wait * 1000);
      continue;
    }
    throw new Error(`token: ${res.status} ${text}`);
  }
  throw new Error("token: refused repeatedly");
}

async function token(force = false) {
  if (!force && tokenState.value && Date.now() < tokenState.renewAt) return tokenState.value;
  // one renewal at a time, shared by concurrent callers
  tokenState.pending ??= requestToken().finally(() => (tokenState.pending = null));
  await tokenState.pending;
  return tokenState.value;
}

async function call(method, url, body) {
  let used = await token();
  for (let round = 0; round < 2; round++) {
    const headers = { Authorization: `Bearer ${used}` };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(5000),
    });
    if (res.status === 401 && round === 0) {
      await res.text();
      used = used === tokenState.value ? await token(true) : tokenState.value;
      continue;
    }
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
    return res.json();
  }
}

// each scan owns its scroll; the next-page body is the scroll id as a JSON string
async function scan(url) {
  const out = [];
  let scrollId;
  for (let n = 0; n < 100; n++) {
    const page = await call("POST", url, scrollId);
    const values = page.values ?? [];
    out.push(...values);
    if (typeof page.scrollId !== "string" || page.scrollId === "" || values.length === 0) return out;
    scrollId = page.scrollId;
  }
  return out;
}

async function blocked() {
  const all = [];
  for (let offset = 0, i = 0; i < 50; i++) {
    const rows = await call("GET",
      `${cfg.base}/configuration/${encodeURIComponent(cfg.tenant)}/autopilot/${encodeURIComponent(cfg.type)}/blockedValues?offset=${offset}&limit=100`);
    all.push(...rows);
    if (rows.length < 100) break;
    offset += rows.length;
  }
  return all;
}

const t = encodeURIComponent(cfg.tenant);
const filter = encodeURIComponent(`equals(type,'rdm/lookupTypes/${cfg.type}')`);
const [lookups, allStats, typeStats, blockedValues, version] = await Promise.all([
  scan(`${cfg.rdm}/lookups/${t}/_scan?limit=7&filter=${filter}&sort=code&order=desc`),
  scan(`${cfg.base}/configuration/${t}/autopilot/stats/_scan?limit=9&sort=createdAt&order=asc`),
  scan(`${cfg.base}/configuration/${t}/autopilot/stats/${encodeURIComponent(cfg.type)}/_scan`),
  blocked(),
  call("GET", `${cfg.rdm}/version`),
]);

const disabled = lookups.filter((l) => l.enabled === false).map((l) => l.code);
console.log(JSON.stringify({
  version: version["rdm-service"],
  lookups: lookups.length,
  disabled,
  statistics: { all: allStats.length, ofType: typeStats.length },
  blocked: blockedValues.map((b) => b.value),
}, null, 1));
