#!/usr/bin/env node
// Heron's own self-test, from the vendor's reading of the interface document: every check passes on the
// correct server and under every legal choice; each fault fails the check named for it in faults.json's
// order (FAULT_CHECK below). Each check runs against a fresh server. Usage: node selftest.mjs
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const faults = JSON.parse(readFileSync(join(here, "faults.json"), "utf8"));
const choices = JSON.parse(readFileSync(join(here, "choices.json"), "utf8"));
const creds = {};
for (const line of readFileSync(join(here, "credentials.env"), "utf8").split("\n")) {
  const m = /^export ([A-Z_]+)=(.*)$/.exec(line.trim());
  if (m) creds[m[1]] = m[2];
}
const who = {
  admin: ["ORCHARD_ADMIN_ID", "ORCHARD_ADMIN_SECRET"],
  editor: ["ORCHARD_EDITOR_ID", "ORCHARD_EDITOR_SECRET"],
  viewer: ["ORCHARD_VIEWER_ID", "ORCHARD_VIEWER_SECRET"],
  quota: ["ORCHARD_BATCH_ID", "ORCHARD_BATCH_SECRET"],
  otherAdmin: ["QUARRY_ADMIN_ID", "QUARRY_ADMIN_SECRET"],
  rdbmsAdmin: ["VAULT_ADMIN_ID", "VAULT_ADMIN_SECRET"],
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
class Violation extends Error {}
const expect = (ok, message) => {
  if (!ok) throw new Violation(message);
};

function start(env) {
  const child = spawn(process.execPath, [join(here, "server.mjs"), "--port", "0"], {
    env: { ...process.env, FAULT: "", CHOICES: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = /listening (\d+)/.exec(out);
      if (m) resolve({ base: `http://127.0.0.1:${m[1]}`, stop: () => child.kill("SIGTERM") });
    });
    child.on("exit", (code) => reject(new Error(`server exited ${code}`)));
  });
}

