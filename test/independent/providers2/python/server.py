#!/usr/bin/python3
""""Kestrel Lookup Platform": one origin serving {base_url} and {rdm_url} of the interface.

Standard library only. A single-threaded asyncio HTTP/1.1 front (keep-alive, Content-Length and
chunked bodies) dispatches to handler functions registered with @route; all state lives in one
Platform object, so no locks are needed. Scroll ids are stateless, HMAC-signed cursors: any number
of scrolls may be open at once and a scroll id replays its page (unless CHOICES=scroll-single-use).

Start: server.py --port 0  -> prints "listening <port>", listens on 127.0.0.1.
FAULT=<name> switches one fault on, CHOICES=<a,b> legal variants; unknown names exit 2.
"""
import asyncio
import base64
import hashlib
import hmac
import json
import math
import os
import random
import re
import secrets
import sys
import time
from urllib.parse import parse_qs, unquote, urlsplit

FAULTS = {
    'single-token-returns-expired': 'multi-token off: the cached token is returned again after it expired',
    'multitoken-enable-keeps-cached-token': 'after multi-token is enabled, a client holding a single-mode token keeps getting it',
    'quota-raise-ignored-after-limit': 'a client keeps the quota it had at its first multi-token issue; later changes are ignored',
    'multitoken-leaks-to-other-customers': "a customer's multitokenConfig also switches multi-token on for customers without one",
    'expired-reported-as-unknown': 'multi-token off: reissuing purges the expired token, whose use then reads "unknown token"',
    'quota-refusal-revokes-active': "a limit-exceeded refusal also revokes the client's active tokens",
    'validity-set-for-whole-customer': 'PUT .../clients applies one client\'s accessTokenValidity to every client of the customer',
    'customer-post-ignores-multitoken': 'POST /oauth/customers/{id} stores the customer but drops multitokenConfig',
    'validity-checked-in-ms': 'an explicitly set accessTokenValidity is enforced as milliseconds (default 3600 s unaffected)',
    'deleted-type-still-filterable': 'lookups deleted by type still answer filter equals(type,...) scans',
    'delete-uris-last-dropped': 'delete task with several parameters.uris leaves the last listed lookup',
    'delete-all-keeps-disabled': 'whole-tenant delete removes only enabled lookups',
    'delete-empty-parameters-noop': 'delete task with parameters {} (neither type nor uris set) deletes nothing',
    'viewer-delete-task-accepted': 'ROLE_RDM (view access) may run delete tasks',
    'authz-cache-ignores-tenant': 'a token that passed a read check once reads every tenant afterwards',
    'blocked-values-cross-tenant': 'blocked values listing does not check the tenant list',
    'stats-limit-100-rejected': 'autopilot scans answer an explicit limit=100 with 400 (the default 100 works)',
    'status-degraded-after-tenant-wipe': 'after a whole-tenant delete, GET /status no longer answers status OK',
    'rdbms-rejected-but-applied': 'multitokenConfig on an rdbms tenant gets the validation error but is stored anyway',
    'reissue-slides-expiry': 'multi-token off: returning the same token again restarts its validity',
    'sort-ties-unstable-across-pages': 'lookup scan breaks ties of the sort field differently on every other page',
}
CHOICES = {
    'scroll-id-on-every-response': 'every scan response carries scrollId, the end included; the end is an empty values array',
    'delete-async': 'delete task answers 202 with status NOT_STARTED; the deletion happens 1.5 s later',
    'config-204': 'customer PUT/POST and clients PUT answer 204 without a body',
    'version-json-number': 'GET /version answers {"rdm-service": 2025.4} (an unquoted dotted number, valid JSON)',
    'lookup-default-limit-25': 'the lookup scan pages 25 lookups when limit is not given',
    'scroll-single-use': 'a scroll id is consumed by its continuation; replaying it answers 410',
}


def switches():
    fault = os.environ.get('FAULT', '').strip()
    if fault and fault not in FAULTS:
        sys.stderr.write(f"unknown FAULT '{fault}'. Valid faults:\n" + ''.join(f'  {n}: {d}\n' for n, d in FAULTS.items()))
        sys.exit(2)
    chosen = [c.strip() for c in os.environ.get('CHOICES', '').split(',') if c.strip()]
    bad = [c for c in chosen if c not in CHOICES]
    if bad:
        sys.stderr.write(f"unknown CHOICES {', '.join(bad)}. Valid choices:\n" + ''.join(f'  {n}: {d}\n' for n, d in CHOICES.items()))
        sys.exit(2)
    return fault, set(chosen)


FAULT, CHOSEN = switches()


def faulty(name):
    return FAULT == name


def chosen(name):
    return name in CHOSEN


class Refusal(Exception):
    """An HTTP error answer: status, OAuth-style error code, description naming what is wrong."""

    def __init__(self, status, error, description, headers=None):
        super().__init__(description)
        self.status, self.error, self.description, self.headers = status, error, description, headers or {}


def bad_request(description):
    return Refusal(400, 'invalid_request', description)


# ------------------------------------------------------------------------------------------ seed
DEFAULT_VALIDITY = 3600
DEFAULT_MAX_TOKENS = 25  # maxActiveTokensAllowed when multitokenConfig gives none ("not shown")
HARD_MAX_TOKENS = 200
EPOCH = 1735689600000  # 2025-01-01T00:00:00Z

TENANTS = {'acme': 'cassandra', 'globex': 'cassandra', 'legacy': 'rdbms'}
TYPES = {
    'acme': {'Country': 88, 'Currency': 62, 'PaymentTerm': 38, 'Color': 52, 'Plant': 46},
    'globex': {'Country': 30, 'Segment': 24},
    'legacy': {'Country': 18},
}


