#!/usr/bin/env node
// An example client of the interface for `lckit client check` (Node 20+, no dependencies). It reads the
// sandbox's addresses and credentials from the LCKIT_* variables, keeps one access token until it nears
// expiry, pages through scans by passing each answer's scrollId, stays within documented page sizes, sends
// a delete task of the documented shape, waits out a 429 and a token request declined at the quota; it
// reads only a lookup's type and code as sure (the contract makes every other field optional) and takes
// fields it does not know. Run it checked:
//   lckit client check --client nightly-sync -- node examples/clients/lookup-client.mjs
// The kit's tests also run it with one deliberate mistake (FAULT=<name>), to prove each caller rule, and
// with one wrong assumption about the provider, to prove the sweep finds the choice that breaks it.
const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set; run me under lckit client check`);
  return value;
};
const BASE = env("LCKIT_BASE_URL");
const RDM = env("LCKIT_RDM_URL");
const CONTROL = process.env.LCKIT_CONTROL_URL;
const TENANT = env("LCKIT_TENANT");
const TYPE = env("LCKIT_LOOKUP_TYPE");
const FAULT = process.env.FAULT ?? "";
const basic = `Basic ${Buffer.from(`${env("LCKIT_CLIENT_ID")}:${env("LCKIT_CLIENT_SECRET")}`).toString("base64")}`;

let cached; // { value, until }
let hoard; // FAULT=token-hoard: every token the quota gives, used in turn
let turn = 0;
const requestToken = () =>
  fetch(`${BASE}/oauth/token`, {
    method: "POST",
    headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
async function token() {
  if (FAULT === "token-hoard") {
    if (!hoard) {
      hoard = [];
      for (let r = await requestToken(); r.status === 200 && hoard.length < 250; r = await requestToken())
        hoard.push((await r.json()).access_token);
    }
    return hoard[turn++ % hoard.length];
  }
  if (FAULT !== "token-per-call" && cached && Date.now() < cached.until) return cached.value;
  let r = await requestToken();
  // Declined at the quota (other sessions of this client hold it): wait for a token to expire, as the
  // answer's Retry-After says (else a second), and ask again; a wait longer than 10 s is not this job's.
  for (let attempt = 0; r.status !== 200 && attempt < 20; attempt++) {
    const text = await r.text();
    const seconds = Number(r.headers.get("retry-after") ?? "1");
    if (!/limit/i.test(text) || !/exceed/i.test(text) || !(seconds <= 10))
      throw new Error(`token request answered ${r.status}: ${text}`);
    await new Promise((resolve) => setTimeout(resolve, Math.max(seconds, 1) * 1000 + 50));
    r = await requestToken();
  }
  if (r.status !== 200) throw new Error(`token request answered ${r.status}: ${await r.text()}`);
  const answer = await r.json();
  // Renew a little before expiry.
  cached = { value: answer.access_token, until: Date.now() + (answer.expires_in ?? 60) * 900 };
  return cached.value;
}

async function call(method, url, body, renewed = false) {
  const r = await send(method, url, body);
  // A token the service says is over (expired, or not accepted) serves nothing more: a new one, one retry.
  if (r.status !== 401 || renewed || FAULT === "no-bearer") return r;
  if (FAULT !== "expired-token-reused") {
    cached = undefined;
    hoard = undefined;
  }
  return call(method, url, body, true);
}

async function send(method, url, body) {
  // FAULT=lower-case-bearer copies token_type's case into the header (legal HTTP, not as the document shows).
  const scheme = FAULT === "lower-case-bearer" ? "bearer" : "Bearer";
  const headers = FAULT === "no-bearer" ? {} : { authorization: `${scheme} ${await token()}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  for (let attempt = 0; ; attempt++) {
    const r = await fetch(url, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (r.status !== 429 || attempt >= 20) return r;
    if (FAULT === "no-backoff") continue;
    const seconds = Number(r.headers.get("retry-after") ?? "1");
    await new Promise((resolve) => setTimeout(resolve, (Number.isFinite(seconds) ? seconds : 1) * 1000 + 50));
  }
}

async function scanAll(url) {
  const values = [];
  const limit = Number(new URL(url).searchParams.get("limit") ?? 100);
  let body = FAULT === "first-body" ? {} : undefined;
  let inQuery; // FAULT=scroll-in-query: the id in the query string, no body
  for (let page = 0; page < 100; page++) {
    const r = await call("POST", inQuery === undefined ? url : `${url}&scrollId=${inQuery}`, body);
    if (r.status !== 200) return { values, status: r.status };
    const answer = await r.json();
    values.push(...(answer.values ?? []));
    // The faulty client takes a page shorter than its limit for the last one; only the scrollId says so.
    if (FAULT === "short-page-is-last" && (answer.values ?? []).length < limit)
      return { values, status: 200 };
    if (typeof answer.scrollId !== "string" || answer.scrollId === "" || FAULT === "first-page-only") {
      // The end. The faulty client asks once more with the scroll it already finished.
      if (FAULT === "past-end" && body !== undefined) await call("POST", url, body);
      return { values, status: 200 };
    }
    if (FAULT === "scroll-in-query") {
      inQuery = answer.scrollId;
      continue;
    }
    // FAULT=first-scroll-id keeps the first answer's id: right only while a provider keeps one id a scroll.
    const firstId = body?.scrollId ?? answer.scrollId;
    body = {
      scrollId:
        FAULT === "wrong-scroll"
          ? `${answer.scrollId}-stale`
          : FAULT === "first-scroll-id"
            ? firstId
            : answer.scrollId,
    };
  }
  return { values, status: 200 };
}

