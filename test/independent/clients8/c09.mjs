// Blocked-values exporter for the autopilot team: dumps every blocked value of the configured lookup
// type as JSON lines, then the version of the lookup-data service it was taken against.
import https from "node:https";
import http from "node:http";

const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`missing ${k}`);
  return v;
};

function httpJson(method, target, headers = {}, payload) {
  const u = new URL(target);
  const mod = u.protocol === "https:" ? https : http;
  return new Promise((ok, fail) => {
    const req = mod.request(u, { method, headers }, (res) => {
      let buf = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (buf += d));
      res.on("end", () => ok({ status: res.statusCode, body: buf ? JSON.parse(buf) : null }));
    });
    req.setTimeout(5000, () => req.destroy(new Error("request timed out")));
    req.on("error", fail);
    if (payload) req.end(payload); else req.end();
  });
}

async function login() {
  const r = await httpJson("POST", env("LCKIT_TOKEN_URL"), {
    Authorization: `Basic ${basic}`,
    "Content-Type": "application/x-www-form-urlencoded",
  }, "grant_type=client_credentials");
  if (r.status !== 200) {
    console.error("token request failed", r.status, r.body);
    process.exit(1);
  }
  return { Authorization: `Bearer ${r.body.access_token}` };
}

// GET with our bearer; a 401 (expired token) gets one new token and one more try
async function authedGet(target) {
  let r = await httpJson("GET", target, auth);
  if (r.status === 401) {
    auth = await login();
    r = await httpJson("GET", target, auth);
  }
  return r;
}

const basic = Buffer.from(`${env("LCKIT_CLIENT_ID")}:${env("LCKIT_CLIENT_SECRET")}`).toString("base64");
let auth = await login();

// big pages: the blocked lists are short, one round trip is usually enough
const PAGE_SIZE = 500;
const endpoint = `${env("LCKIT_BASE_URL").replace(/\/$/, "")}/configuration/${encodeURIComponent(env("LCKIT_TENANT"))}` +
  `/autopilot/${encodeURIComponent(env("LCKIT_LOOKUP_TYPE"))}/blockedValues`;

let offset = 0;
let total = 0;
for (let round = 0; round < 25; round++) {
  const r = await authedGet(`${endpoint}?offset=${offset}&limit=${PAGE_SIZE}`, auth);
  if (r.status !== 200) {
    console.error("blocked values:", r.status, JSON.stringify(r.body));
    process.exit(1);
  }
  for (const row of r.body) console.log(JSON.stringify({ value: row.value, by: row.createdBy, at: row.createdAt }));
  total += r.body.length;
  if (r.body.length < PAGE_SIZE) break;
  offset += r.body.length;
}

const v = await authedGet(`${env("LCKIT_RDM_URL").replace(/\/$/, "")}/version`, auth);
console.error(`${total} blocked values; rdm-service ${v.body?.["rdm-service"]}`);
