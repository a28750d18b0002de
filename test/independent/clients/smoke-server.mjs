#!/usr/bin/env node
// Tiny strict mock of the interface, written from interface-spec.md, for smoke tests only.
// Env: PORT (default 0 = random; prints the port), SMOKE_SCROLL=raw|json|both, SMOKE_END=nosid|empty,
//      SMOKE_VERSION=quoted|unquoted, SMOKE_QUOTA (max active tokens, default 40), SMOKE_TTL (s, default 3600)
import http from 'node:http';

const MODE_SCROLL = process.env.SMOKE_SCROLL || 'both';
const MODE_END = process.env.SMOKE_END || 'nosid';
const MODE_VERSION = process.env.SMOKE_VERSION || 'quoted';
const QUOTA = Number(process.env.SMOKE_QUOTA || 40);
const TTL = Number(process.env.SMOKE_TTL || 3600);
const TENANT = 'T1', CID = 'cli', CSEC = 'sec';
const TYPES = { Country: 130, State: 60 };

const lookups = [];
for (const [t, n] of Object.entries(TYPES))
  for (let i = 0; i < n; i++)
    lookups.push({ tenantId: TENANT, type: `rdm/lookupTypes/${t}`, code: `${t.slice(0, 2).toUpperCase()}${String(i).padStart(3, '0')}`, enabled: true, version: 1, updateDate: 1700000000000 + i, sourceMappings: [], localizations: [], parents: [], attributes: [] });
const stats = [];
for (const [t, n] of Object.entries({ Country: 130, State: 40 }))
  for (let i = 0; i < n; i++)
    stats.push({ tenantId: TENANT, lookupType: t, source: 'SRC', unmappedValue: `v${i}`, semanticScore: 0.5, centroidMatch: false, currentFrequency: 1, requiredFrequency: 3, frequencyAtMapping: 0, frequencyWindowHours: 24, status: 'TRACKING', createdAt: 1700000000000 + i, sourceFrequency: { totalCount: 1, hourlyFrequency: {} }, updateDate: 1, aiConfidence: 0.1, aiReasoning: 'x', configVersion: 1 });
const blocked = [];
for (let i = 0; i < 120; i++) blocked.push({ tenantId: TENANT, lookupType: 'rdm/lookupTypes/Country', value: `b${i}`, createdAt: 1, createdBy: 'u' });

const tokens = new Map(); // token -> exp
let tokenSeq = 0;
const log = [];

function send(res, status, obj, raw) {
  const body = raw !== undefined ? raw : obj === undefined ? '' : JSON.stringify(obj);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  res.end(body);
}
function err(res, status, msg) { log.push(`${status} ${msg}`); send(res, status, { error: msg }); }

function authOk(req) {
  const h = req.headers.authorization || '';
  const m = /^Bearer (\S+)$/i.exec(h);
  if (!m) return 'missing/invalid Authorization';
  const exp = tokens.get(m[1]);
  if (!exp) return 'invalid_token';
  if (exp < Date.now()) return 'invalid_token: token expired';
  return null;
}

function pageOf(res, arr, q, body, key, maxLimit) {
  // scroll id: base64 of JSON {k, o}
  let offset = 0;
  if (q.has('scrollId')) return err(res, 400, 'scrollId must be in the body');
  const b = body.trim();
  if (b && b !== 'null') {
    let sid = null;
    let parsed;
    try { parsed = JSON.parse(b); } catch { parsed = undefined; }
    if (parsed && typeof parsed === 'object' && typeof parsed.scrollId === 'string') {
      if (MODE_SCROLL === 'raw') return err(res, 400, 'raw scroll id expected');
      sid = parsed.scrollId;
    } else if (parsed === undefined) {
      if (MODE_SCROLL === 'json-lenient') { sid = null; }
      else if (MODE_SCROLL === 'json') return err(res, 400, 'JSON {scrollId} expected');
      else sid = b;
    } else return err(res, 400, 'first request must have no body or null');
    let st = { k: key, o: 0 };
    if (sid !== null) try { st = JSON.parse(Buffer.from(sid, 'base64url').toString()); } catch { return err(res, 400, 'bad scroll id'); }
    if (st.k !== key) return err(res, 400, 'scroll id of another scan');
    offset = st.o;
  }
  let limit = q.has('limit') ? Number(q.get('limit')) : 100;
  if (!Number.isInteger(limit) || limit < 1 || (maxLimit && limit > maxLimit)) return err(res, 400, `bad limit ${q.get('limit')}`);
  const order = q.get('order');
  if (order !== null && order !== 'asc' && order !== 'desc') return err(res, 400, `bad order ${order}`);
  let items = arr;
  const sort = q.get('sort');
  if (sort) {
    items = [...arr].sort((a, b) => (a[sort] < b[sort] ? -1 : a[sort] > b[sort] ? 1 : 0));
    if (order === 'desc') items.reverse();
  }
  const values = items.slice(offset, offset + limit);
  const next = offset + values.length;
  const out = { values };
  const sidNext = Buffer.from(JSON.stringify({ k: key, o: next })).toString('base64url');
  if (MODE_END === 'empty') out.scrollId = sidNext; // end = empty values
  else if (next < items.length) out.scrollId = sidNext; // end = no scrollId
  send(res, 200, out);
}

