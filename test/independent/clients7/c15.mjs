// Conflict finder: a blocked value that is also a mapped source value of a lookup is a data-quality smell.
import { setTimeout as sleep } from 'node:timers/promises';

const env = process.env;
const rdmUrl = env.LCKIT_RDM_URL.replace(/\/$/, '');
const baseUrl = env.LCKIT_BASE_URL.replace(/\/$/, '');

let bearer;
async function authenticate() {
  const response = await fetch(env.LCKIT_TOKEN_URL, {
    method: 'POST',
    headers: {
      authorization: 'Basic ' + Buffer.from(`${env.LCKIT_CLIENT_ID}:${env.LCKIT_CLIENT_SECRET}`).toString('base64'),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
    signal: AbortSignal.timeout(4000),
  });
  if (response.status !== 200) throw new Error(`authentication failed (${response.status})`);
  bearer = (await response.json()).access_token;
}

async function send(method, url, payload) {
  const init = { method, headers: { authorization: `Bearer ${bearer}` }, signal: AbortSignal.timeout(4000) };
  if (payload !== undefined) {
    init.body = JSON.stringify(payload);
    init.headers['content-type'] = 'application/json';
  }
  const response = await fetch(url, init);
  if (!response.ok) return { status: response.status };
  return { status: 200, data: await response.json() };
}

// type URI -> set of mapped source values (upper-cased)
const mapped = new Map();
async function loadLookups() {
  let scroll;
  for (let i = 0; i < 60; i++) {
    const { status, data } = await send('POST', `${rdmUrl}/lookups/${env.LCKIT_TENANT}/_scan?limit=100&sort=code`, scroll);
    if (status !== 200) throw new Error(`lookup scan: ${status}`);
    for (const lk of data.values ?? []) {
      if (!mapped.has(lk.type)) mapped.set(lk.type, new Set());
      const set = mapped.get(lk.type);
      for (const sm of lk.sourceMappings ?? []) for (const v of sm.values ?? []) set.add(String(v.value).toUpperCase());
    }
    if (!data.scrollId || !(data.values ?? []).length) return;
    scroll = data.scrollId;
  }
}

async function blockedFor(typeUri) {
  const all = [];
  for (let offset = 0, guard = 0; guard < 20; guard++) {
    const { status, data } = await send('GET', `${baseUrl}/configuration/${env.LCKIT_TENANT}/autopilot/${typeUri}/blockedValues?offset=${offset}&limit=100`);
    if (status === 429) { await sleep(200); continue; }
    if (status !== 200) return { error: status };
    all.push(...data);
    if (data.length < 100) break;
    offset += data.length;
  }
  return { values: all };
}

try {
  await authenticate();
  await loadLookups();
  let conflicts = 0;
  for (const [typeUri, values] of mapped) {
    const res = await blockedFor(typeUri);
    if (res.error) { console.log(`${typeUri}: blocked values unavailable (${res.error})`); continue; }
    for (const b of res.values) {
      if (values.has(String(b.value).toUpperCase())) {
        conflicts++;
        console.log(`${typeUri}: "${b.value}" is blocked but mapped`);
      }
    }
  }
  console.log(`${mapped.size} types checked, ${conflicts} conflicts`);
} catch (e) {
  console.error(e.message);
  process.exit(1);
}
