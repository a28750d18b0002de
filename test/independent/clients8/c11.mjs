// Type inventory: which lookup types does the tenant hold, and how many autopilot statistics does each
// type have? Types are discovered from the lookups themselves, then each type's statistics are scanned.
const ENV = process.env;
const trim = (s) => s.replace(/\/+$/, "");
const RDM = trim(ENV.LCKIT_RDM_URL), BASE = trim(ENV.LCKIT_BASE_URL), TENANT = encodeURIComponent(ENV.LCKIT_TENANT);

class Client {
  #token = null;
  async #login() {
    const r = await fetch(ENV.LCKIT_TOKEN_URL, {
      method: "POST",
      headers: {
        Authorization: "Basic " + Buffer.from(`${ENV.LCKIT_CLIENT_ID}:${ENV.LCKIT_CLIENT_SECRET}`).toString("base64"),
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: "grant_type=client_credentials",
      signal: AbortSignal.timeout(5000),
    });
    if (!r.ok) throw new Error(`login failed ${r.status}`);
    this.#token = (await r.json()).access_token;
  }
  async post(url, scrollId, again = false) {
    if (!this.#token) await this.#login();
    const r = await fetch(url, {
      method: "POST",
      headers: { Authorization: `Bearer ${this.#token}`, ...(scrollId ? { "Content-Type": "application/json" } : {}) },
      body: scrollId ? JSON.stringify(scrollId) : undefined,
      signal: AbortSignal.timeout(5000),
    });
    if (r.status === 401 && !again) {
      await r.body?.cancel();
      this.#token = null; // expired: log in again and repeat the call
      return this.post(url, scrollId, true);
    }
    return { status: r.status, body: await r.json().catch(() => null) };
  }
  async *scan(url) {
    let scrollId = null;
    for (let i = 0; i < 80; i++) {
      const { status, body } = await this.post(url, scrollId);
      if (status !== 200) throw Object.assign(new Error(`scan ${url}: ${status}`), { status });
      for (const v of body.values ?? []) yield v;
      if (!body.scrollId || !(body.values ?? []).length) return;
      scrollId = body.scrollId;
    }
  }
}

const api = new Client();
const types = new Map();
for await (const lk of api.scan(`${RDM}/lookups/${TENANT}/_scan?limit=100`)) {
  types.set(lk.type, (types.get(lk.type) ?? 0) + 1);
}

const report = [];
for (const [type, lookups] of [...types].sort()) {
  let statistics = 0;
  try {
    for await (const _ of api.scan(`${BASE}/configuration/${TENANT}/autopilot/stats/${encodeURIComponent(type)}/_scan?limit=50`)) statistics++;
  } catch (e) {
    if (e.status !== 404) throw e;
    statistics = null; // the type has no autopilot configuration
  }
  report.push({ type, lookups, statistics });
}
console.table(report);