const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => setTimeout(() => {
    const u = new URL(req.url, 'http://x');
    const q = u.searchParams;
    const p = u.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    log.push(`${req.method} ${req.url}`);
    try {
      if (req.method === 'POST' && u.pathname === '/oauth/token') {
        const form = new URLSearchParams(body);
        if (process.env.SMOKE_TOKEN === 'basic-form-only' && (!/^Basic /i.test(req.headers.authorization || '') || q.get('grant_type'))) return err(res, 400, 'invalid_request');
        const gt = form.get('grant_type') || q.get('grant_type');
        let id = form.get('client_id'), sec = form.get('client_secret');
        const m = /^Basic (.+)$/i.exec(req.headers.authorization || '');
        if (m) [id, sec] = Buffer.from(m[1], 'base64').toString().split(':');
        if (id !== CID || sec !== CSEC) return err(res, 401, 'invalid_client');
        if (gt !== 'client_credentials') return err(res, 400, 'unsupported_grant_type');
        const now = Date.now();
        let active = 0;
        for (const e of tokens.values()) if (e > now) active++;
        if (active >= QUOTA) return err(res, 429, 'maximum number of active tokens exceeded');
        const t = `tok${++tokenSeq}x${now}`;
        tokens.set(t, now + TTL * 1000);
        return send(res, 200, { access_token: t, token_type: 'bearer', expires_in: TTL, scope: 'read' });
      }
      const a = authOk(req);
      if (a) return err(res, 401, a);
      // rdm: /rdm/...
      if (p[0] === 'rdm') {
        if (req.method === 'GET' && (p[1] === 'healthcheck' || p[1] === 'status') && p.length === 2) return send(res, 200, { status: 'OK' });
        if (req.method === 'GET' && p[1] === 'version' && p.length === 2)
          return send(res, 200, null, MODE_VERSION === 'unquoted' ? '{"rdm-service": 2016.3.0.0.1}' : '{"rdm-service": "2016.3.0.0.1"}');
        if (p[1] === 'lookups' && p[3] === '_scan' && p.length === 4) {
          if (req.method !== 'POST') return err(res, 405, 'scan is POST');
          if (p[2] !== TENANT) return err(res, 404, 'tenant');
          let arr = lookups;
          const f = q.get('filter');
          if (f) {
            const m2 = /^equals\(type,'([^']*)'\)$/.exec(f);
            if (!m2) return err(res, 400, 'bad filter');
            arr = lookups.filter((l) => l.type === `rdm/lookupTypes/${m2[1]}` || l.type === m2[1]);
          }
          const s = q.get('sort');
          if (s && !['code', 'updateDate', 'type'].includes(s)) return err(res, 400, 'bad sort');
          return pageOf(res, arr, q, body, `L:${f}:${s}:${q.get('order')}`, 0);
        }
        if (req.method === 'POST' && p[1] === 'tasks' && p.length === 3) {
          if (p[2] !== TENANT) return err(res, 404, 'tenant');
          let t;
          try { t = JSON.parse(body); } catch { return err(res, 400, 'task body not JSON'); }
          if (!t || t.type !== 'delete') return err(res, 400, 'task type must be delete');
          const pr = t.parameters || {};
          if (pr.uris !== undefined) {
            if (!Array.isArray(pr.uris)) return err(res, 400, 'uris');
            for (const uri of pr.uris) {
              const parts = String(uri).split('/');
              if (parts.length !== 3 || parts[0] !== TENANT) return err(res, 400, `bad lookup uri ${uri}`);
              const i = lookups.findIndex((l) => l.type === `rdm/lookupTypes/${parts[1]}` && l.code === parts[2]);
              if (i >= 0) lookups.splice(i, 1);
            }
          } else if (pr.type !== undefined) {
            if (!/^rdm\/lookupTypes\/[^/]+$/.test(pr.type)) return err(res, 400, `bad type uri ${pr.type}`);
            for (let i = lookups.length - 1; i >= 0; i--) if (lookups[i].type === pr.type) lookups.splice(i, 1);
          } else lookups.length = 0;
          return send(res, 200, { id: 'task1', type: 'delete', tenantId: TENANT, status: 'NOT_STARTED', parameters: pr });
        }
      }
      if (p[0] === 'configuration' && p[2] === 'autopilot') {
        if (p[1] !== TENANT) return err(res, 404, 'tenant');
        if (p[3] === 'stats' && req.method === 'POST') {
          if (p.length === 5 && p[4] === '_scan') return pageOf(res, stats, q, body, `S:all`, 100);
          if (p.length === 6 && p[5] === '_scan') {
            if (!TYPES[p[4]]) return err(res, 404, `unknown lookup type ${p[4]}`);
            return pageOf(res, stats.filter((s) => s.lookupType === p[4]), q, body, `S:${p[4]}`, 100);
          }
        }
        if (req.method === 'GET' && p.length === 5 && p[4] === 'blockedValues') {
          if (!TYPES[p[3]]) return err(res, 404, `unknown lookup type ${p[3]}`);
          const off = q.has('offset') ? Number(q.get('offset')) : 0;
          const lim = q.has('limit') ? Number(q.get('limit')) : 100;
          if (!Number.isInteger(off) || off < 0 || !Number.isInteger(lim) || lim < 1 || lim > 100) return err(res, 400, 'bad offset/limit');
          return send(res, 200, blocked.filter((b) => b.lookupType === `rdm/lookupTypes/${p[3]}`).slice(off, off + lim));
        }
      }
      return err(res, 404, `no route ${req.method} ${u.pathname}`);
    } catch (e) {
      return err(res, 500, String(e));
    }
  }, Number(process.env.SMOKE_DELAY || 0)));
});
server.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  console.log(server.address().port);
});
process.on('SIGTERM', () => {
  if (process.env.SMOKE_LOG) {
    const errs = log.filter((l) => /^[45]\d\d /.test(l));
    console.error(`requests=${log.filter((l) => /^[A-Z]+ \//.test(l)).length} errors=${JSON.stringify(errs.slice(0, 3))}`);
  }
  process.exit(0);
});
