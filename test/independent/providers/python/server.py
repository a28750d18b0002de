#!/usr/bin/python3
"""Independent provider "Blue Harbor Reference Data" (Python 3.11 standard library only).

One origin serves both {base_url} (oauth + configuration) and {rdm_url} (lookups, tasks, service).
"""
import base64
import datetime
import json
import os
import random
import re
import secrets
import sys
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

KNOWN_FAULTS = (
    "blocked-offset-ignored", "blocked-default-limit-all", "blocked-offset-off-by-one",
    "stats-type-scan-leaks-other-types", "stats-filter-dropped-on-continuation", "stats-mappedat-iso",
    "quota-shared-across-clients", "quota-limit-over-200-accepted", "validity-change-not-applied",
    "multitoken-stays-on-after-disable", "version-key-renamed", "delete-uris-code-only-match",
    "cross-tenant-delete-task", "lookup-order-desc-ignored",
)
KNOWN_CHOICES = ("scroll-object-only", "over-limit-reject", "expired-403", "filter-extended")

ACTIVE_FAULT = os.environ.get("FAULT", "")
if ACTIVE_FAULT and ACTIVE_FAULT not in KNOWN_FAULTS:
    sys.stderr.write("unknown FAULT %r; valid faults: %s\n" % (ACTIVE_FAULT, ", ".join(KNOWN_FAULTS)))
    sys.exit(2)
ACTIVE_CHOICES = {c.strip() for c in os.environ.get("CHOICES", "").split(",") if c.strip()}
for _c in ACTIVE_CHOICES:
    if _c not in KNOWN_CHOICES:
        sys.stderr.write("unknown CHOICES value %r; valid choices: %s\n" % (_c, ", ".join(KNOWN_CHOICES)))
        sys.exit(2)


def has_fault(name):
    return ACTIVE_FAULT == name


def has_choice(name):
    return name in ACTIVE_CHOICES


class HttpError(Exception):
    def __init__(self, status, body, headers=None):
        super().__init__(str(body))
        self.status = status
        self.body = body
        self.headers = headers or {}


def problem(status, message, **extra):
    body = {"errorCode": status, "errorMessage": message}
    body.update(extra)
    return HttpError(status, body)


# ------------------------------------------------------------------ directory of tenants, customers, clients
class Directory:
    TENANT_AUTH = {"acme": "cassandra", "globex": "cassandra", "legacy": "rdbms"}

    def __init__(self):
        self.clients = {}
        self.customers = {}
        for cid, secret, role, tenant in (
            ("acme-admin-7f3a", "s3cr3t-acme-admin-91c2", "ROLE_ADMIN_TENANT_acme", "acme"),
            ("acme-editor-2b8d", "s3cr3t-acme-editor-44e1", "ROLE_RDM_EDIT", "acme"),
            ("acme-viewer-c51e", "s3cr3t-acme-viewer-0a9f", "ROLE_RDM", "acme"),
            ("acme-quota-9d04", "s3cr3t-acme-quota-7b33", "ROLE_RDM", "acme"),
            ("globex-admin-5e6f", "s3cr3t-globex-admin-12ab", "ROLE_ADMIN_TENANT_globex", "globex"),
            ("legacy-admin-8c7d", "s3cr3t-legacy-admin-3f5e", "ROLE_ADMIN_TENANT_legacy", "legacy"),
        ):
            self.clients[cid] = {
                "clientId": cid, "clientSecret": secret, "roles": [role], "tenantList": [tenant],
                "scope": ["configuration_api", "entities_api"], "authorities": ["ROLE_API"], "resourceIds": [],
                "authorizedGrantTypes": ["client_credentials"], "redirectUri": [],
                "accessTokenValidity": 3600, "refreshTokenValidity": 86400, "epoch": 0,
            }
        self._customer("cust-acme", ["acme"], ["acme-admin-7f3a", "acme-editor-2b8d", "acme-viewer-c51e", "acme-quota-9d04"])
        self._customer("cust-globex", ["globex"], ["globex-admin-5e6f"])
        self._customer("cust-legacy", ["legacy"], ["legacy-admin-8c7d"])
        self.cached_multitoken = {}  # fault multitoken-stays-on-after-disable

    def _customer(self, cid, tenants, apps):
        self.customers[cid] = {
            "id": cid, "tenants": tenants, "externalProviderConfig": [], "description": "Customer " + cid,
            "caseSensitiveLoginEnabled": True, "applicationClients": apps, "customerSpecificRoles": [],
        }

    def customer_of(self, client_id):
        for c in self.customers.values():
            if client_id in (c.get("applicationClients") or []):
                return c
        return None

    def multitoken_limit(self, client_id):
        """None when multi-token support is off, else the max active tokens."""
        cust = self.customer_of(client_id)
        if cust is None:
            return None
        cfg = cust.get("multitokenConfig")
        if cfg is None and has_fault("multitoken-stays-on-after-disable"):
            cfg = self.cached_multitoken.get(cust["id"])
        if cfg is None:
            return None
        cc = cfg.get("clientCredentialsMultiTokenConfig") or {}
        m = cc.get("maxActiveTokensAllowed")
        return m if isinstance(m, int) and not isinstance(m, bool) else 10