function client(base) {
  const tokens = {};
  const requestToken = async (role) => {
    const [id, secret] = who[role].map((k) => creds[k]);
    const res = await fetch(`${base}/oauth/token`, {
      method: "POST",
      headers: {
        Authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`,
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: "grant_type=client_credentials",
    });
    return { status: res.status, body: await res.json() };
  };
  const tokenOf = async (role) => {
    if (!tokens[role]) {
      const r = await requestToken(role);
      expect(r.status === 200, `token for ${role}: ${r.status}`);
      tokens[role] = r.body.access_token;
    }
    return tokens[role];
  };
  const call = async (method, path, { role = "admin", token, body, raw, auth = true } = {}) => {
    const headers = {};
    if (auth) headers.Authorization = `Bearer ${token ?? (await tokenOf(role))}`;
    let payload;
    if (raw !== undefined) payload = raw;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers["Content-Type"] = "application/json";
    }
    const res = await fetch(`${base}${path}`, { method, headers, body: payload });
    const text = await res.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: res.status, body: json, text };
  };
  /** Every record of a scan, following scroll ids until an empty page or a response without one. */
  const scanAll = async (path, role = "admin", pages = 100) => {
    const all = [];
    let first = await call("POST", path, { role });
    expect(first.status === 200, `${path}: ${first.status} ${first.text.slice(0, 200)}`);
    let page = first.body;
    let n = 0;
    while (true) {
      expect(Array.isArray(page.values), "values must be an array");
      all.push(...page.values);
      if (page.values.length === 0 || typeof page.scrollId !== "string") break;
      expect(++n < pages, "scan does not end");
      // alternate the two body encodings clients use
      const next =
        n % 2 ? await call("POST", path, { role, body: { scrollId: page.scrollId } }) : await call("POST", path, { role, raw: page.scrollId });
      expect(next.status === 200, `continuation ${next.status} ${next.text.slice(0, 200)}`);
      page = next.body;
    }
    return all;
  };
  const configureCustomer = (max, role = "admin", id = "cus-orchard", tenants = ["orchard"]) =>
    call("PUT", `/oauth/customers/${id}`, {
      role,
      body: {
        id,
        tenants,
        description: "self-test",
        ...(max === null ? {} : { multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: max } } }),
      },
    });
  const setValidity = (clientId, seconds) =>
    call("PUT", "/oauth/customers/cus-orchard/clients", { body: [{ clientId, accessTokenValidity: seconds }] });
  return { requestToken, tokenOf, call, scanAll, configureCustomer, setValidity };
}

const declined = (r) => r.status >= 400 && r.status < 500 && /exceed/i.test(JSON.stringify(r.body));
const eventually = async (probe, ms = 3000) => {
  const until = Date.now() + ms;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() > until) return false;
    await sleep(150);
  }
};
const BATCH = creds.ORCHARD_BATCH_ID;

const CHECKS = {
  "same-token-without-multitoken": async (c) => {
    const a = await c.requestToken("viewer");
    const b = await c.requestToken("viewer");
    expect(a.status === 200 && b.status === 200, "token requests succeed");
    expect(a.body.access_token === b.body.access_token, "multi-token off: the same token is returned again");
  },
  "quota-declines-at-limit": async (c) => {
    expect((await c.configureCustomer(3)).status === 200, "configure quota 3");
    const got = new Set();
    for (let i = 0; i < 3; i++) {
      const r = await c.requestToken("quota");
      expect(r.status === 200, `token ${i + 1} of 3 issued`);
      got.add(r.body.access_token);
    }
    expect(got.size === 3, "multi-token on: every request returns a new token");
    expect(declined(await c.requestToken("quota")), "4th token at the limit is declined with limit exceeded");
  },
  "expired-tokens-leave-quota": async (c) => {
    expect((await c.setValidity(BATCH, 2)).status === 200, "set validity 2 s");
    expect((await c.configureCustomer(2)).status === 200, "quota 2");
    for (let i = 0; i < 2; i++) expect((await c.requestToken("quota")).status === 200, "issued");
    expect(declined(await c.requestToken("quota")), "declined at the limit");
    await sleep(2300);
    expect((await c.requestToken("quota")).status === 200, "after expiry the quota frees up");
  },
  "quota-per-client": async (c) => {
    await c.tokenOf("admin");
    expect((await c.configureCustomer(2)).status === 200, "quota 2");
    for (let i = 0; i < 2; i++) expect((await c.requestToken("quota")).status === 200, "issued");
    expect(declined(await c.requestToken("quota")), "quota client declined");
    const e = await c.requestToken("editor");
    expect(e.status === 200, `another client of the customer has its own quota (got ${e.status})`);
  },
  "raised-quota-applies": async (c) => {
    expect((await c.configureCustomer(2)).status === 200, "quota 2");
    for (let i = 0; i < 2; i++) expect((await c.requestToken("quota")).status === 200, "issued");
    expect(declined(await c.requestToken("quota")), "declined at 2");
    expect((await c.configureCustomer(4)).status === 200, "quota 4");
    expect((await c.requestToken("quota")).status === 200, "after raising the quota a token is issued");
  },
  "multitoken-removed-returns-same-token": async (c) => {
    expect((await c.configureCustomer(5)).status === 200, "quota 5");
    const a = await c.requestToken("quota");
    const b = await c.requestToken("quota");
    expect(a.body.access_token !== b.body.access_token, "multi-token on: new tokens");
    expect((await c.configureCustomer(null)).status === 200, "multitokenConfig removed");
    const x = await c.requestToken("quota");
    const y = await c.requestToken("quota");
    expect(x.body.access_token === y.body.access_token, "multi-token off again: the same token is returned");
  },
  "validity-change-applies": async (c) => {
    expect((await c.requestToken("quota")).status === 200, "first token");
    expect((await c.setValidity(BATCH, 5)).status === 200, "validity 5 s");
    expect((await c.configureCustomer(5)).status === 200, "quota 5");
    const r = await c.requestToken("quota");
    expect(r.status === 200 && r.body.expires_in <= 5, `new token follows accessTokenValidity 5 (expires_in ${r.body.expires_in})`);
  },
  "validity-starts-at-issue": async (c) => {
    expect((await c.setValidity(BATCH, 3)).status === 200, "validity 3 s");
    expect((await c.configureCustomer(5)).status === 200, "quota 5");
    expect((await c.requestToken("quota")).status === 200, "token A");
    await sleep(1600);
    const b = await c.requestToken("quota");
    expect(b.status === 200 && b.body.expires_in >= 3, `token B's validity starts at its issue (expires_in ${b.body.expires_in})`);
    await sleep(1700);
    const use = await c.call("GET", "/status", { token: b.body.access_token });
    expect(use.status === 200, "token B still valid after token A expired");
  },
  "expired-token-refused": async (c) => {
    expect((await c.setValidity(BATCH, 2)).status === 200, "validity 2 s");
    const r = await c.requestToken("quota");
    const ok = await c.call("POST", "/lookups/orchard/_scan?limit=1", { token: r.body.access_token });
    expect(ok.status === 200, "fresh token works");
    await sleep(2300);
    const late = await c.call("POST", "/lookups/orchard/_scan?limit=1", { token: r.body.access_token });
    expect(late.status === 401 && /expired/i.test(late.text), `expired token refused with an expired-token error (${late.status})`);
  },
  "two-scrolls-independent": async (c) => {
    const a = await c.call("POST", "/lookups/orchard/_scan?filter=equals(type,'Country')&limit=10&sort=code");
    const b = await c.call("POST", "/lookups/orchard/_scan?filter=equals(type,'Currency')&limit=10&sort=code");
    expect(a.status === 200 && b.status === 200, "both scans open");
    const a2 = await c.call("POST", "/lookups/orchard/_scan", { body: { scrollId: a.body.scrollId } });
    expect(a2.status === 200, `continuation of A: ${a2.status}`);
    expect(
      a2.body.values.length === 10 && a2.body.values.every((l) => l.type === "rdm/lookupTypes/Country"),
      "A's next page holds A's records",
    );
    expect(a2.body.values[0].code > a.body.values.at(-1).code, "A's next page follows A's first page");
  },
  "filter-holds-on-every-page": async (c) => {
    const all = await c.scanAll("/lookups/orchard/_scan?filter=equals(type,'Currency')&limit=15");
    expect(all.every((l) => l.type === "rdm/lookupTypes/Currency"), "every page honours the filter");
    expect(all.length === 40, `all 40 Currency lookups (${all.length})`);
  },
  "type-scan-pages-complete": async (c) => {
    const typed = await c.scanAll("/configuration/orchard/autopilot/stats/Currency/_scan?limit=10");
    const all = await c.scanAll("/configuration/orchard/autopilot/stats/_scan");
    const expected = all.filter((s) => s.lookupType === "Currency").length;
    const keys = new Set(typed.map((s) => `${s.source}|${s.unmappedValue}`));
    expect(keys.size === typed.length && typed.length === expected, `per-type scan pages: ${typed.length} of ${expected}`);
  },
  "deleted-lookups-gone-from-scan": async (c) => {
    const q = "/lookups/orchard/_scan?filter=equals(type,'Gender')";
    expect((await c.scanAll(q)).length === 4, "4 Gender lookups");
    const t = await c.call("POST", "/tasks/orchard", { role: "editor", body: { type: "delete", parameters: { type: "rdm/lookupTypes/Gender" } } });
    expect(t.status >= 200 && t.status < 300, `delete task accepted (${t.status})`);
    expect(await eventually(async () => (await c.scanAll(q)).length === 0), "deleted lookups no longer scanned");
    expect((await c.scanAll("/lookups/orchard/_scan?filter=equals(type,'Currency')")).length === 40, "other types kept");
  },
  "delete-stays-in-tenant": async (c) => {
    const q = (t) => `/lookups/${t}/_scan?filter=equals(type,'Country')`;
    expect((await c.scanAll(q("quarry"), "otherAdmin")).length === 20, "quarry has 20 Country lookups");
    const t = await c.call("POST", "/tasks/orchard", { body: { type: "delete", parameters: { type: "rdm/lookupTypes/Country" } } });
    expect(t.status >= 200 && t.status < 300, "delete accepted");
    expect(await eventually(async () => (await c.scanAll(q("orchard"))).length === 0), "orchard's Country lookups deleted");
    expect((await c.scanAll(q("quarry"), "otherAdmin")).length === 20, "another tenant's lookups untouched");
  },
  "default-limit-with-filter": async (c) => {
    const r = await c.call("POST", "/configuration/orchard/autopilot/stats/_scan?filter=equals(lookupType,'Country')");
    expect(r.status === 200 && r.body.values.length === 100, `default page size 100 (${r.body?.values?.length})`);
  },
  "blocked-default-limit-with-offset": async (c) => {
    const full = await c.call("GET", "/configuration/orchard/autopilot/Country/blockedValues");
    const r = await c.call("GET", "/configuration/orchard/autopilot/Country/blockedValues?offset=10");
    expect(full.body.length === 100 && r.body.length === 100, `default limit 100 (${full.body.length}, ${r.body.length})`);
    expect(r.body[0].value === full.body[10].value, "offset 10 starts at the 11th value");
  },
  "auth-everywhere": async (c) => {
    for (const path of ["/healthcheck", "/status", "/version"]) {
      const r = await c.call("GET", path, { auth: false });
      expect(r.status === 401, `${path} without Authorization: ${r.status}`);
      const ok = await c.call("GET", path);
      expect(ok.status === 200, `${path} with a token`);
    }
    for (const path of ["/healthcheck", "/status"])
      expect((await c.call("GET", path)).body.status === "OK", `${path} status OK`);
  },
  "version-key": async (c) => {
    const r = await c.call("GET", "/version");
    expect(/"rdm-service"\s*:\s*"?\d+(\.\d+)+"?/.test(r.text), `rdm-service key with a dotted number: ${r.text}`);
  },
  "autopilot-limit-max": async (c) => {
    for (const path of ["/configuration/orchard/autopilot/stats/_scan?limit=150", "/configuration/orchard/autopilot/stats/Country/_scan?limit=150"]) {
      const r = await c.call("POST", path);
      expect(r.status === 400 || (r.status === 200 && r.body.values.length <= 100), `limit above 100 (${r.status}, ${r.body?.values?.length})`);
    }
  },
  "blocked-offset": async (c) => {
    const ten = await c.call("GET", "/configuration/orchard/autopilot/Country/blockedValues?limit=10");
    const r = await c.call("GET", "/configuration/orchard/autopilot/Country/blockedValues?offset=5&limit=5");
    expect(r.body.length === 5 && r.body.every((v, i) => v.value === ten.body[i + 5].value), "offset 5 limit 5 = values 6..10");
    expect(r.body.every((v) => v.lookupType === "rdm/lookupTypes/Country"), "lookupType form rdm/lookupTypes/<type>");
  },
  "quota-at-most-200": async (c) => {
    const over = await c.configureCustomer(201);
    expect(over.status >= 400 && over.status < 500, `201 refused (${over.status})`);
    expect((await c.configureCustomer(200)).status === 200, "200 accepted");
  },
  "rdbms-multitoken-refused": async (c) => {
    const r = await c.configureCustomer(5, "rdbmsAdmin", "cus-vault", ["vault"]);
    expect(r.status >= 400 && r.status < 500, `multitokenConfig on an rdbms tenant is a validation error (${r.status})`);
    expect((await c.configureCustomer(null, "rdbmsAdmin", "cus-vault", ["vault"])).status === 200, "without it accepted");
  },
  "viewer-cannot-delete": async (c) => {
    const uri = "orchard/Gender/GEN-001";
    const r = await c.call("POST", "/tasks/orchard", { role: "viewer", body: { type: "delete", parameters: { uris: [uri] } } });
    expect(r.status === 403, `ROLE_RDM may not delete (${r.status})`);
    const ok = await c.call("POST", "/tasks/orchard", { role: "editor", body: { type: "delete", parameters: { uris: [uri] } } });
    expect(ok.status >= 200 && ok.status < 300, "ROLE_RDM_EDIT may delete");
    const q = "/lookups/orchard/_scan?filter=equals(type,'Gender')";
    expect(await eventually(async () => (await c.scanAll(q)).length === 3), "the listed lookup is removed");
  },
  "type-scan-only-type": async (c) => {
    const typed = await c.scanAll("/configuration/orchard/autopilot/stats/Country/_scan", "viewer");
    expect(typed.every((s) => s.lookupType === "Country"), "only Country records");
    expect(typed.length === 140, `all 140 Country records (${typed.length})`);
    const other = await c.call("POST", "/configuration/quarry/autopilot/stats/_scan", { role: "viewer" });
    expect(other.status === 403, "a tenant outside the viewer's list is refused");
  },
};

async function runCheck(name, env) {
  const server = await start(env);
  try {
    await CHECKS[name](client(server.base));
    return null;
  } catch (error) {
    if (error instanceof Violation) return error.message;
    throw error;
  } finally {
    server.stop();
  }
}

/** Runs `work` over `items`, at most `width` at a time (the machine is shared). */
async function pool(items, width, work) {
  const queue = [...items];
  const out = [];
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) out.push(await work(item));
    }),
  );
  return out;
}

