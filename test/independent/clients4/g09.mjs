// Autopilot statistics exporter for the metrics scraper: reads the tenant-wide statistics and
// the statistics of the watched lookup type at the same time and prints Prometheus text format.
import process from "node:process";

function setting(name) {
  const v = process.env[name];
  if (v === undefined || v === "") throw new Error(`${name} not set`);
  return v;
}

class AutopilotClient {
  constructor() {
    this.base = setting("LCKIT_BASE_URL").replace(/\/+$/, "");
    this.tokenUrl = setting("LCKIT_TOKEN_URL");
    this.clientId = setting("LCKIT_CLIENT_ID");
    this.clientSecret = setting("LCKIT_CLIENT_SECRET");
    this.tenant = setting("LCKIT_TENANT");
    this.pending = null; // single flight: concurrent callers share one token request
    this.token = null;
    this.expiresAt = 0;
    this.requests = 0;
    this.form = 0; // index of the next-page body form that works here
  }

  async bearer() {
    // renew only when fewer than 60 s are left (or none was ever taken)
    if (this.token && Date.now() < this.expiresAt - 60_000) return this.token;
    this.pending ??= this.fetchToken().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  async fetchToken() {
    const res = await fetch(this.tokenUrl, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${this.clientId}:${this.clientSecret}`, "utf8").toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded;charset=UTF-8",
      },
      body: new URLSearchParams({ grant_type: "client_credentials" }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`token endpoint answered ${res.status}: ${text.slice(0, 200)}`);
    const body = JSON.parse(text);
    if (String(body.token_type ?? "bearer").toLowerCase() !== "bearer") throw new Error(`unexpected token_type ${body.token_type}`);
    this.token = body.access_token;
    this.expiresAt = Date.now() + (Number(body.expires_in) || 300) * 1000;
    return this.token;
  }

  // body: undefined (no body) or [content type, text]
  async post(url, body) {
    for (let attempt = 0; attempt < 5; attempt++) {
      const headers = { authorization: `Bearer ${await this.bearer()}`, accept: "application/json" };
      if (body !== undefined) headers["content-type"] = body[0];
      this.requests++;
      const res = await fetch(url, { method: "POST", headers, body: body === undefined ? undefined : body[1] });
      if (res.status === 429) {
        // rate limited: honour Retry-After (up to 10 s), else back off 250 ms, 500 ms, ...
        const told = res.headers.get("retry-after");
        const ra = told === null ? null : Number(told);
        if (ra !== null && !(ra >= 0 && ra <= 10)) throw new Error(`rate limited, retry after ${told}: ${url}`);
        await new Promise((r) => setTimeout(r, ra !== null ? ra * 1000 : 250 * 2 ** attempt));
        continue;
      }
      return res;
    }
    throw new Error(`still rate limited after 5 attempts: ${url}`);
  }

  // Next-page request of a scroll. The scroll id travels as {"scrollId": ...}; if a deployment
  // refuses that with 400, the bare id is tried as a JSON string and then as plain text, and the
  // form that works is kept for later pages.
  async continueScroll(url, scrollId) {
    const forms = [
      ["application/json", JSON.stringify({ scrollId })],
      ["application/json", JSON.stringify(scrollId)],
      ["text/plain", scrollId],
    ];
    let res;
    for (let k = 0; k < forms.length; k++) {
      const i = (this.form + k) % forms.length;
      res = await this.post(url, forms[i]);
      if (res.status !== 400) {
        if (res.ok) this.form = i;
        return res;
      }
      await res.text();
    }
    return res;
  }

  // One scroll. Ends when a response carries no scroll id; an empty page with a scroll id is
  // followed once more (some services end that way).
  async *scan(path, query) {
    let url = `${this.base}/configuration/${encodeURIComponent(this.tenant)}/autopilot/stats${path}/_scan${query}`;
    let scrollId;
    let emptyInARow = 0;
    for (let page = 0; page < 1000; page++) {
      let res = scrollId === undefined ? await this.post(url, undefined) : await this.continueScroll(url, scrollId);
      if (res.status === 400 && scrollId === undefined && /[?&]sort=/.test(url)) {
        // sort field names differ between deployments: start the scroll again unsorted
        await res.text();
        url = url.replace(/[?&](sort|order)=[^&]*/g, "").replace(/_scan&/, "_scan?");
        res = await this.post(url, undefined);
      }
      if (!res.ok) throw new Error(`${url} page ${page + 1}: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
      const data = await res.json();
      const values = Array.isArray(data.values) ? data.values : [];
      yield* values;
      emptyInARow = values.length === 0 ? emptyInARow + 1 : 0;
      if (typeof data.scrollId !== "string" || data.scrollId.length === 0 || emptyInARow >= 2) return;
      scrollId = data.scrollId;
    }
    throw new Error(`${url}: no end after 1000 pages`);
  }
}

async function collect(iterable) {
  const out = [];
  for await (const v of iterable) out.push(v);
  return out;
}

const label = (s) => String(s).replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

try {
  const type = setting("LCKIT_LOOKUP_TYPE");
  const client = new AutopilotClient();
  // both scans run at once; the tenant-wide one with the default page size, the per-type one
  // with explicit 100 newest first
  const [all, ofType] = await Promise.all([
    collect(client.scan("", "")),
    collect(client.scan(`/${encodeURIComponent(type)}`, "?limit=100&sort=createdAt&order=desc")),
  ]);

  const byStatus = new Map();
  for (const s of all) {
    const key = `${s.lookupType}\u0000${s.status}`;
    byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
  }
  const lines = [
    "# HELP autopilot_statistics Autopilot match statistics by lookup type and status",
    "# TYPE autopilot_statistics gauge",
  ];
  for (const [key, n] of [...byStatus].sort()) {
    const [lt, status] = key.split("\u0000");
    lines.push(`autopilot_statistics{tenant="${label(client.tenant)}",lookup_type="${label(lt)}",status="${label(status)}"} ${n}`);
  }
  const withCandidate = ofType.filter((s) => s.candidateLookupCode !== undefined).length;
  const meanScore = ofType.length ? ofType.reduce((a, s) => a + (Number(s.semanticScore) || 0), 0) / ofType.length : 0;
  lines.push("# TYPE autopilot_type_statistics gauge");
  lines.push(`autopilot_type_statistics{tenant="${label(client.tenant)}",lookup_type="${label(type)}"} ${ofType.length}`);
  lines.push("# TYPE autopilot_type_with_candidate gauge");
  lines.push(`autopilot_type_with_candidate{tenant="${label(client.tenant)}",lookup_type="${label(type)}"} ${withCandidate}`);
  lines.push("# TYPE autopilot_type_mean_semantic_score gauge");
  lines.push(`autopilot_type_mean_semantic_score{tenant="${label(client.tenant)}",lookup_type="${label(type)}"} ${meanScore.toFixed(4)}`);
  lines.push(`# requests ${client.requests}`);
  console.log(lines.join("\n"));
} catch (err) {
  console.error(`stats-exporter: ${err.message}`);
  process.exit(1);
}
