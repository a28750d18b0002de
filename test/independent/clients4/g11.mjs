// Blocked-values digest for the data stewards: for every lookup type that has lookups in the
// tenant, list the values blocked from autopilot processing, and mail (here: print) a digest.
import process from "node:process";

const cfg = Object.fromEntries(
  ["LCKIT_BASE_URL", "LCKIT_RDM_URL", "LCKIT_TOKEN_URL", "LCKIT_CLIENT_ID", "LCKIT_CLIENT_SECRET", "LCKIT_TENANT"].map((k) => {
    if (!process.env[k]) {
      console.error(`digest: ${k} is required`);
      process.exit(2);
    }
    return [k, process.env[k].replace(/\/+$/, "")];
  }),
);

async function login() {
  const res = await fetch(cfg.LCKIT_TOKEN_URL, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(`${cfg.LCKIT_CLIENT_ID}:${cfg.LCKIT_CLIENT_SECRET}`).toString("base64")}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: "grant_type=client_credentials",
  });
  if (!res.ok) throw new Error(`login failed (${res.status})`);
  return (await res.json()).access_token;
}

async function lookupTypes(auth) {
  const url = `${cfg.LCKIT_RDM_URL}/lookups/${encodeURIComponent(cfg.LCKIT_TENANT)}/_scan?limit=100`;
  const types = new Set();
  let body;
  for (let i = 0; i < 200; i++) {
    const res = await fetch(url, {
      method: "POST",
      headers: body === undefined ? auth : { ...auth, "content-type": "application/json" },
      body,
    });
    if (!res.ok) throw new Error(`lookup scan failed (${res.status})`);
    const page = await res.json();
    for (const lookup of page.values ?? []) types.add(lookup.type);
    if (!page.scrollId || !page.values?.length) break;
    body = JSON.stringify({ scrollId: page.scrollId });
  }
  return [...types].sort();
}

async function blockedValues(auth, lookupType) {
  const all = [];
  for (let offset = 0; offset < 5000; offset += 100) {
    const url = `${cfg.LCKIT_BASE_URL}/configuration/${encodeURIComponent(cfg.LCKIT_TENANT)}/autopilot/${encodeURIComponent(lookupType)}/blockedValues?offset=${offset}&limit=100`;
    const res = await fetch(url, { headers: auth });
    if (res.status === 404) return null; // no autopilot configuration for this type
    if (!res.ok) throw new Error(`blocked values of ${lookupType} failed (${res.status})`);
    const page = await res.json();
    all.push(...page);
    if (page.length < 100) break;
  }
  return all;
}

try {
  const auth = { authorization: `Bearer ${await login()}` };
  const types = await lookupTypes(auth);
  const digest = [];
  for (const type of types) {
    const blocked = await blockedValues(auth, type);
    digest.push({ type, blocked: blocked === null ? "no autopilot configuration" : blocked.length, sample: blocked?.slice(0, 3).map((b) => b.value) });
  }
  console.log(JSON.stringify({ tenant: cfg.LCKIT_TENANT, types: digest.length, digest }, null, 1));
} catch (err) {
  console.error(`digest: ${err.message}`);
  process.exit(1);
}