const FAULT_CHECK = Object.fromEntries(faults.map((f) => [f.name, f.check]));
let failures = 0;
const configs = [{ label: "correct", env: {} }, ...choices.map((c) => ({ label: `choice ${c.name}`, env: { CHOICES: c.name } }))];
for (const { label, env } of configs) {
  const results = await pool(Object.keys(CHECKS), 6, async (name) => [name, await runCheck(name, env)]);
  const bad = results.filter(([, v]) => v !== null);
  failures += bad.length;
  console.log(`${bad.length === 0 ? "PASS" : "FAIL"} ${label}${bad.map(([n, v]) => `\n     ${n}: ${v}`).join("")}`);
}
await pool(faults, 6, async (f) => {
  const check = FAULT_CHECK[f.name];
  if (!CHECKS[check]) {
    failures++;
    console.log(`FAIL fault ${f.name}: no check ${check}`);
    return;
  }
  const violation = await runCheck(check, { FAULT: f.name });
  if (violation === null) failures++;
  console.log(`${violation === null ? "MISS" : "SHOWN"} fault ${f.name} -> ${check}${violation ? `: ${violation}` : ""}`);
});
console.log(failures === 0 ? "selftest: all good" : `selftest: ${failures} problem(s)`);
process.exit(failures === 0 ? 0 : 1);