class TokenStore:
    def __init__(self, directory):
        self.d = directory
        self.by_value = {}

    def live(self, client_id, now):
        return [t for t in self.by_value.values() if t["client"] == client_id and t["exp"] > now]

    def grant(self, client):
        now = time.time()
        limit = self.d.multitoken_limit(client["clientId"])
        if limit is None:
            reusable = [t for t in self.live(client["clientId"], now) if t["epoch"] == client["epoch"]]
            if reusable:
                return max(reusable, key=lambda t: t["iat"]), now
        else:
            if has_fault("quota-shared-across-clients"):
                cust = self.d.customer_of(client["clientId"])
                count = sum(len(self.live(c, now)) for c in cust["applicationClients"])
            else:
                count = len(self.live(client["clientId"], now))
            if count >= limit:
                raise HttpError(429, {
                    "error": "limit_exceeded",
                    "error_description": "Active token limit exceeded: client %s already holds %d of %d allowed active tokens"
                                         % (client["clientId"], count, limit)}, {"Cache-Control": "no-store"})
        validity = 3600 if has_fault("validity-change-not-applied") else client["accessTokenValidity"]
        tok = {"value": secrets.token_urlsafe(32), "client": client["clientId"], "iat": now,
               "exp": now + validity, "epoch": client["epoch"]}
        self.by_value[tok["value"]] = tok
        return tok, now

    def resolve(self, value):
        return self.by_value.get(value)


