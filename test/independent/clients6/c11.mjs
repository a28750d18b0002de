// Retire lookups that are switched off or whose validity has ended (reference-data stewards' cron,
// runs as the sync client). Looks at the whole tenant, all types, and submits one delete task per
// 1000 lookups to retire, then prints the task ids for the audit log.

const env = (name) => process.env[name] ?? (() => { throw new Error(`${name} not set`); })();

class ApiClient {
  #token = null;

  constructor() {
    this.rdm = env('LCKIT_RDM_URL').replace(/\/$/, '');
    this.tenant = env('LCKIT_TENANT');
    this.credentials = Buffer.from(`${env('LCKIT_CLIENT_ID')}:${env('LCKIT_CLIENT_SECRET')}`).toString('base64');
  }

  async #issue() {
    const res = await fetch(env('LCKIT_TOKEN_URL'), {
      method: 'POST',
      headers: { Authorization: `Basic ${this.credentials}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials' }).toString(),
      signal: AbortSignal.timeout(4000),
    });
    if (!res.ok) throw new Error(`cannot get a token: ${res.status}`);
    this.#token = (await res.json()).access_token;
  }

  async post(path, payload) {
    if (!this.#token) await this.#issue();
    const attempt = () => fetch(this.rdm + path, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${this.#token}`,
        ...(payload === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: payload === undefined ? undefined : JSON.stringify(payload),
      signal: AbortSignal.timeout(5000),
    });
    let res = await attempt();
    if (res.status === 401 && /invalid_token/.test(res.headers.get('www-authenticate') ?? '')) {
      await res.arrayBuffer();
      await this.#issue();
      res = await attempt();
    }
    if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    const text = await res.text();
    return text ? JSON.parse(text) : null;
  }
}

const api = new ApiClient();
const tenantPath = encodeURIComponent(api.tenant);
const now = Date.now();
const retire = [];
let scanned = 0;
let scroll = null;
for (let i = 0; i < 1000; i++) {
  const res = await api.post(`/lookups/${tenantPath}/_scan?limit=100&sort=code&order=asc`, scroll ? { scrollId: scroll } : undefined);
  const rows = res?.values ?? [];
  scanned += rows.length;
  for (const lookup of rows) {
    const ended = typeof lookup.endDate === 'number' && lookup.endDate < now;
    if (lookup.enabled === false || ended) {
      // the lookup's own URI: its type URI followed by its code
      retire.push(`${lookup.type}/${lookup.code}`);
    }
  }
  scroll = res?.scrollId;
  if (!scroll || rows.length === 0) break;
}
console.log(`scanned ${scanned} lookups, ${retire.length} to retire`);

for (let i = 0; i < retire.length; i += 1000) {
  const uris = retire.slice(i, i + 1000);
  const task = await api.post(`/tasks/${tenantPath}`, { type: 'delete', parameters: { uris } });
  console.log(`task ${task?.id} (${task?.status}): ${uris.join(', ')}`);
}