def seed_lookups(rng, tenant):
    pool = [a + b for a in 'ABCDEFGHJKLMNPRSTUVWZ' for b in 'ABCDEFGHKLMNPRSTUVXYZ']
    shared = pool[:40]  # codes every type of the tenant uses: ties under sort=code
    out = []
    for tname, n in TYPES[tenant].items():
        codes = list(shared[: min(len(shared), n // 2)])
        rest = [c for c in pool if c not in codes]
        codes += rng.sample(rest, n - len(codes))
        for i, code in enumerate(sorted(codes)):
            updated = EPOCH + rng.randrange(0, 90 * 86400) * 1000
            lk = {
                'tenantId': tenant,
                'updatedBy': rng.choice(['ana.ortiz@kestrel.example', 'loader', 'sam.kim@kestrel.example']),
                'updateDate': updated,
                'version': rng.randrange(1, 6),
                'type': f'rdm/lookupTypes/{tname}',
                'code': code,
                'enabled': rng.random() > 0.18,
                'sourceMappings': [{
                    'source': 'Reltio',
                    'values': [{'code': code, 'value': f'{tname} {code}', 'enabled': True,
                                'canonicalValue': True, 'downStreamDefaultValue': rng.random() < 0.3}],
                }],
                'localizations': [] if i % 4 else [{'language': 'de', 'value': f'{tname} {code} (de)'}],
                'parents': [f'rdm/lookupTypes/Country/{shared[i % 10]}'] if tname == 'Plant' else [],
                'attributes': [{'name': 'rank', 'value': str(i)}],
                'startDate': EPOCH - 86400000 * rng.randrange(1, 400),
            }
            if i % 3 == 0:
                lk['sourceMappings'].append({'source': 'SAP', 'values': [
                    {'code': code.lower(), 'value': code.lower(), 'enabled': rng.random() > 0.2,
                     'canonicalValue': False, 'downStreamDefaultValue': False}]})
            if i % 5 != 2:  # open-ended lookups carry no endDate
                lk['endDate'] = lk['startDate'] + 86400000 * 3650
            out.append(lk)
    return out


STATUSES = ['LOOKUP_CREATED', 'MISSPELLED', 'AUTOMAPPED', 'MANUALLY_MAPPED', 'TRACKING', 'REJECTED']


def seed_stats(rng, tenant, lookups, count):
    types = sorted({lk['type'].split('/')[-1] for lk in lookups})
    out = []
    for i in range(count):
        tname = types[i % len(types)] if i % 7 else types[0]
        status = STATUSES[(i * 5 + i // 3) % len(STATUSES)]
        created = EPOCH + (i * 37 % 211) * 3600000  # ties on createdAt on purpose
        rec = {
            'tenantId': tenant, 'lookupType': tname, 'source': ['Reltio', 'SAP', 'Salesforce'][i % 3],
            'unmappedValue': f'{tname.lower()}-raw-{i:04d}',
            'semanticScore': round(rng.uniform(0.3, 0.99), 3), 'centroidMatch': rng.random() > 0.5,
            'currentFrequency': rng.randrange(0, 60), 'requiredFrequency': 5,
            'frequencyAtMapping': rng.randrange(0, 40), 'frequencyWindowHours': 24, 'status': status,
            'createdAt': created,
            'sourceFrequency': {'totalCount': 0, 'hourlyFrequency': {}},
            'updateDate': created + rng.randrange(0, 48) * 3600000,
            'aiConfidence': round(rng.uniform(0.1, 1.0), 3),
            'aiReasoning': f'Closest candidate by embedding distance for sample {i}',
            'configVersion': 1 + i % 3,
        }
        buckets = {str(created - h * 3600000): rng.randrange(1, 9) for h in range(1 + i % 4)}
        rec['sourceFrequency'] = {'totalCount': sum(buckets.values()), 'hourlyFrequency': buckets}
        if i % 6 != 4:
            cand = rng.choice([lk for lk in lookups if lk['type'].endswith('/' + tname)])
            rec['candidateLookupCode'] = cand['code']
            rec['candidateValue'] = f'{tname} {cand["code"]}'
        if status in ('LOOKUP_CREATED', 'AUTOMAPPED', 'MANUALLY_MAPPED'):
            rec['mappedAt'] = created + 600000
            rec['mappedBy'] = 'SYSTEM' if status == 'AUTOMAPPED' else 'ana.ortiz@kestrel.example'
        if i % 9 == 1:
            rec['dcrId'] = f'dcr-{tenant}-{i:05d}'
        out.append(rec)
    return out


def seed_blocked(rng, tenant, per_type):
    out = []
    for tname, n in per_type.items():
        for i in range(n):
            out.append({'tenantId': tenant, 'lookupType': f'rdm/lookupTypes/{tname}',
                        'value': f'{tname.lower()}-blocked-{i:03d}',
                        'createdAt': EPOCH + i * 60000 + rng.randrange(0, 1000),
                        'createdBy': rng.choice(['ana.ortiz@kestrel.example', 'SYSTEM'])})
    return out


CLIENTS = {
    # client id: secret, customer, tenant list, roles
    'acme-admin-41d7': ('kx-acme-admin-8e21f0', 'cust-acme', ['acme'], ['ROLE_ADMIN_TENANT_acme', 'ROLE_API']),
    'acme-editor-9c02': ('kx-acme-editor-17b4c9', 'cust-acme', ['acme'], ['ROLE_RDM_EDIT', 'ROLE_API']),
    'acme-viewer-2e5b': ('kx-acme-viewer-c0a6d3', 'cust-acme', ['acme'], ['ROLE_RDM', 'ROLE_API']),
    'acme-quota-7f18': ('kx-acme-quota-5d90ab', 'cust-acme', ['acme'], ['ROLE_RDM', 'ROLE_API']),
    'globex-admin-63aa': ('kx-globex-admin-2f47e8', 'cust-globex', ['globex'], ['ROLE_ADMIN_TENANT_globex', 'ROLE_API']),
    'legacy-admin-0b9e': ('kx-legacy-admin-91c5d2', 'cust-legacy', ['legacy'], ['ROLE_ADMIN_TENANT_legacy', 'ROLE_API']),
}


class Platform:
    def __init__(self):
        rng = random.Random(20250311)
        self.lookups, self.stats, self.blocked = {}, {}, {}
        self.seq = 0
        for tenant in TENANTS:
            self.lookups[tenant] = []
            for lk in seed_lookups(rng, tenant):
                self.seq += 1
                lk['_seq'] = self.seq
                self.lookups[tenant].append(lk)
        self.stats['acme'] = seed_stats(rng, 'acme', self.lookups['acme'], 296)
        self.stats['globex'] = seed_stats(rng, 'globex', self.lookups['globex'], 34)
        self.stats['legacy'] = []
        self.blocked['acme'] = seed_blocked(rng, 'acme', {'Country': 134, 'Color': 12, 'Currency': 5})
        self.blocked['globex'] = seed_blocked(rng, 'globex', {'Country': 9})
        self.blocked['legacy'] = []
        self.customers = {}
        for cust, tenant in (('cust-acme', 'acme'), ('cust-globex', 'globex'), ('cust-legacy', 'legacy')):
            self.customers[cust] = {
                'id': cust, 'tenants': [tenant], 'externalProviderConfig': [], 'description': f'{tenant} customer',
                'caseSensitiveLoginEnabled': False,
                'applicationClients': [c for c, v in CLIENTS.items() if v[1] == cust],
                'customerSpecificRoles': [],
            }
        self.clients = {}
        for cid, (secret, cust, tenants, roles) in CLIENTS.items():
            self.clients[cid] = {
                'clientId': cid, 'secret': secret, 'customer': cust, 'tenantList': tenants, 'roles': roles,
                'scope': ['configuration_api', 'entities_api'], 'authorities': ['ROLE_API'], 'resourceIds': [],
                'authorizedGrantTypes': ['client_credentials', 'password', 'refresh_token'], 'redirectUri': [],
                'accessTokenValidity': None, 'refreshTokenValidity': 86400,
            }
        self.tokens = {}  # access token -> record
        self.ghosts = {t: [] for t in TENANTS}  # FAULT deleted-type-still-filterable
        self.wiped = set()  # FAULT status-degraded-after-tenant-wipe
        self.last_multitoken = None  # FAULT multitoken-leaks-to-other-customers
        self.read_passed = set()  # FAULT authz-cache-ignores-tenant
        self.consumed = set()  # CHOICE scroll-single-use
        self.tasks = 0
        self.key = hashlib.sha256(b'kestrel-scroll' + secrets.token_bytes(16)).digest()


P = None  # the Platform, built at start


# ------------------------------------------------------------------------------------------ tokens
def now():
    return time.monotonic()


def multitoken_max(client):
    """Quota of the client's customer, or None when multi-token support is off for it."""
    cfg = P.customers[client['customer']].get('multitokenConfig')
    if cfg is None and faulty('multitoken-leaks-to-other-customers') and P.last_multitoken:
        owner, leaked = P.last_multitoken
        cfg = leaked if owner != client['customer'] else None
    if cfg is None:
        return None
    cc = cfg.get('clientCredentialsMultiTokenConfig') or {}
    limit = cc.get('maxActiveTokensAllowed')
    return DEFAULT_MAX_TOKENS if limit is None else limit


def validity_of(client):
    v = client['accessTokenValidity']
    if v is None:
        return DEFAULT_VALIDITY, False
    return v, True


def live_tokens(cid):
    t = now()
    return [r for r in P.tokens.values() if r['client'] == cid and not r['revoked'] and t < r['expires']]


def issue(client, mode):
    seconds, explicit = validity_of(client)
    lifetime = seconds / 1000 if explicit and faulty('validity-checked-in-ms') else seconds
    issued = now()
    rec = {'token': secrets.token_urlsafe(24), 'client': client['clientId'], 'issued': issued,
           'expires': issued + lifetime, 'validity': seconds, 'revoked': False, 'mode': mode}
    P.tokens[rec['token']] = rec
    return rec


def grant(client):
    cid = client['clientId']
    limit = multitoken_max(client)
    if limit is None:
        mine = sorted((r for r in P.tokens.values() if r['client'] == cid and not r['revoked']), key=lambda r: r['issued'])
        if faulty('single-token-returns-expired'):
            cached = mine[-1] if mine else None
        else:
            cached = next((r for r in reversed(mine) if now() < r['expires']), None)
        if cached:
            if faulty('reissue-slides-expiry'):
                cached['expires'] = now() + cached['validity']
            return cached
        if faulty('expired-reported-as-unknown'):
            for r in mine:
                del P.tokens[r['token']]
        return issue(client, 'single')
    if faulty('multitoken-enable-keeps-cached-token'):
        held = [r for r in live_tokens(cid) if r['mode'] == 'single']
        if held:
            return held[-1]
    if faulty('quota-raise-ignored-after-limit'):
        limit = client.setdefault('_pinnedQuota', limit)
    active = live_tokens(cid)
    if len(active) >= limit:
        if faulty('quota-refusal-revokes-active'):
            for r in active:
                r['revoked'] = True
        raise Refusal(429, 'limit_exceeded',
                      f'Active token limit exceeded: client {cid} holds {len(active)} of {limit} allowed active tokens '
                      '(maxActiveTokensAllowed); wait for a token to expire or raise the quota')
    return issue(client, 'multi')


def token_response(rec):
    client = P.clients[rec['client']]
    remaining = max(0, math.ceil(rec['expires'] - now() - 1e-6)) if not faulty('validity-checked-in-ms') else \
        max(0, math.ceil(rec['validity'] - (now() - rec['issued']) - 1e-6))
    return {'access_token': rec['token'], 'token_type': 'bearer', 'expires_in': remaining,
            'scope': ' '.join(client['scope'])}


def bearer(req):
    h = req.headers.get('authorization', '')
    m = re.match(r'(?i)bearer\s+(\S+)\s*$', h)
    if not m:
        raise Refusal(401, 'unauthorized', 'Authorization header "Bearer <ACCESS_TOKEN>" is required',
                      {'WWW-Authenticate': 'Bearer realm="kestrel"'})
    rec = P.tokens.get(m.group(1))
    if rec is None:
        raise Refusal(401, 'invalid_token', 'Unknown access token; request a new one at /oauth/token',
                      {'WWW-Authenticate': 'Bearer error="invalid_token"'})
    if rec['revoked']:
        raise Refusal(401, 'invalid_token', 'Access token was revoked; request a new one',
                      {'WWW-Authenticate': 'Bearer error="invalid_token"'})
    if now() >= rec['expires']:
        raise Refusal(401, 'invalid_token', 'Access token expired; request a new one at /oauth/token',
                      {'WWW-Authenticate': 'Bearer error="invalid_token", error_description="token expired"'})
    return rec, P.clients[rec['client']]


# ------------------------------------------------------------------------------------------ authz
def may_read(rec, client, tenant):
    if faulty('authz-cache-ignores-tenant') and rec['token'] in P.read_passed:
        return
    roles = set(client['roles'])
    if tenant not in client['tenantList'] or not roles & {'ROLE_RDM', 'ROLE_RDM_EDIT', f'ROLE_ADMIN_TENANT_{tenant}'}:
        raise Refusal(403, 'access_denied', f'Client {client["clientId"]} has no access to tenant {tenant}')
    P.read_passed.add(rec['token'])


def may_delete(client, tenant):
    roles = set(client['roles'])
    allowed = {'ROLE_RDM_EDIT', f'ROLE_ADMIN_TENANT_{tenant}'}
    if faulty('viewer-delete-task-accepted'):
        allowed.add('ROLE_RDM')
    if tenant not in client['tenantList']:
        raise Refusal(403, 'access_denied', f'Client {client["clientId"]} has no access to tenant {tenant}')
    if not roles & allowed:
        raise Refusal(403, 'access_denied', f'Deleting lookups of {tenant} needs ROLE_RDM_EDIT or ROLE_ADMIN_TENANT_{tenant}')


def may_configure(client, customer):
    missing = [t for t in customer['tenants'] if f'ROLE_ADMIN_TENANT_{t}' not in client['roles']]
    if missing:
        raise Refusal(403, 'access_denied',
                      f'Configuring customer {customer["id"]} needs ROLE_ADMIN_TENANT_ of tenant(s) {", ".join(missing)}')


# ------------------------------------------------------------------------------------------ routing
ROUTES = []


def route(method, pattern):
    rx = re.compile('^' + re.sub(r'{(\w+)}', r'(?P<\1>[^/]+)', pattern) + '$')

    def register(fn):
        ROUTES.append((method, rx, fn))
        return fn
    return register


class Request:
    def __init__(self, method, target, headers, body):
        parts = urlsplit(target)
        self.method, self.path, self.headers, self.body = method, unquote(parts.path), headers, body
        self.query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}

    def json(self, allow_empty=False):
        text = self.body.decode('utf-8', 'replace').strip()
        if not text:
            if allow_empty:
                return None
            raise bad_request('A JSON request body is required')
        try:
            return json.loads(text)
        except ValueError as e:
            raise bad_request(f'Request body is not valid JSON ({e.msg} at position {e.pos})')


# ------------------------------------------------------------------------------------------ token endpoint
@route('POST', '/oauth/token')
def token_endpoint(req):
    form = dict(req.query)
    ctype = req.headers.get('content-type', '')
    if req.body and 'application/x-www-form-urlencoded' in ctype:
        form.update({k: v[-1] for k, v in parse_qs(req.body.decode('utf-8', 'replace'), keep_blank_values=True).items()})
    cid = secret = None
    basic = re.match(r'(?i)basic\s+(\S+)', req.headers.get('authorization', ''))
    if basic:
        try:
            cid, _, secret = base64.b64decode(basic.group(1)).decode().partition(':')
        except Exception:
            raise Refusal(401, 'invalid_client', 'Malformed Basic credentials', {'WWW-Authenticate': 'Basic realm="oauth"'})
    elif 'client_id' in form:
        cid, secret = form.get('client_id'), form.get('client_secret', '')
    grant_type = form.get('grant_type')
    if not grant_type:
        raise bad_request('grant_type is required (grant_type=client_credentials in a form body or the query string)')
    if grant_type != 'client_credentials':
        raise Refusal(400, 'unsupported_grant_type', f'grant_type {grant_type} is not supported here; use client_credentials')
    client = P.clients.get(cid or '')
    if not client or not hmac.compare_digest(client['secret'], secret or ''):
        raise Refusal(401, 'invalid_client', 'Client authentication failed', {'WWW-Authenticate': 'Basic realm="oauth"'})
    return 200, token_response(grant(client)), {'Cache-Control': 'no-store', 'Pragma': 'no-cache'}


# ------------------------------------------------------------------------------------------ configuration
CUSTOMER_FIELDS = {
    'id': str, 'tenants': list, 'externalProviderConfig': list, 'description': str,
    'caseSensitiveLoginEnabled': bool, 'applicationClients': list, 'customerSpecificRoles': list, 'multitokenConfig': dict,
}


def check_customer(body, cust_id):
    if not isinstance(body, dict):
        raise bad_request('Customer body must be a JSON object')
    for k, v in body.items():
        want = CUSTOMER_FIELDS.get(k)
        if want and v is not None and not isinstance(v, want):
            raise Refusal(400, 'validation_error', f'Customer field {k} must be a {want.__name__}')
    if body.get('id') not in (None, cust_id):
        raise Refusal(400, 'validation_error', f'Customer id {body["id"]} does not match the path ({cust_id})')
    for k in ('tenants', 'applicationClients', 'customerSpecificRoles'):
        if isinstance(body.get(k), list) and not all(isinstance(x, str) for x in body[k]):
            raise Refusal(400, 'validation_error', f'Customer field {k} must be an array of strings')
    mt = body.get('multitokenConfig')
    if mt is not None:
        cc = mt.get('clientCredentialsMultiTokenConfig')
        if cc is not None and not isinstance(cc, dict):
            raise Refusal(400, 'validation_error', 'multitokenConfig.clientCredentialsMultiTokenConfig must be an object')
        limit = (cc or {}).get('maxActiveTokensAllowed')
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= HARD_MAX_TOKENS):
            raise Refusal(400, 'validation_error',
                          f'maxActiveTokensAllowed must be an integer from 1 to {HARD_MAX_TOKENS}, got {json.dumps(limit)}')


def configure_customer(req, customer_id, replace):
    rec, client = bearer(req)
    cust = P.customers.get(customer_id)
    if cust is None:
        raise Refusal(404, 'not_found', f'Unknown customer {customer_id}')
    may_configure(client, cust)
    body = req.json()
    check_customer(body, customer_id)
    if replace:  # PUT: the body is the whole customer; identity fields keep stored values when omitted
        new = {'id': customer_id, 'tenants': cust['tenants'], 'applicationClients': cust['applicationClients'],
               'externalProviderConfig': [], 'description': '', 'caseSensitiveLoginEnabled': False, 'customerSpecificRoles': []}
        new.update({k: v for k, v in body.items() if k in CUSTOMER_FIELDS and v is not None})
    else:  # POST: merge the given fields into the stored customer; multitokenConfig: null switches it off
        new = dict(cust)
        new.update({k: v for k, v in body.items() if k in CUSTOMER_FIELDS})
        if new.get('multitokenConfig') is None:
            new.pop('multitokenConfig', None)
        if faulty('customer-post-ignores-multitoken'):
            if 'multitokenConfig' in cust:
                new['multitokenConfig'] = cust['multitokenConfig']
            else:
                new.pop('multitokenConfig', None)
    for t in new['tenants']:
        if t not in TENANTS:
            raise Refusal(400, 'validation_error', f'Unknown tenant {t} in tenants')
        if f'ROLE_ADMIN_TENANT_{t}' not in client['roles']:
            raise Refusal(403, 'access_denied', f'Adding tenant {t} needs ROLE_ADMIN_TENANT_{t}')
    rdbms = [t for t in new['tenants'] if TENANTS[t] == 'rdbms']
    if new.get('multitokenConfig') is not None and rdbms:
        if faulty('rdbms-rejected-but-applied'):
            P.customers[customer_id] = new
        raise Refusal(400, 'validation_error',
                      f'multitokenConfig is supported only for tenants with Cassandra-based authorization; '
                      f'tenant {rdbms[0]} uses auth.migration.mode=rdbms. Remove multitokenConfig.')
    P.customers[customer_id] = new
    if new.get('multitokenConfig') is not None:
        P.last_multitoken = (customer_id, new['multitokenConfig'])
    if chosen('config-204'):
        return 204, None, {}
    return 200, new, {}


@route('PUT', '/oauth/customers/{customer}')
def put_customer(req, customer):
    return configure_customer(req, customer, replace=True)


@route('POST', '/oauth/customers/{customer}')
def post_customer(req, customer):
    return configure_customer(req, customer, replace=False)


CLIENT_PUBLIC = ['clientId', 'scope', 'authorities', 'resourceIds', 'authorizedGrantTypes', 'redirectUri',
                 'accessTokenValidity', 'refreshTokenValidity']


@route('PUT', '/oauth/customers/{customer}/clients')
def put_clients(req, customer):
    rec, caller = bearer(req)
    cust = P.customers.get(customer)
    if cust is None:
        raise Refusal(404, 'not_found', f'Unknown customer {customer}')
    may_configure(caller, cust)
    body = req.json()
    if not isinstance(body, list) or not body:
        raise bad_request('Body must be a non-empty JSON array of Client objects')
    updates = []
    for i, c in enumerate(body):
        if not isinstance(c, dict) or not isinstance(c.get('clientId'), str):
            raise Refusal(400, 'validation_error', f'Client [{i}] must be an object with a string clientId')
        target = P.clients.get(c['clientId'])
        if target is None or target['customer'] != customer:
            raise Refusal(400, 'validation_error', f'Client {c["clientId"]} is not a client of customer {customer}')
        for k in ('accessTokenValidity', 'refreshTokenValidity'):
            v = c.get(k)
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 1):
                raise Refusal(400, 'validation_error', f'Client {c["clientId"]}: {k} must be a positive integer (seconds)')
        for k in ('scope', 'authorities', 'resourceIds', 'authorizedGrantTypes', 'redirectUri'):
            if k in c and not (isinstance(c[k], list) and all(isinstance(x, str) for x in c[k])):
                raise Refusal(400, 'validation_error', f'Client {c["clientId"]}: {k} must be an array of strings')
        updates.append((target, c))
    for target, c in updates:  # omitted fields keep their stored values; clientSecret is never changed here
        for k in CLIENT_PUBLIC[1:]:
            if c.get(k) is not None:
                target[k] = c[k]
        if faulty('validity-set-for-whole-customer') and c.get('accessTokenValidity') is not None:
            for other in P.clients.values():
                if other['customer'] == customer:
                    other['accessTokenValidity'] = c['accessTokenValidity']
    if chosen('config-204'):
        return 204, None, {}
    return 200, [{k: t[k] for k in CLIENT_PUBLIC} for t, _ in updates], {}


# ------------------------------------------------------------------------------------------ service
@route('GET', '/healthcheck')
def healthcheck(req):
    bearer(req)
    return 200, {'status': 'OK'}, {}


@route('GET', '/status')
def status(req):
    bearer(req)
    if faulty('status-degraded-after-tenant-wipe') and P.wiped:
        return 503, {'status': 'DEGRADED', 'detail': f'tenant(s) without lookups: {", ".join(sorted(P.wiped))}'}, {}
    return 200, {'status': 'OK'}, {}


@route('GET', '/version')
def version(req):
    bearer(req)
    return 200, {'rdm-service': 2025.4 if chosen('version-json-number') else '2025.4.17.2'}, {}


# ------------------------------------------------------------------------------------------ filter / sort / pages
FILTER_FN = re.compile(r"\s*(equals|startsWith|contains|exists|missing)\s*\(\s*([A-Za-z_][\w.]*)\s*(?:,\s*('(?:[^']*)'|\"(?:[^\"]*)\"|[^,()\s]+)\s*)?\)\s*")


def parse_filter(expr):
    """Returns a list of alternatives (or), each a list of (fn, field, value) terms (and)."""
    if expr is None or not expr.strip():
        return []
    alts = []
    for alt in re.split(r'\s+or\s+', expr.strip()):
        terms = []
        for part in re.split(r'\s+and\s+', alt):
            m = FILTER_FN.fullmatch(part)
            if not m:
                raise bad_request(f"filter: cannot read '{part.strip()}'; use equals(field,'value'), startsWith, contains, "
                                  "exists(field) or missing(field), joined with and / or")
            fn, field, value = m.groups()
            if fn in ('exists', 'missing') and value is not None or fn not in ('exists', 'missing') and value is None:
                raise bad_request(f"filter: {fn} takes {'one argument' if fn in ('exists', 'missing') else 'a field and a value'}")
            if value and value[0] in '\'"':
                value = value[1:-1]
            terms.append((fn, field, value))
        alts.append(terms)
    return alts


def scalar_text(record, field):
    v = record.get(field)
    if isinstance(v, bool):
        return 'true' if v else 'false'
    if field == 'type' and isinstance(v, str):
        return v
    return None if v is None or isinstance(v, (dict, list)) else str(v)


def term_holds(record, fn, field, value):
    if fn == 'exists':
        return record.get(field) is not None
    if fn == 'missing':
        return record.get(field) is None
    text = scalar_text(record, field)
    if text is None:
        return False
    candidates = [text.lower()]
    if field == 'type':  # equals(type,'Country') and equals(type,'rdm/lookupTypes/Country') both match
        candidates.append(text.split('/')[-1].lower())
    value = value.lower()
    if fn == 'equals':
        return value in candidates
    if fn == 'startsWith':
        return any(c.startswith(value) for c in candidates)
    return any(value in c for c in candidates)


def apply_filter(records, alts):
    if not alts:
        return records
    return [r for r in records if any(all(term_holds(r, *t) for t in terms) for terms in alts)]


def int_param(req, name, default, maximum, *, floor=1):
    raw = req.query.get(name)
    if raw is None or raw == '':
        return default, False
    if not re.fullmatch(r'-?\d+', raw.strip()):
        raise bad_request(f'{name} must be an integer, got {raw!r}')
    v = int(raw)
    if v < floor or (maximum is not None and v > maximum):
        raise bad_request(f'{name} must be between {floor} and {maximum}, got {v}' if maximum is not None else
                          f'{name} must be at least {floor}, got {v}')
    return v, True


def sort_records(records, field, order, fields, page_no=0):
    if field is None:
        return records if order == 'asc' else list(reversed(records))
    if field not in fields:
        raise bad_request(f"sort: unknown field '{field}'; sortable fields: {', '.join(sorted(fields))}")
    indexed = list(enumerate(records))
    flip = faulty('sort-ties-unstable-across-pages') and page_no % 2 == 1

    def key(pair):
        i, r = pair
        v = r.get(field)
        present = v is not None and not isinstance(v, (dict, list))
        v = (v.lower() if isinstance(v, str) else v) if present else 0
        return (0 if present else 1, v, -i if flip else i)
    if order == 'asc':
        return [r for _, r in sorted(indexed, key=key)]
    # desc: reverse the field order only, ties keep their ascending order (stable under reverse)
    return [r for _, r in sorted(sorted(indexed, key=lambda p: key(p)[2]), key=lambda p: key(p)[:2], reverse=True)]


def sign(payload):
    raw = base64.urlsafe_b64encode(json.dumps(payload, separators=(',', ':')).encode()).decode().rstrip('=')
    mac = hmac.new(P.key, raw.encode(), hashlib.sha256).hexdigest()[:20]
    return f'{raw}.{mac}'


def unsign(scroll_id):
    raw, _, mac = scroll_id.partition('.')
    good = hmac.new(P.key, raw.encode(), hashlib.sha256).hexdigest()[:20]
    if not mac or not hmac.compare_digest(mac, good):
        raise Refusal(400, 'invalid_scroll', 'scrollId is not one this service issued; start again with an empty body')
    return json.loads(base64.urlsafe_b64decode(raw + '=' * (-len(raw) % 4)))


def scroll_from_body(req):
    """The first request has no body or null; afterwards the raw id, a JSON string or {"scrollId": ...}."""
    text = req.body.decode('utf-8', 'replace').strip()
    if not text or text == 'null':
        return None
    if text[0] in '{"':
        try:
            data = json.loads(text)
        except ValueError:
            raise bad_request('Scan body must be empty, null, a scroll id, or {"scrollId": "..."}')
        if isinstance(data, dict):
            data = data.get('scrollId')
        if data is None:
            return None
        if not isinstance(data, str):
            raise bad_request('scrollId must be a string')
        return data
    return text


def scan(req, kind, tenant, source, fields, limit_default, limit_max, extra=None):
    sid = scroll_from_body(req)
    if sid is None:
        order = (req.query.get('order') or 'asc').lower()
        if order not in ('asc', 'desc'):
            raise bad_request(f"order must be asc or desc, got {req.query['order']!r}")
        limit, explicit = int_param(req, 'limit', limit_default, limit_max)
        if faulty('stats-limit-100-rejected') and kind != 'lookups' and explicit and limit >= 100:
            raise bad_request(f'limit must be less than 100, got {limit}')
        flt = req.query.get('filter')
        parse_filter(flt)
        sort = req.query.get('sort') or None
        if sort is not None and sort not in fields:
            raise bad_request(f"sort: unknown field '{sort}'; sortable fields: {', '.join(sorted(fields))}")
        cur = {'k': kind, 't': tenant, 'x': extra, 'f': flt, 's': sort, 'o': order, 'l': limit, 'p': 0,
               'n': secrets.token_hex(4)}
    else:
        cur = unsign(sid)
        if cur['k'] != kind or cur['t'] != tenant or cur.get('x') != extra:
            raise Refusal(400, 'invalid_scroll', 'scrollId belongs to another scan; pass it to the endpoint that issued it')
        if chosen('scroll-single-use'):
            if cur['n'] in P.consumed:
                raise Refusal(410, 'scroll_expired', 'scrollId was already used; start the scan again with an empty body')
            P.consumed.add(cur['n'])
    alts = parse_filter(cur['f'])
    records = apply_filter(source(alts), alts)
    page_no = cur['p'] // cur['l'] if kind == 'lookups' else 0
    records = sort_records(records, cur['s'], cur['o'], fields, page_no)
    page = records[cur['p']: cur['p'] + cur['l']]
    out = {'values': [public(r) for r in page]}
    if page or chosen('scroll-id-on-every-response') and sid is not None:
        nxt = dict(cur, p=cur['p'] + len(page), n=secrets.token_hex(4))
        out = {'scrollId': sign(nxt), **out}
    return out


def public(record):
    return {k: v for k, v in record.items() if not k.startswith('_')}


LOOKUP_FIELDS = {'tenantId', 'updatedBy', 'updateDate', 'version', 'type', 'code', 'enabled', 'startDate', 'endDate'}
STAT_FIELDS = {'tenantId', 'lookupType', 'source', 'unmappedValue', 'candidateLookupCode', 'candidateValue', 'semanticScore',
               'centroidMatch', 'currentFrequency', 'requiredFrequency', 'frequencyAtMapping', 'frequencyWindowHours',
               'status', 'mappedAt', 'mappedBy', 'createdAt', 'updateDate', 'aiConfidence', 'dcrId', 'configVersion'}


def filters_on_type(alts):
    return any(fn == 'equals' and field == 'type' for terms in alts for fn, field, _ in terms)


@route('POST', '/lookups/{tenant}/_scan')
def lookup_scan(req, tenant):
    rec, client = bearer(req)
    may_read(rec, client, tenant)

    def source(alts):
        live = P.lookups.get(tenant, [])
        if faulty('deleted-type-still-filterable') and filters_on_type(alts):
            return sorted(live + P.ghosts[tenant], key=lambda r: r['_seq'])
        return live
    default = 25 if chosen('lookup-default-limit-25') else 100
    return 200, scan(req, 'lookups', tenant, source, LOOKUP_FIELDS, default, 1000), {}


@route('POST', '/configuration/{tenant}/autopilot/stats/_scan')
def stats_scan(req, tenant):
    rec, client = bearer(req)
    may_read(rec, client, tenant)
    return 200, scan(req, 'stats', tenant, lambda alts: P.stats.get(tenant, []), STAT_FIELDS, 100, 100), {}


@route('POST', '/configuration/{tenant}/autopilot/stats/{lookupType}/_scan')
def stats_type_scan(req, tenant, lookupType):
    rec, client = bearer(req)
    may_read(rec, client, tenant)
    name = lookupType.split('/')[-1]

    def source(alts):  # dcrId was only seen in the all-types scan
        return [{k: v for k, v in r.items() if k != 'dcrId'} for r in P.stats.get(tenant, []) if r['lookupType'] == name]
    return 200, scan(req, 'stats-type', tenant, source, STAT_FIELDS - {'dcrId'}, 100, 100, extra=name), {}


@route('GET', '/configuration/{tenant}/autopilot/{lookupType}/blockedValues')
def blocked_values(req, tenant, lookupType):
    rec, client = bearer(req)
    if faulty('blocked-values-cross-tenant'):
        if not set(client['roles']) & {'ROLE_RDM', 'ROLE_RDM_EDIT'} and not any(r.startswith('ROLE_ADMIN_TENANT_') for r in client['roles']):
            raise Refusal(403, 'access_denied', 'no lookup-data role')
    else:
        may_read(rec, client, tenant)
    offset, _ = int_param(req, 'offset', 0, None, floor=0)
    limit, _ = int_param(req, 'limit', 100, 100)
    name = lookupType.split('/')[-1]
    rows = [r for r in P.blocked.get(tenant, []) if r['lookupType'].split('/')[-1] == name]
    rows.sort(key=lambda r: (r['createdAt'], r['value']))
    return 200, rows[offset: offset + limit], {}


# ------------------------------------------------------------------------------------------ delete task
URI_RX = re.compile(r'^([^/]+)/([^/]+)/(.+)$')


@route('POST', '/tasks/{tenant}')
def delete_task(req, tenant):
    rec, client = bearer(req)
    may_delete(client, tenant)
    body = req.json()
    if not isinstance(body, dict) or body.get('type') != 'delete':
        raise bad_request('Task body must be an object with type "delete"')
    params = body.get('parameters')
    if params is not None and not isinstance(params, dict):
        raise bad_request('parameters must be an object with type and/or uris')
    params = params or {}
    ltype, uris = params.get('type'), params.get('uris')
    if ltype is not None and not (isinstance(ltype, str) and re.fullmatch(r'(rdm/lookupTypes/)?[^/\s]+', ltype)):
        raise bad_request('parameters.type must be a lookup type URI, rdm/lookupTypes/<type_name>')
    if uris is not None:
        if not isinstance(uris, list) or not all(isinstance(u, str) for u in uris):
            raise bad_request('parameters.uris must be an array of lookup URIs <tenant_id>/<type_name>/<code>')
        for u in uris:
            m = URI_RX.match(u)
            if not m:
                raise bad_request(f'Lookup URI {u!r} must have the shape <tenant_id>/<type_name>/<code>')
            if m.group(1) != tenant:
                raise bad_request(f'Lookup URI {u!r} names tenant {m.group(1)}, but the task runs in {tenant}')
    if faulty('delete-empty-parameters-noop') and 'parameters' in body and ltype is None and not uris:
        doomed = lambda lk: False  # noqa: E731
    elif ltype is None and uris is None:
        doomed = (lambda lk: lk['enabled']) if faulty('delete-all-keeps-disabled') else (lambda lk: True)
    else:
        tname = ltype.split('/')[-1] if ltype else None
        listed = list(uris or [])
        if faulty('delete-uris-last-dropped') and len(listed) > 1:
            listed = listed[:-1]
        keys = {(m.group(2), m.group(3)) for m in map(URI_RX.match, listed)}

        def doomed(lk):
            name = lk['type'].split('/')[-1]
            return name == tname or (name, lk['code']) in keys
    whole = ltype is None and uris is None

    def run():
        gone = [lk for lk in P.lookups[tenant] if doomed(lk)]
        P.lookups[tenant] = [lk for lk in P.lookups[tenant] if not doomed(lk)]
        if ltype is not None:
            P.ghosts[tenant].extend(gone)
        if whole:
            P.wiped.add(tenant)
        return len(gone)
    P.tasks += 1
    task = {'id': f'task-{P.tasks:05d}', 'type': 'delete', 'tenantId': tenant, 'createdBy': client['clientId'],
            'createdTime': int(time.time() * 1000), 'parameters': params}
    if chosen('delete-async'):
        asyncio.get_running_loop().call_later(1.5, run)
        return 202, {**task, 'status': 'NOT_STARTED'}, {}
    return 200, {**task, 'status': 'COMPLETED', 'deletedCount': run()}, {}


# ------------------------------------------------------------------------------------------ HTTP front
REASONS = {200: 'OK', 202: 'Accepted', 204: 'No Content', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden',
           404: 'Not Found', 405: 'Method Not Allowed', 410: 'Gone', 411: 'Length Required', 413: 'Payload Too Large',
           429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable'}


def dispatch(req):
    allowed = []
    for method, rx, fn in ROUTES:
        m = rx.match(req.path)
        if m:
            if method == req.method:
                return fn(req, **m.groupdict())
            allowed.append(method)
    if allowed:
        raise Refusal(405, 'method_not_allowed', f'{req.method} is not allowed on {req.path}; use {", ".join(allowed)}',
                      {'Allow': ', '.join(allowed)})
    raise Refusal(404, 'not_found', f'No endpoint at {req.path}')


def answer(req):
    try:
        return dispatch(req)
    except Refusal as r:
        return r.status, {'error': r.error, 'error_description': r.description}, r.headers
    except Exception as e:  # a bug must not take the server down
        sys.stderr.write(f'internal error: {e!r}\n')
        return 500, {'error': 'server_error', 'error_description': 'internal error'}, {}


async def read_body(reader, headers):
    if 'chunked' in headers.get('transfer-encoding', '').lower():
        chunks = []
        while True:
            size = int((await reader.readline()).split(b';')[0].strip() or b'0', 16)
            if size == 0:
                while (await reader.readline()) not in (b'\r\n', b'\n', b''):
                    pass
                return b''.join(chunks)
            chunks.append(await reader.readexactly(size))
            await reader.readline()
    length = int(headers.get('content-length', '0') or 0)
    if length > 8 * 1024 * 1024:
        raise ValueError('body too large')
    return await reader.readexactly(length) if length else b''


async def connection(reader, writer):
    try:
        while True:
            line = await reader.readline()
            if not line:
                break
            parts = line.decode('latin-1').strip().split()
            if len(parts) != 3 or not parts[2].startswith('HTTP/'):
                await send(writer, 400, {'error': 'invalid_request', 'error_description': 'malformed request line'}, {}, close=True)
                break
            headers = {}
            while True:
                h = await reader.readline()
                if h in (b'\r\n', b'\n', b''):
                    break
                k, _, v = h.decode('latin-1').partition(':')
                headers[k.strip().lower()] = v.strip()
            try:
                body = await read_body(reader, headers)
            except (ValueError, asyncio.IncompleteReadError):
                await send(writer, 400, {'error': 'invalid_request', 'error_description': 'unreadable body'}, {}, close=True)
                break
            req = Request(parts[0].upper(), parts[1], headers, body)
            status_code, payload, extra = answer(req)
            close = headers.get('connection', '').lower() == 'close' or parts[2] == 'HTTP/1.0'
            await send(writer, status_code, payload, extra, close=close)
            if close:
                break
    except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
        pass
    finally:
        try:
            writer.close()
        except Exception:
            pass


async def send(writer, status_code, payload, extra, close=False):
    body = b'' if payload is None else json.dumps(payload).encode()
    head = [f'HTTP/1.1 {status_code} {REASONS.get(status_code, "Status")}', f'Content-Length: {len(body)}',
            'Connection: close' if close else 'Connection: keep-alive']
    if payload is not None:
        head.append('Content-Type: application/json')
    head += [f'{k}: {v}' for k, v in extra.items()]
    writer.write(('\r\n'.join(head) + '\r\n\r\n').encode('latin-1') + body)
    await writer.drain()


async def main(port):
    global P
    P = Platform()
    server = await asyncio.start_server(connection, '127.0.0.1', port)
    print(f'listening {server.sockets[0].getsockname()[1]}', flush=True)
    async with server:
        await server.serve_forever()


if __name__ == '__main__':
    args = sys.argv[1:]
    port = 0
    if '--port' in args:
        try:
            port = int(args[args.index('--port') + 1])
        except (IndexError, ValueError):
            sys.stderr.write('usage: server.py --port <n> (0 picks a free port)\n')
            sys.exit(2)
    try:
        asyncio.run(main(port))
    except KeyboardInterrupt:
        pass
