// A small client for the kit's tests (not an example) that reads the tenant's lookups 100 a page to the
// end, passing on each next-page request the scrollId of the last answer; with FAULT=first-scroll-id it
// passes the first answer's id every time, which is right only while a provider keeps one id a scroll and
// a scan has at most two pages (the default world: 142 lookups).
const BASE = process.env.LCKIT_BASE_URL;
const RDM = process.env.LCKIT_RDM_URL;
const TENANT = process.env.LCKIT_TENANT;
const basic = `Basic ${Buffer.from(`${process.env.LCKIT_CLIENT_ID}:${process.env.LCKIT_CLIENT_SECRET}`).toString("base64")}`;

const tokenAnswer = await fetch(`${BASE}/oauth/token`, {
  method: "POST",
  headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded" },
  body: "grant_type=client_credentials",
});
if (tokenAnswer.status !== 200) throw new Error(`token request answered ${tokenAnswer.status}`);
const token = (await tokenAnswer.json()).access_token;

let read = 0;
let body;
let first;
for (let pages = 0; pages < 100; pages++) {
  const r = await fetch(`${RDM}/lookups/${TENANT}/_scan?limit=100`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (r.status !== 200) throw new Error(`scan answered ${r.status}: ${await r.text()}`);
  const answer = await r.json();
  read += (answer.values ?? []).length;
  if (typeof answer.scrollId !== "string" || answer.scrollId === "") break;
  first ??= answer.scrollId;
  body = { scrollId: process.env.FAULT === "first-scroll-id" ? first : answer.scrollId };
}
console.log(`read ${read} lookups`);
