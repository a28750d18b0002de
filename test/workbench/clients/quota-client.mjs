// A small client of the token lifecycle for the kit's tests (not an example): it takes tokens until its
// quota declines one, then either waits as the document says (uses the tokens it holds, asks for no more)
// or, with FAULT=retry-at-once, asks again at once in a loop, as a client that ignores the refusal does.
const BASE = process.env.LCKIT_BASE_URL;
const RDM = process.env.LCKIT_RDM_URL;
const basic = `Basic ${Buffer.from(`${process.env.LCKIT_CLIENT_ID}:${process.env.LCKIT_CLIENT_SECRET}`).toString("base64")}`;
const ask = () =>
  fetch(`${BASE}/oauth/token`, {
    method: "POST",
    headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });

const held = [];
let answer = await ask();
while (answer.status === 200 && held.length < 250) {
  held.push((await answer.json()).access_token);
  answer = await ask();
}
await answer.text();
if (process.env.FAULT === "retry-at-once")
  for (let i = 0; i < 5 && answer.status !== 200; i++) {
    answer = await ask();
    await answer.text();
  }
// Each held token serves a call: the tokens the quota gave are what the client works with.
for (const token of held) {
  const r = await fetch(`${RDM}/status`, { headers: { authorization: `Bearer ${token}` } });
  if (r.status !== 200) throw new Error(`status answered ${r.status}`);
}
console.log(`held ${held.length} tokens`);