# ------------------------------------------------------------------ reference data
class Dataset:
    STATUSES = ("LOOKUP_CREATED", "MISSPELLED", "AUTOMAPPED", "MANUALLY_MAPPED")

    def __init__(self):
        self.lookups = {}
        self.stats = {}
        self.blocked = {}
        self.rand = random.Random(424242)
        t0 = 1740787200000  # 2025-03-01
        self._acme(t0)
        self._globex(t0)
        self._legacy(t0)

    def _lookup(self, tenant, tname, code, n, t0, parents=None):
        rnd = self.rand
        item = {
            "tenantId": tenant, "updatedBy": "svc-loader" if n % 4 else "anna.steward",
            "updateDate": t0 + n * 7200000, "version": n % 5,
            "type": "rdm/lookupTypes/" + tname, "code": code, "enabled": n % 9 != 4,
            "sourceMappings": [], "localizations": [], "parents": parents or [], "attributes": [],
            "startDate": t0 - 86400000, "endDate": t0 + 86400000 * 4000,
        }
        if n % 3 != 2:
            item["sourceMappings"].append({"source": "Reltio", "values": [
                {"code": code, "value": code.title() + " label", "enabled": True, "canonicalValue": True,
                 "downStreamDefaultValue": n % 2 == 0}]})
        if n % 4 == 1:
            item["sourceMappings"].append({"source": "Workday", "values": [
                {"code": "WD-" + code, "value": "wd " + code.lower(), "enabled": rnd.random() > 0.1,
                 "canonicalValue": False, "downStreamDefaultValue": False}]})
        if n % 5 == 0:
            item["attributes"].append({"name": "sortKey", "value": str(n)})
        if n % 6 == 3:
            item["attributes"].append({"name": "group", "value": "G" + str(n % 4)})
        return item

    def _acme(self, t0):
        lk = []
        plan = [("Product", 150, ["Prd", "prdX", "Sku", "SKUA", "ab"]),
                ("Industry", 45, ["Ind", "FIN", "heal"]),
                ("Unit", 40, ["kg", "LB", "m"]),
                ("Channel", 35, ["web", "Retail", "B2B"])]
        n = 0
        for tname, count, prefixes in plan:
            for k in range(count):
                code = "%s%d" % (prefixes[k % len(prefixes)], k)
                parents = []
                if tname == "Product" and k % 10 == 0:
                    parents = ["rdm/lookupTypes/Industry/Ind%d" % (3 * (k % 15))]
                lk.append(self._lookup("acme", tname, code, n, t0, parents))
                n += 1
            # shared codes across lookup types
            lk.append(self._lookup("acme", tname, "SHARED1", n, t0))
            n += 1
        self.lookups["acme"] = lk

        st = []
        tnames = [p[0] for p in plan]
        for k in range(272):
            tname = tnames[0] if k % 2 == 0 else tnames[1 + (k // 2) % 3]
            status = self.STATUSES[(k * 3) % 4]
            created = t0 + k * 90000
            rec = {
                "tenantId": "acme", "lookupType": tname, "source": ("Workday", "SAP", "Legacy CRM")[k % 3],
                "unmappedValue": "val_%s_%03d" % (tname.lower(), k), "semanticScore": round(self.rand.random(), 4),
                "centroidMatch": k % 3 == 0, "currentFrequency": (k * 13) % 61, "requiredFrequency": 10,
                "frequencyAtMapping": (k * 5) % 17, "frequencyWindowHours": 48, "status": status,
                "createdAt": created,
                "sourceFrequency": {"totalCount": 5 + k % 23,
                                    "hourlyFrequency": {str(created - created % 3600000): 2 + k % 3}},
                "updateDate": created + 120000, "aiConfidence": round(0.3 + self.rand.random() * 0.7, 3),
                "aiReasoning": "Token overlap and embedding distance favour the candidate (#%d)" % k,
                "configVersion": 2,
            }
            if k % 5 not in (1, 3):
                rec["candidateLookupCode"] = "Prd%d" % (k % 150)
                rec["candidateValue"] = "Product %d" % (k % 150)
            if status != "MISSPELLED" and k % 4 != 3:
                rec["mappedAt"] = created + 600000
                rec["mappedBy"] = "SYSTEM" if status == "AUTOMAPPED" else "anna.steward"
            if k % 6 == 1:
                rec["dcrId"] = "DCR%05d" % (k * 7)
            st.append(rec)
        self.stats["acme"] = st
        self.blocked["acme"] = {
            "Product": self._blocked("acme", "Product", 155, t0),
            "Industry": self._blocked("acme", "Industry", 5, t0),
            "Unit": self._blocked("acme", "Unit", 2, t0),
            "Channel": self._blocked("acme", "Channel", 3, t0),
        }

    def _blocked(self, tenant, tname, count, t0):
        return [{"tenantId": tenant, "lookupType": "rdm/lookupTypes/" + tname,
                 "value": "%s-blk-%04d" % (tname[:3].upper(), i), "createdAt": t0 + i * 1000,
                 "createdBy": "anna.steward" if i % 3 else "svc-autopilot"} for i in range(count)]

    def _globex(self, t0):
        lk = [self._lookup("globex", "Region", c, i, t0) for i, c in enumerate(["NorthEast", "south", "WEST1", "East2", "Central"])]
        lk += [self._lookup("globex", "Tier", c, i + 5, t0) for i, c in enumerate(["gold", "Silver", "BRONZE"])]
        self.lookups["globex"] = lk
        self.stats["globex"] = [{
            "tenantId": "globex", "lookupType": "Region", "source": "GX", "unmappedValue": "gx_%d" % k,
            "semanticScore": 0.7, "centroidMatch": True, "currentFrequency": 1, "requiredFrequency": 3,
            "frequencyAtMapping": 1, "frequencyWindowHours": 12, "status": self.STATUSES[k % 4],
            "createdAt": t0 + k, "sourceFrequency": {"totalCount": 1, "hourlyFrequency": {}},
            "updateDate": t0 + k, "aiConfidence": 0.5, "aiReasoning": "gx", "configVersion": 1} for k in range(8)]
        self.blocked["globex"] = {"Region": self._blocked("globex", "Region", 4, t0)}

    def _legacy(self, t0):
        self.lookups["legacy"] = [self._lookup("legacy", "OldType", c, i, t0) for i, c in enumerate(["L1", "l2x", "L3y"])]
        self.stats["legacy"] = []
        self.blocked["legacy"] = {}


# ------------------------------------------------------------------ query language
class Query:
    SIMPLE = re.compile(r"^\s*equals\s*\(\s*([A-Za-z_.]+)\s*,\s*(?:'([^']*)'|\"([^\"]*)\"|([^\s)]+))\s*\)\s*$")

    def __init__(self, params, max_limit, default_limit, sortable, getters):
        self.getters = getters
        self.limit = default_limit
        raw = params.get("limit")
        if raw is not None:
            try:
                val = int(raw)
            except ValueError:
                raise problem(400, "limit must be an integer")
            if val < 1:
                raise problem(400, "limit must be at least 1")
            if val > max_limit:
                if has_choice("over-limit-reject"):
                    raise problem(400, "limit exceeds maximum of %d" % max_limit)
                val = max_limit
            self.limit = val
        self.sort = params.get("sort") or None
        if self.sort is not None and self.sort not in sortable:
            raise problem(400, "sort field %r is not supported" % self.sort)
        self.order = (params.get("order") or "asc").lower()
        if self.order not in ("asc", "desc"):
            raise problem(400, "order must be asc or desc")
        text = params.get("filter")
        self.predicate = None
        if text is not None and text.strip():
            self.predicate = self._compile(text)

    def _value(self, rec, field):
        if field not in self.getters:
            raise problem(400, "unknown filter field %r" % field)
        return self.getters[field](rec)

    def _compile(self, text):
        if has_choice("filter-extended"):
            return ExtendedFilter(text, self._value_checked).compile()
        m = self.SIMPLE.match(text)
        if not m:
            raise problem(400, "unsupported filter expression; use equals(field,'value')")
        field = m.group(1)
        value = next(g for g in (m.group(2), m.group(3), m.group(4)) if g is not None)
        if field not in self.getters:
            raise problem(400, "unknown filter field %r" % field)
        return lambda rec: any(_as_text(v) == value for v in _as_list(self.getters[field](rec)))

    def _value_checked(self, field):
        if field not in self.getters:
            raise problem(400, "unknown filter field %r" % field)
        return self.getters[field]

    def apply(self, records, default_key):
        out = [r for r in records if self.predicate is None or self.predicate(r)]
        key = self.sort or (default_key if self.order == "desc" else None)
        if key:
            present = [r for r in out if r.get(key) is not None]
            missing = [r for r in out if r.get(key) is None]
            present.sort(key=lambda r: r[key], reverse=(self.order == "desc"))
            out = present + missing
        return out


def _as_list(v):
    if v is None:
        return []
    return v if isinstance(v, list) else [v]


def _as_text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


class ExtendedFilter:
    """equals/startsWith/contains/missing/exists/lt/lte/gt/gte joined with and/or (and binds tighter)."""
    TOKEN = re.compile(r"\s*(?:(\()|(\))|(,)|'([^']*)'|\"([^\"]*)\"|([^\s(),'\"]+))")

    def __init__(self, text, lookup):
        self.toks = []
        pos = 0
        text = text.strip()
        while pos < len(text):
            m = self.TOKEN.match(text, pos)
            if not m or m.end() == pos:
                raise problem(400, "cannot parse filter near position %d" % pos)
            pos = m.end()
            if m.group(1):
                self.toks.append(("(", None))
            elif m.group(2):
                self.toks.append((")", None))
            elif m.group(3):
                self.toks.append((",", None))
            elif m.group(4) is not None or m.group(5) is not None:
                self.toks.append(("s", m.group(4) if m.group(4) is not None else m.group(5)))
            else:
                self.toks.append(("w", m.group(6)))
        self.i = 0
        self.lookup = lookup

    def _peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def _take(self, kind=None):
        tok = self._peek()
        if tok[0] is None or (kind and tok[0] != kind):
            raise problem(400, "malformed filter expression")
        self.i += 1
        return tok

    def compile(self):
        fn = self._or()
        if self.i != len(self.toks):
            raise problem(400, "unexpected text in filter")
        return fn

    def _or(self):
        parts = [self._and()]
        while self._peek()[0] == "w" and self._peek()[1].lower() == "or":
            self.i += 1
            parts.append(self._and())
        return parts[0] if len(parts) == 1 else (lambda r: any(p(r) for p in parts))

    def _and(self):
        parts = [self._atom()]
        while self._peek()[0] == "w" and self._peek()[1].lower() == "and":
            self.i += 1
            parts.append(self._atom())
        return parts[0] if len(parts) == 1 else (lambda r: all(p(r) for p in parts))

    def _atom(self):
        kind, word = self._take()
        if kind == "(":
            fn = self._or()
            self._take(")")
            return fn
        if kind != "w":
            raise problem(400, "operator expected in filter")
        op = word.lower()
        self._take("(")
        field = self._take("w")[1]
        get = self.lookup(field)
        arg = None
        if self._peek()[0] == ",":
            self.i += 1
            k, arg = self._take()
            if k not in ("s", "w"):
                raise problem(400, "value expected in filter")
        self._take(")")

        def vals(r):
            return [_as_text(v) for v in _as_list(get(r))]

        def nums(r):
            out = []
            for v in _as_list(get(r)):
                try:
                    out.append(float(v))
                except (TypeError, ValueError):
                    pass
            return out

        if op in ("equals", "startswith", "contains", "lt", "lte", "gt", "gte") and arg is None:
            raise problem(400, "%s needs a value" % word)
        if op == "equals":
            return lambda r: arg in vals(r)
        if op == "startswith":
            return lambda r: any(v.startswith(arg) for v in vals(r))
        if op == "contains":
            return lambda r: any(arg.lower() in v.lower() for v in vals(r))
        if op == "missing":
            return lambda r: not _as_list(get(r))
        if op == "exists":
            return lambda r: bool(_as_list(get(r)))
        if op in ("lt", "lte", "gt", "gte"):
            try:
                bound = float(arg)
            except ValueError:
                raise problem(400, "numeric value expected for %s" % word)
            cmpf = {"lt": lambda a: a < bound, "lte": lambda a: a <= bound,
                    "gt": lambda a: a > bound, "gte": lambda a: a >= bound}[op]
            return lambda r: any(cmpf(a) for a in nums(r))
        raise problem(400, "unknown filter operator %r" % word)


LOOKUP_GETTERS = {
    "type": lambda r: [r["type"], r["type"].rsplit("/", 1)[-1]],
    "code": lambda r: r["code"], "enabled": lambda r: r["enabled"], "updatedBy": lambda r: r["updatedBy"],
    "version": lambda r: r["version"], "updateDate": lambda r: r["updateDate"], "tenantId": lambda r: r["tenantId"],
    "parents": lambda r: r["parents"] or None,
}
LOOKUP_SORTABLE = ("code", "type", "updateDate", "version", "startDate", "endDate")
STAT_KEYS = ("tenantId", "lookupType", "source", "unmappedValue", "candidateLookupCode", "candidateValue",
             "semanticScore", "centroidMatch", "currentFrequency", "requiredFrequency", "frequencyAtMapping",
             "frequencyWindowHours", "status", "mappedAt", "mappedBy", "createdAt", "updateDate",
             "aiConfidence", "dcrId", "configVersion")
STAT_GETTERS = {k: (lambda key: (lambda r: r.get(key)))(k) for k in STAT_KEYS}
STAT_SORTABLE = ("createdAt", "updateDate", "semanticScore", "aiConfidence", "currentFrequency", "status",
                 "unmappedValue", "lookupType", "source", "mappedAt")


# ------------------------------------------------------------------ cursors: every page gets its own id
class Cursor:
    def __init__(self, tenant, channel, records, unfiltered, limit, shape):
        self.tenant = tenant
        self.channel = channel
        self.records = records
        self.unfiltered = unfiltered
        self.limit = limit
        self.shape = shape
        self.created = time.time()


class CursorRegistry:
    TTL = 900

    def __init__(self):
        self.pages = {}  # page id -> (cursor, position)

    def mint(self, cursor, position):
        pid = base64.urlsafe_b64encode(uuid.uuid4().bytes + position.to_bytes(4, "big")).decode().rstrip("=")
        self.pages[pid] = (cursor, position)
        return pid

    def page(self, cursor, position, continuation):
        source = cursor.records
        if continuation and has_fault("stats-filter-dropped-on-continuation") and cursor.unfiltered is not None:
            source = cursor.unfiltered
        chunk = source[position:position + cursor.limit]
        body = {}
        nxt = position + len(chunk)
        if chunk and nxt < len(source):
            body["scrollId"] = self.mint(cursor, nxt)
        body["values"] = [cursor.shape(r) for r in chunk]
        return body

    def lookup(self, pid, tenant, channel):
        entry = self.pages.get(pid)
        if entry is None:
            raise problem(400, "scroll id is unknown or has expired")
        cursor, pos = entry
        if cursor.tenant != tenant or cursor.channel != channel or time.time() - cursor.created > self.TTL:
            raise problem(400, "scroll id does not belong to this scan")
        return cursor, pos

    def sweep(self):
        now = time.time()
        for k in [k for k, (c, _) in self.pages.items() if now - c.created > self.TTL]:
            del self.pages[k]


def scroll_id_from_body(raw):
    text = raw.decode("utf-8", "replace").strip()
    if not text or text == "null":
        return None
    try:
        doc = json.loads(text)
        parsed = True
    except ValueError:
        doc, parsed = None, False
    if isinstance(doc, dict):
        sid = doc.get("scrollId")
        if sid is None:
            return None
        if not isinstance(sid, str):
            raise problem(400, "scrollId must be a string")
        return sid
    if has_choice("scroll-object-only"):
        raise problem(400, "body must be a JSON object {\"scrollId\": ...}")
    if isinstance(doc, str):
        return doc
    if parsed:
        raise problem(400, "unsupported scan body")
    return text


# ------------------------------------------------------------------ the service
class Service:
    def __init__(self):
        self.lock = threading.RLock()
        self.directory = Directory()
        self.tokens = TokenStore(self.directory)
        self.data = Dataset()
        self.cursors = CursorRegistry()

    # -- auth
    def caller(self, headers):
        auth = headers.get("Authorization") or ""
        parts = auth.split(None, 1)
        if len(parts) != 2 or parts[0].lower() != "bearer":
            raise HttpError(401, {"error": "unauthorized", "error_description": "Bearer access token required"},
                            {"WWW-Authenticate": 'Bearer realm="rdm"'})
        tok = self.tokens.resolve(parts[1].strip())
        if tok is None:
            raise HttpError(401, {"error": "invalid_token", "error_description": "Token is not recognised"},
                            {"WWW-Authenticate": 'Bearer error="invalid_token"'})
        if tok["exp"] <= time.time():
            status = 403 if has_choice("expired-403") else 401
            raise HttpError(status, {"error": "invalid_token", "error_description": "Access token expired"},
                            {"WWW-Authenticate": 'Bearer error="invalid_token", error_description="token expired"'})
        return self.directory.clients[tok["client"]]

    @staticmethod
    def admin_of(client, tenant):
        return ("ROLE_ADMIN_TENANT_" + tenant) in client["roles"]

    def require(self, client, tenant, write=False):
        if self.admin_of(client, tenant):
            return
        roles = set(client["roles"])
        wanted = {"ROLE_RDM_EDIT"} if write else {"ROLE_RDM", "ROLE_RDM_EDIT"}
        if roles & wanted and tenant in client["tenantList"]:
            return
        if write and has_fault("cross-tenant-delete-task") and "ROLE_RDM_EDIT" in roles:
            return
        raise problem(403, "client %s may not %s tenant %s" % (client["clientId"], "modify" if write else "read", tenant))

    def known_tenant(self, tenant):
        if tenant not in self.data.lookups:
            raise problem(404, "tenant %s does not exist" % tenant)

    # -- token endpoint
    def token(self, method, query, headers, raw):
        if method != "POST":
            raise HttpError(405, {"error": "invalid_request", "error_description": "use POST"}, {"Allow": "POST"})
        ctype = (headers.get("Content-Type") or "").lower()
        form = {}
        if raw:
            if ctype and "x-www-form-urlencoded" not in ctype:
                raise HttpError(400, {"error": "invalid_request", "error_description": "form body expected"},
                                {"Cache-Control": "no-store"})
            form = {k: v[0] for k, v in urllib.parse.parse_qs(raw.decode("utf-8", "replace"), keep_blank_values=True).items()}
        grant = form.get("grant_type") or query.get("grant_type")
        auth = headers.get("Authorization") or ""
        used_basic = auth[:6].lower() == "basic "
        cid = secret = None
        if used_basic:
            try:
                decoded = base64.b64decode(auth[6:].strip(), validate=True).decode("utf-8")
                cid, secret = decoded.split(":", 1)
                cid, secret = urllib.parse.unquote(cid), urllib.parse.unquote(secret)
            except Exception:
                raise self._oauth(401, "invalid_client", "malformed Basic credentials", True)
        elif "client_id" in form:
            cid, secret = form.get("client_id"), form.get("client_secret")
        if not grant:
            raise self._oauth(400, "invalid_request", "grant_type is required")
        if cid is None:
            raise self._oauth(401, "invalid_client", "client authentication missing", False)
        client = self.directory.clients.get(cid)
        if client is None or client["clientSecret"] != secret:
            raise self._oauth(401, "invalid_client", "client authentication failed", used_basic)
        if grant != "client_credentials":
            raise self._oauth(400, "unsupported_grant_type", "grant type %s is not supported" % grant)
        tok, now = self.tokens.grant(client)
        return 200, {"access_token": tok["value"], "token_type": "bearer",
                     "expires_in": max(0, int(round(tok["exp"] - now))),
                     "scope": " ".join(client["scope"])}, {"Cache-Control": "no-store", "Pragma": "no-cache"}

    @staticmethod
    def _oauth(status, code, desc, basic=False):
        hdr = {"Cache-Control": "no-store"}
        if status == 401:
            hdr["WWW-Authenticate"] = 'Basic realm="token"' + (', error="invalid_client"' if basic else "")
        return HttpError(status, {"error": code, "error_description": desc}, hdr)

    # -- configuration
    def customer_write(self, client, cust_id, body):
        cust = self.directory.customers.get(cust_id)
        if cust is None:
            raise problem(404, "customer %s not found" % cust_id)
        if not any(self.admin_of(client, t) for t in cust["tenants"]):
            raise problem(403, "configuration change requires the tenant administrator role")
        if not isinstance(body, dict):
            raise problem(400, "customer object expected")
        if "id" in body and body["id"] != cust_id:
            raise problem(400, "customer id in body differs from the path")
        for f in ("tenants", "externalProviderConfig", "applicationClients", "customerSpecificRoles"):
            if f in body and not isinstance(body[f], list):
                raise problem(400, "%s must be an array" % f)
        mt = body.get("multitokenConfig")
        if mt is not None:
            if not isinstance(mt, dict):
                raise problem(400, "multitokenConfig must be an object")
            cc = mt.get("clientCredentialsMultiTokenConfig")
            if cc is not None:
                if not isinstance(cc, dict):
                    raise problem(400, "clientCredentialsMultiTokenConfig must be an object")
                m = cc.get("maxActiveTokensAllowed")
                if m is not None:
                    if not isinstance(m, int) or isinstance(m, bool) or m < 1:
                        raise problem(400, "maxActiveTokensAllowed must be a positive integer")
                    if m > 200 and not has_fault("quota-limit-over-200-accepted"):
                        raise problem(400, "maxActiveTokensAllowed exceeds the platform limit of 200")
            tenants = body.get("tenants", cust["tenants"])
            rdbms = [t for t in tenants if Directory.TENANT_AUTH.get(t) == "rdbms"]
            if rdbms:
                raise problem(400, "validation error: multitokenConfig is not supported for tenants with "
                                   "auth.migration.mode=rdbms (%s)" % ", ".join(rdbms))
        for f in ("tenants", "externalProviderConfig", "description", "caseSensitiveLoginEnabled",
                  "applicationClients", "customerSpecificRoles"):
            if f in body:
                cust[f] = json.loads(json.dumps(body[f]))
        if mt is not None:
            cust["multitokenConfig"] = json.loads(json.dumps(mt))
            self.directory.cached_multitoken[cust_id] = cust["multitokenConfig"]
        else:
            cust.pop("multitokenConfig", None)
        return 200, cust, {}

    def clients_write(self, client, cust_id, body):
        cust = self.directory.customers.get(cust_id)
        if cust is None:
            raise problem(404, "customer %s not found" % cust_id)
        if not any(self.admin_of(client, t) for t in cust["tenants"]):
            raise problem(403, "configuration change requires the tenant administrator role")
        if not isinstance(body, list):
            raise problem(400, "array of client objects expected")
        for c in body:
            if not isinstance(c, dict) or not isinstance(c.get("clientId"), str):
                raise problem(400, "each client needs clientId")
            if c["clientId"] not in cust["applicationClients"] or c["clientId"] not in self.directory.clients:
                raise problem(400, "client %s is not an application client of %s" % (c["clientId"], cust_id))
            v = c.get("accessTokenValidity")
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 1):
                raise problem(400, "accessTokenValidity must be a positive number of seconds")
        result = []
        for c in body:
            target = self.directory.clients[c["clientId"]]
            v = c.get("accessTokenValidity")
            if v is not None and v != target["accessTokenValidity"]:
                target["accessTokenValidity"] = v
                target["epoch"] += 1
            result.append({k: target[k] for k in ("clientId", "scope", "authorities", "resourceIds",
                                                   "authorizedGrantTypes", "redirectUri",
                                                   "accessTokenValidity", "refreshTokenValidity")})
        return 200, result, {}

    # -- scans
    def scan(self, tenant, channel, query, raw, build):
        sid = scroll_id_from_body(raw)
        if sid is None:
            cursor = build()
            return 200, self.cursors.page(cursor, 0, False), {}
        cursor, pos = self.cursors.lookup(sid, tenant, channel)
        return 200, self.cursors.page(cursor, pos, True), {}

    def lookup_scan(self, client, tenant, query, raw):
        self.require(client, tenant)
        self.known_tenant(tenant)

        def build():
            q = Query(query, 1000, 100, LOOKUP_SORTABLE, LOOKUP_GETTERS)
            if has_fault("lookup-order-desc-ignored"):
                q.order = "asc"
            recs = q.apply(self.data.lookups[tenant], "code")
            return Cursor(tenant, "lookups", recs, None, q.limit, lambda r: json.loads(json.dumps(r)))
        return self.scan(tenant, "lookups", query, raw, build)

    def stats_scan(self, client, tenant, lookup_type, query, raw):
        self.require(client, tenant)
        self.known_tenant(tenant)
        channel = "stats/" + (lookup_type or "*")

        def shape(r):
            out = dict(r)
            out["sourceFrequency"] = json.loads(json.dumps(r["sourceFrequency"]))
            if lookup_type is not None:
                out.pop("dcrId", None)
            if has_fault("stats-mappedat-iso") and "mappedAt" in out:
                out["mappedAt"] = datetime.datetime.fromtimestamp(out["mappedAt"] / 1000, datetime.timezone.utc).isoformat()
            return out

        def build():
            q = Query(query, 100, 100, STAT_SORTABLE, STAT_GETTERS)
            base = self.data.stats[tenant]
            if lookup_type is not None and not has_fault("stats-type-scan-leaks-other-types"):
                base = [r for r in base if r["lookupType"] == lookup_type]
            recs = q.apply(base, "createdAt")
            unfiltered = None
            if q.predicate is not None:
                saved, q.predicate = q.predicate, None
                unfiltered = q.apply(base, "createdAt")
                q.predicate = saved
            return Cursor(tenant, channel, recs, unfiltered, q.limit, shape)
        return self.scan(tenant, channel, query, raw, build)

    def blocked_values(self, client, tenant, lookup_type, query):
        self.require(client, tenant)
        self.known_tenant(tenant)

        def number(name, default, minimum):
            raw = query.get(name)
            if raw is None:
                return default
            try:
                v = int(raw)
            except ValueError:
                raise problem(400, "%s must be an integer" % name)
            if v < minimum:
                raise problem(400, "%s must be >= %d" % (name, minimum))
            return v
        offset = number("offset", 0, 0)
        limit = number("limit", None if has_fault("blocked-default-limit-all") else 100, 1)
        if limit is not None and limit > 100:
            if has_choice("over-limit-reject"):
                raise problem(400, "limit exceeds maximum of 100")
            limit = 100
        if has_fault("blocked-offset-ignored"):
            offset = 0
        if has_fault("blocked-offset-off-by-one") and offset > 0:
            offset += 1
        values = self.data.blocked[tenant].get(lookup_type, [])
        end = None if limit is None else offset + limit
        return 200, [dict(v) for v in values[offset:end]], {}

    def task(self, client, tenant, body):
        self.require(client, tenant, write=True)
        self.known_tenant(tenant)
        if not isinstance(body, dict):
            raise problem(400, "task object expected")
        if body.get("type") != "delete":
            raise problem(400, "task type must be 'delete'")
        params = body.get("parameters")
        if params is None:
            params = {}
        if not isinstance(params, dict):
            raise problem(400, "parameters must be an object")
        ltype, uris = params.get("type"), params.get("uris")
        if ltype is not None and (not isinstance(ltype, str) or not ltype):
            raise problem(400, "parameters.type must be a lookup type URI")
        if ltype is not None and ltype.count("/") == 0:
            ltype = "rdm/lookupTypes/" + ltype
        if ltype is not None and not re.fullmatch(r"rdm/lookupTypes/[^/]+", ltype):
            raise problem(400, "parameters.type must have the form rdm/lookupTypes/<type_name>")
        if uris is not None:
            if not isinstance(uris, list) or not all(isinstance(u, str) for u in uris):
                raise problem(400, "parameters.uris must be an array of strings")
            if len(uris) > 1000:
                raise problem(400, "too many uris (maximum 1000)")
            if ltype is not None:
                raise problem(400, "give either parameters.type or parameters.uris, not both")
        current = self.data.lookups[tenant]
        if uris is not None:
            wanted = set()
            for u in uris:
                bits = u.split("/")
                if len(bits) != 3 or bits[0] != tenant or not bits[1] or not bits[2]:
                    raise problem(400, "lookup URI %r must have the form %s/<type_name>/<code>" % (u, tenant))
                wanted.add((bits[1], bits[2]))
            if has_fault("delete-uris-code-only-match"):
                codes = {c for _, c in wanted}
                keep = [r for r in current if r["code"] not in codes]
            else:
                keep = [r for r in current if (r["type"].rsplit("/", 1)[-1], r["code"]) not in wanted]
        elif ltype is not None:
            keep = [r for r in current if r["type"] != ltype]
        else:
            keep = []
        removed = len(current) - len(keep)
        self.data.lookups[tenant] = keep
        return 202, {"id": str(uuid.uuid4()), "type": "delete", "tenantId": tenant, "createdBy": client["clientId"],
                     "createdTime": int(time.time() * 1000), "status": "COMPLETED",
                     "parameters": params, "processed": removed}, {}


SERVICE = Service()

ROUTES = [
    ("PUT", re.compile(r"^/oauth/customers/([^/]+)/clients$"), "clients"),
    ("PUT|POST", re.compile(r"^/oauth/customers/([^/]+)$"), "customer"),
    ("POST", re.compile(r"^/lookups/([^/]+)/_scan$"), "lookups"),
    ("POST", re.compile(r"^/tasks/([^/]+)$"), "task"),
    ("POST", re.compile(r"^/configuration/([^/]+)/autopilot/stats/_scan$"), "stats_all"),
    ("POST", re.compile(r"^/configuration/([^/]+)/autopilot/stats/([^/]+)/_scan$"), "stats_type"),
    ("GET", re.compile(r"^/configuration/([^/]+)/autopilot/([^/]+)/blockedValues$"), "blocked"),
    ("GET", re.compile(r"^/(healthcheck|status|version)$"), "service"),
]


def parse_json(raw):
    try:
        return json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise problem(400, "malformed JSON body")


def dispatch(method, path, query, headers, raw):
    if path == "/oauth/token":
        return SERVICE.token(method, query, headers, raw)
    for methods, rx, name in ROUTES:
        m = rx.match(path)
        if not m:
            continue
        if method not in methods.split("|"):
            raise HttpError(405, {"errorCode": 405, "errorMessage": "method not allowed"}, {"Allow": methods.replace("|", ", ")})
        who = SERVICE.caller(headers)
        args = [urllib.parse.unquote(g) for g in m.groups()]
        if name in ("stats_type", "blocked") and args[1].startswith("rdm/lookupTypes/"):
            args[1] = args[1][len("rdm/lookupTypes/"):]
        if name == "service":
            if args[0] == "version":
                key = "version" if has_fault("version-key-renamed") else "rdm-service"
                return 200, {key: "2025.2.11.0.3"}, {}
            return 200, {"status": "OK"}, {}
        if name == "customer":
            return SERVICE.customer_write(who, args[0], parse_json(raw))
        if name == "clients":
            return SERVICE.clients_write(who, args[0], parse_json(raw))
        if name == "lookups":
            return SERVICE.lookup_scan(who, args[0], query, raw)
        if name == "task":
            return SERVICE.task(who, args[0], parse_json(raw))
        if name == "stats_all":
            return SERVICE.stats_scan(who, args[0], None, query, raw)
        if name == "stats_type":
            return SERVICE.stats_scan(who, args[0], args[1], query, raw)
        if name == "blocked":
            return SERVICE.blocked_values(who, args[0], args[1], query)
    raise problem(404, "no such resource")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "BlueHarborRDM/2025.2"
    sys_version = ""

    def log_message(self, *args):
        pass

    def _handle(self):
        body_read = False
        try:
            length = int(self.headers.get("Content-Length") or 0)
            if length < 0 or length > 4 * 1024 * 1024:
                raise problem(413 if length > 0 else 400, "bad Content-Length")
            raw = self.rfile.read(length) if length else b""
            body_read = True
            parsed = urllib.parse.urlsplit(self.path)
            query = {k: v[0] for k, v in urllib.parse.parse_qs(parsed.query, keep_blank_values=True).items()}
            path = parsed.path.rstrip("/") or "/"
            with SERVICE.lock:
                status, body, hdrs = dispatch(self.command, path, query, self.headers, raw)
        except HttpError as e:
            status, body, hdrs = e.status, e.body, e.headers
            if not body_read:
                self.close_connection = True
        except Exception as e:  # never crash on garbage
            status, body, hdrs = 400, {"errorCode": 400, "errorMessage": "bad request: %s" % type(e).__name__}, {}
            self.close_connection = True
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for k, v in hdrs.items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _handle


def main():
    port = 0
    argv = sys.argv[1:]
    i = 0
    while i < len(argv):
        if argv[i] == "--port" and i + 1 < len(argv):
            port = int(argv[i + 1])
            i += 2
            continue
        if argv[i].startswith("--port="):
            port = int(argv[i].split("=", 1)[1])
        i += 1
    httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    httpd.daemon_threads = True

    def sweeper():
        while True:
            time.sleep(60)
            with SERVICE.lock:
                SERVICE.cursors.sweep()
    threading.Thread(target=sweeper, daemon=True).start()
    print("listening %d" % httpd.server_address[1], flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
