// A small client for the kit's tests (not an example) that meets its quota held by others when it starts
// (lckit client check's world quota-held-elsewhere): its token request is declined until their tokens
// expire. It waits as the document says and asks again (WAIT=retry-after: the seconds the answer's
// Retry-After gives; WAIT=backoff: half a second, then a second, ..., Retry-After unread), then makes a
// call with the token; with FAULT=retry-in-a-loop it asks again at once, up to 50 times, and gives up.
const BASE = process.env.LCKIT_BASE_URL;
const RDM = process.env.LCKIT_RDM_URL;
const basic = `Basic ${Buffer.from(`${process.env.LCKIT_CLIENT_ID}:${process.env.LCKIT_CLIENT_SECRET}`).toString("base64")}`;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function token() {
  for (let attempt = 0; attempt < 50; attempt++) {
    const answer = await fetch(`${BASE}/oauth/token`, {
      method: "POST",
      headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials",
    });
    const text = await answer.text();
    if (answer.status === 200) return JSON.parse(text).access_token;
    if (!/limit/i.test(text)) throw new Error(`token request answered ${answer.status}: ${text}`);
    if (process.env.FAULT === "retry-in-a-loop") continue;
    const stated = Number(answer.headers.get("retry-after"));
    await sleep(process.env.WAIT === "retry-after" && stated > 0 ? stated * 1000 : 500 * 2 ** attempt);
  }
  throw new Error("no token after 50 token requests");
}

const bearer = await token();
const r = await fetch(`${RDM}/status`, { headers: { authorization: `Bearer ${bearer}` } });
if (r.status !== 200) throw new Error(`status answered ${r.status}`);
console.log("served after the quota freed");