const lookups = await scanAll(
  // FAULT=first-scroll-id pages by 50 (legal), so that a scan has a third page.
  `${RDM}/lookups/${TENANT}/_scan?limit=${FAULT === "first-scroll-id" ? 50 : 100}&sort=code&order=${FAULT === "order-word" ? "ascending" : "asc"}`,
);
const stats = await scanAll(
  `${BASE}/configuration/${TENANT}/autopilot/stats/_scan?limit=${FAULT === "big-page" ? 500 : 100}`,
);
const blockedType = FAULT === "type-uri-in-path" ? `rdm/lookupTypes/${TYPE}` : TYPE;
const blocked = await call(
  "GET",
  // FAULT=size-param asks the page size by a parameter the listing does not define (its limit is limit).
  `${BASE}/configuration/${TENANT}/autopilot/${blockedType}/blockedValues?${FAULT === "size-param" ? "size" : "limit"}=50`,
);
// FAULT=offset-as-page pages the blocked values by 2 and takes offset for a page number (1 after page 0).
if (FAULT === "offset-as-page") {
  const first = await call("GET", `${BASE}/configuration/${TENANT}/autopilot/${TYPE}/blockedValues?limit=2`);
  if ((await first.clone().json()).length === 2)
    await call("GET", `${BASE}/configuration/${TENANT}/autopilot/${TYPE}/blockedValues?limit=2&offset=1`);
}

// What the client does with what it read, as its own tests would assert it. Only type and code of a lookup
// are sure to be there (the contract makes every other field optional), and more fields may come.
const LOOKUP_FIELDS = new Set(["tenantId", "updatedBy", "updateDate", "version", "type", "code", "enabled"]);
for (const field of ["sourceMappings", "localizations", "parents", "attributes", "startDate", "endDate"])
  LOOKUP_FIELDS.add(field);
const canonical = new Map();
for (const lookup of lookups.values) {
  if (FAULT === "strict-records") {
    const unknown = Object.keys(lookup).filter((field) => !LOOKUP_FIELDS.has(field));
    if (unknown.length > 0) throw new Error(`lookup ${lookup.code}: unexpected field ${unknown.join(", ")}`);
  }
  const mappings = FAULT === "assumes-full-records" ? lookup.sourceMappings : (lookup.sourceMappings ?? []);
  const values = mappings.flatMap((mapping) => mapping.values ?? []);
  canonical.set(
    `${lookup.type.split("/").pop()}/${lookup.code}`,
    values.find((v) => v.canonicalValue)?.value,
  );
}
// Every autopilot candidate names a lookup the client synced.
const unresolved = stats.values.filter(
  (s) =>
    s.candidateLookupCode !== undefined &&
    !canonical.has(`${String(s.lookupType).split("/").pop()}/${s.candidateLookupCode}`),
);
if (lookups.status === 200 && stats.status === 200 && unresolved.length > 0) {
  console.log(
    `${unresolved.length} autopilot candidate(s) name no synced lookup, e.g. ${unresolved[0].candidateLookupCode}`,
  );
}
const first = lookups.values[0];
// The delete task: by URI, the documented shape. Each FAULT=task-* is one way to get it wrong.
const typeName = first?.type.split("/").pop();
const uri = `${TENANT}/${typeName}/${first?.code}`;
const bodies = {
  "task-body": { type: "delete", parameters: { uris: uri } },
  "task-typo": { type: "delete", parameters: { uri: [uri] } },
  "task-type-name": { type: "delete", parameters: { type: typeName } },
  "task-uri-shape": { type: "delete", parameters: { uris: [first?.code] } },
  "task-uri-rdm": { type: "delete", parameters: { uris: [`rdm/lookupTypes/${typeName}/${first?.code}`] } },
  "task-whole-tenant": { type: "delete" },
  "task-foreign-uri": { type: "delete", parameters: { uris: [`not-${TENANT}/${typeName}/${first?.code}`] } },
};
const task =
  first === undefined || FAULT === "no-task"
    ? undefined
    : await call(
        "POST",
        `${RDM}/tasks/${TENANT}`,
        bodies[FAULT] ?? { type: "delete", parameters: { uris: [uri] } },
      );
// The sandbox's clock past the token's validity, and one more call: the token has expired.
if (CONTROL) {
  await fetch(`${CONTROL}/clock/advance`, { method: "POST", body: JSON.stringify({ seconds: 3600 }) });
  await call("GET", `${RDM}/status`);
}
// A gateway rate limit (set through the control interface) and two calls: the second is answered 429.
if (CONTROL) {
  await fetch(`${CONTROL}/rate-limit`, {
    method: "PUT",
    body: JSON.stringify({ requests: 1, perSeconds: 1 }),
  });
  // FAULT=health-at-base asks {base_url} for a lookup-data path: one address serves both, two do not.
  await call("GET", `${FAULT === "health-at-base" ? BASE : RDM}/healthcheck`);
  await call("GET", `${RDM}/healthcheck`);
  await fetch(`${CONTROL}/rate-limit`, { method: "DELETE" });
}
console.log(
  `lookups ${lookups.values.length} (${lookups.status}), statistics ${stats.values.length} (${stats.status}), blocked ${blocked.status}, task ${task?.status}`,
);
process.exit(lookups.status === 200 && stats.status === 200 && unresolved.length === 0 ? 0 : 1);
