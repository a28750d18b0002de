#!/usr/bin/env node
// Stats exporter (analytics team). Uses node:http / node:https directly instead of fetch.
import http from 'node:http';
import https from 'node:https';

const E = process.env;
const BASE = (E.LCKIT_BASE_URL || '').replace(/\/+$/, '');
const RDM = (E.LCKIT_RDM_URL || '').replace(/\/+$/, '');
const TOKEN_URL = E.LCKIT_TOKEN_URL || `${BASE}/oauth/token`;
const TENANT = E.LCKIT_TENANT || '';
const TYPE = E.LCKIT_LOOKUP_TYPE || '';

function request(method, url, headers = {}, body = null) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const lib = u.protocol === 'https:' ? https : http;
    const h = { ...headers };
    if (body !== null) h['Content-Length'] = Buffer.byteLength(body);
    const req = lib.request(u, { method, headers: h, timeout: 30000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error(`timeout: ${method} ${url}`)));
    if (body !== null) req.write(body);
    req.end();
  });
}

// JSON, except /version, whose number may be unquoted ({"rdm-service": 2016.3.0.0.1}).
function parseBody(text) {
  try { return JSON.parse(text); } catch (err) {
    const m = /"rdm-service"\s*:\s*"?([0-9][0-9.]*)/.exec(text);
    if (m) return { 'rdm-service': m[1] };
    throw err;
  }
}

let cached = null;
let tokenAttempts = 0;
async function token() {
  if (cached && cached.exp > Date.now()) return cached.tok;
  const basic = Buffer.from(`${E.LCKIT_CLIENT_ID || ''}:${E.LCKIT_CLIENT_SECRET || ''}`).toString('base64');
  // The token endpoint can refuse while the client is at its active-token limit; ask again until it gives one.
  for (let i = 0; i < 50; i++) {
    tokenAttempts++;
    const r = await request('POST', TOKEN_URL, { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded' }, 'grant_type=client_credentials');
    if (r.status === 200) {
      const j = JSON.parse(r.text);
      cached = { tok: j.access_token, exp: Date.now() + (Number(j.expires_in) || 3600) * 900 };
      return cached.tok;
    }
    if (r.status !== 429 && !/limit|exceed/i.test(r.text)) throw new Error(`token request failed: ${r.status} ${r.text.slice(0, 160)}`);
  }
  throw new Error('no token after 50 attempts');
}

async function api(method, url, body, type = 'application/json', renewed = false) {
  const headers = { Authorization: `Bearer ${await token()}`, Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = type;
  const r = await request(method, url, headers, body === undefined ? null : body);
  if (r.status === 401 && !renewed) { cached = null; return api(method, url, body, type, true); }
  if (r.status >= 300) throw Object.assign(new Error(`${method} ${url}: ${r.status} ${r.text.slice(0, 160)}`), { status: r.status });
  return r.text ? parseBody(r.text) : null;
}

let rawScroll = false; // {"scrollId": ...} first; the raw id as text if the service refuses that
async function next(url, sid) {
  if (!rawScroll) {
    try { return await api('POST', url, JSON.stringify({ scrollId: sid })); } catch (e) {
      if (![400, 415, 422].includes(e.status)) throw e;
      rawScroll = true;
    }
  }
  return api('POST', url, sid, 'text/plain');
}

async function scanAll(url) {
  const rows = [];
  let res = await api('POST', url);
  for (let i = 0; i < 10000; i++) {
    rows.push(...(res.values || []));
    if (!res.scrollId || !(res.values || []).length) return rows;
    res = await next(url, res.scrollId);
  }
  throw new Error('scan did not finish');
}

async function main() {
  if (!BASE || !RDM || !TENANT || !TYPE) throw new Error('LCKIT_BASE_URL, LCKIT_RDM_URL, LCKIT_TENANT and LCKIT_LOOKUP_TYPE must be set');
  const t = encodeURIComponent(TENANT), lt = encodeURIComponent(TYPE);
  const version = await api('GET', `${RDM}/version`);
  const all = await scanAll(`${BASE}/configuration/${t}/autopilot/stats/_scan?limit=100&sort=status&order=asc`);
  const ofType = await scanAll(`${BASE}/configuration/${t}/autopilot/stats/${lt}/_scan?limit=100`);
  const lookups = await scanAll(`${RDM}/lookups/${t}/_scan?limit=100&filter=${encodeURIComponent(`equals(type,'${TYPE}')`)}`);
  let blocked = 0;
  for (let off = 0; ; ) {
    const page = await api('GET', `${BASE}/configuration/${t}/autopilot/${lt}/blockedValues?offset=${off}&limit=100`);
    blocked += page.length; off += page.length;
    if (page.length < 100) break;
  }
  const byStatus = {};
  for (const r of all) byStatus[r.status] = (byStatus[r.status] || 0) + 1;
  console.log(JSON.stringify({ version: version && version['rdm-service'], statsAll: all.length, statsOfType: ofType.length, lookups: lookups.length, blocked, byStatus, tokenAttempts }));
}

main().catch((e) => { console.error(`export failed: ${e.message}`); process.exit(1); });
