// A small client for the kit's tests (not an example) that keeps its token until the service says it
// expired (it never reads expires_in), reading the tenant's lookups 10 a page to the end. On the
// expired-token answer it requests a new token and sends that page again with it; with
// FAULT=expired-token-again it sends the page again with the expired token first (and takes the new one
// only after a second refusal); with FAULT=stops-on-expiry it takes the answer for the end of its job and
// exits 0 with what it read; with FAIL=on-expiry (no fault: the document does not say what a caller does
// next) it treats the answer as fatal and exits 1.
const BASE = process.env.LCKIT_BASE_URL;
const RDM = process.env.LCKIT_RDM_URL;
const TENANT = process.env.LCKIT_TENANT;
const FAULT = process.env.FAULT;
const basic = `Basic ${Buffer.from(`${process.env.LCKIT_CLIENT_ID}:${process.env.LCKIT_CLIENT_SECRET}`).toString("base64")}`;

async function newToken() {
  const answer = await fetch(`${BASE}/oauth/token`, {
    method: "POST",
    headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
  if (answer.status !== 200)
    throw new Error(`token request answered ${answer.status}: ${await answer.text()}`);
  return (await answer.json()).access_token;
}

const expired = async (r) => r.status === 401 && /expired/i.test(await r.clone().text());

let token = await newToken();
const page = (body) =>
  fetch(`${RDM}/lookups/${TENANT}/_scan?limit=10`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

let read = 0;
let body;
for (let pages = 0; pages < 100; pages++) {
  let r = await page(body);
  for (let renewals = 0; (await expired(r)) && renewals < 3; renewals++) {
    if (process.env.FAIL === "on-expiry") throw new Error(`the token expired after ${read} lookups`);
    if (FAULT === "stops-on-expiry") {
      console.log(`read ${read} lookups; the token expired`);
      process.exit(0);
    }
    if (FAULT !== "expired-token-again" || renewals > 0) token = await newToken();
    r = await page(body);
  }
  if (r.status !== 200) throw new Error(`scan answered ${r.status}: ${await r.text()}`);
  const answer = await r.json();
  read += (answer.values ?? []).length;
  if (typeof answer.scrollId !== "string" || answer.scrollId === "") break;
  body = { scrollId: answer.scrollId };
}
console.log(`read ${read} lookups`);
