// Inventory of lookup types: how many lookups each type of the tenant holds (all types, one scan).
const E = process.env;

class RdmClient {
  constructor() {
    this.rdm = E.LCKIT_RDM_URL.replace(/\/$/, '');
    this.accessToken = null;
  }

  async login() {
    const res = await fetch(E.LCKIT_TOKEN_URL, {
      method: 'POST',
      headers: {
        Authorization: 'Basic ' + btoa(`${E.LCKIT_CLIENT_ID}:${E.LCKIT_CLIENT_SECRET}`),
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
      signal: AbortSignal.timeout(5000),
    });
    if (res.status !== 200) throw new Error('login refused: ' + res.status);
    this.accessToken = (await res.json()).access_token;
  }

  async page(scrollId) {
    const res = await fetch(`${this.rdm}/lookups/${E.LCKIT_TENANT}/_scan?limit=100`, {
      method: 'POST',
      headers: { Authorization: 'Bearer ' + this.accessToken, 'Content-Type': 'application/json' },
      body: JSON.stringify(scrollId ? { scrollId } : {}),
      signal: AbortSignal.timeout(5000),
    });
    if (!res.ok) throw new Error('scan: HTTP ' + res.status);
    return res.json();
  }

  async *all() {
    let sid;
    for (let n = 0; n < 100; n++) {
      const p = await this.page(sid);
      const v = p.values || [];
      yield* v;
      if (!p.scrollId || v.length === 0) return;
      sid = p.scrollId;
    }
  }
}

const client = new RdmClient();
try {
  await client.login();
  const byType = new Map();
  for await (const lookup of client.all()) {
    const name = String(lookup.type).replace('rdm/lookupTypes/', '');
    byType.set(name, (byType.get(name) || 0) + 1);
  }
  for (const [name, n] of [...byType].sort()) console.log(`${name}\t${n}`);
} catch (err) {
  console.error(String(err));
  process.exitCode = 1;
}
