// Checkout UI back end: builds the option list of one lookup type (code -> label) for the
// country picker. Reads the lookups of the type page by page, sorted by code.
import process from "node:process";

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`missing environment variable ${name}`);
  return value;
};

const cfg = {
  rdm: env("LCKIT_RDM_URL").replace(/\/+$/, ""),
  tokenUrl: env("LCKIT_TOKEN_URL"),
  clientId: env("LCKIT_CLIENT_ID"),
  secret: env("LCKIT_CLIENT_SECRET"),
  tenant: env("LCKIT_TENANT"),
  type: env("LCKIT_LOOKUP_TYPE"),
};

async function getToken() {
  const basic = Buffer.from(`${cfg.clientId}:${cfg.secret}`).toString("base64");
  const res = await fetch(cfg.tokenUrl, {
    method: "POST",
    headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
  if (!res.ok) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  const body = await res.json();
  return body.access_token;
}

function labelOf(lookup) {
  for (const mapping of lookup.sourceMappings ?? []) {
    const canonical = (mapping.values ?? []).find((v) => v.canonicalValue);
    if (canonical) return canonical.value;
  }
  return lookup.code;
}

async function loadOptions(token) {
  const query = new URLSearchParams({
    filter: `equals(type,'${cfg.type}')`,
    sort: "code",
    order: "asc",
    limit: "50",
  });
  const url = `${cfg.rdm}/lookups/${encodeURIComponent(cfg.tenant)}/_scan?${query}`;
  const headers = { authorization: `Bearer ${token}`, accept: "application/json" };

  const options = new Map();
  let scrollId = null;
  // Page until the service hands back an empty page; a 4xx on a continuation means the scroll is gone.
  for (let round = 0; round < 40; round++) {
    const res = await fetch(url, {
      method: "POST",
      headers: scrollId ? { ...headers, "content-type": "application/json" } : headers,
      body: scrollId ? JSON.stringify({ scrollId }) : undefined,
    });
    if (!res.ok) {
      if (scrollId && res.status < 500) break;
      throw new Error(`scan failed: ${res.status} ${await res.text()}`);
    }
    const page = await res.json();
    const values = page.values ?? [];
    if (values.length === 0) break;
    for (const lookup of values) {
      if (lookup.enabled === false || options.has(lookup.code)) continue;
      options.set(lookup.code, labelOf(lookup));
    }
    scrollId = page.scrollId || scrollId;
  }
  return options;
}

try {
  const token = await getToken();
  const options = await loadOptions(token);
  const list = [...options].map(([code, label]) => ({ code, label }));
  console.log(JSON.stringify({ type: cfg.type, count: list.length, first: list.slice(0, 3) }));
  if (list.length === 0) {
    console.error("no options loaded");
    process.exit(1);
  }
} catch (err) {
  console.error(`country picker refresh failed: ${err.message}`);
  process.exit(1);
}
