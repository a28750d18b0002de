#!/usr/bin/python3
"""Lookup data / token quota / autopilot service: an independent provider (batch 4, python).

Standard library only.  python3 server.py --port 0  ->  prints "listening <port>".
"""
import base64
import json
import os
import random
import re
import secrets
import signal
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FAULT_NAMES = [
    # sequences / combinations
    "scroll_shared_cursor", "stats_type_leak_continuation", "scan_sort_per_page",
    "scan_page_overlap", "delete_stale_scan_cache", "delete_type_removes_all",
    "delete_uris_first_only", "token_multi_reuse", "token_quota_counts_expired",
    "token_quota_per_customer", "token_validity_stale", "rdbms_refused_write_applied",
    "multitoken_off_still_new",
    # single requests
    "quota_over_200_accepted", "stats_limit_over_max", "blocked_offset_one_based",
    "healthcheck_status_up", "viewer_can_delete", "editor_cross_tenant",
    "scan_null_body_rejected",
]
CHOICE_NAMES = ["post_merges", "exhausted_scroll_404", "limit_reject", "task_accepted",
                "equals_case_sensitive", "quota_status_403"]

FAULT = os.environ.get("FAULT", "").strip()
CHOICES = set(c.strip() for c in os.environ.get("CHOICES", "").split(",") if c.strip())
if FAULT and FAULT not in FAULT_NAMES:
    sys.stderr.write("unknown FAULT %r; known: %s\n" % (FAULT, ", ".join(FAULT_NAMES)))
    sys.exit(2)
_bad = sorted(CHOICES - set(CHOICE_NAMES))
if _bad:
    sys.stderr.write("unknown CHOICES %s; known: %s\n" % (",".join(_bad), ", ".join(CHOICE_NAMES)))
    sys.exit(2)


def F(name):
    return FAULT == name


def C(name):
    return name in CHOICES


def now_ms():
    return int(time.time() * 1000)


LOCK = threading.RLock()
TYPE_PREFIX = "rdm/lookupTypes/"
VERSION = "2026.4.1.0.3"
DEFAULT_VALIDITY = 3600
DEFAULT_MAX_TOKENS = 200
HARD_MAX_TOKENS = 1000 if F("quota_over_200_accepted") else 200

# ---------------------------------------------------------------- deployment
MAIN_TENANT, OTHER_TENANT, RDBMS_TENANT = "harbor-prod", "quarry-main", "ledger-legacy"
MAIN_CUST, OTHER_CUST, RDBMS_CUST = "harbor-logistics", "quarry-mining", "ledger-finance"
TENANT_AUTH = {MAIN_TENANT: "cassandra", OTHER_TENANT: "cassandra", RDBMS_TENANT: "rdbms"}

CLIENTS = {}  # clientId -> dict(secret, customer, authorities, tenants, validity, scope, ...)
CUSTOMERS = {}  # customerId -> stored Customer object
CUSTOMER_TENANTS = {MAIN_CUST: [MAIN_TENANT], OTHER_CUST: [OTHER_TENANT], RDBMS_CUST: [RDBMS_TENANT]}
EFFECTIVE_MT = {}  # customerId -> effective multitokenConfig max (int) or None


def add_client(cid, secret, cust, authorities, tenants):
    CLIENTS[cid] = {
        "clientId": cid, "clientSecret": secret, "customer": cust,
        "authorities": list(authorities), "tenants": list(tenants),
        "accessTokenValidity": DEFAULT_VALIDITY, "refreshTokenValidity": 86400,
        "scope": ["configuration_api", "entities_api"], "resourceIds": [],
        "authorizedGrantTypes": ["client_credentials"], "redirectUri": [],
    }


add_client("harbor-admin", "hA-7f3c91e2d4b8a605", MAIN_CUST, ["ROLE_API", "ROLE_ADMIN_TENANT_" + MAIN_TENANT], [MAIN_TENANT])
add_client("harbor-editor", "hE-2b6d0a94c7e13f58", MAIN_CUST, ["ROLE_API", "ROLE_RDM_EDIT"], [MAIN_TENANT])
add_client("harbor-viewer", "hV-91c4e7a03f5d2b86", MAIN_CUST, ["ROLE_API", "ROLE_RDM"], [MAIN_TENANT])
add_client("harbor-batch", "hB-5e08d3f17a9c64b2", MAIN_CUST, ["ROLE_API", "ROLE_RDM"], [MAIN_TENANT])
add_client("quarry-admin", "qA-c3a71f596e02d84b", OTHER_CUST, ["ROLE_API", "ROLE_ADMIN_TENANT_" + OTHER_TENANT], [OTHER_TENANT])
add_client("ledger-admin", "lA-84f2b6c09d1e7a35", RDBMS_CUST, ["ROLE_API", "ROLE_ADMIN_TENANT_" + RDBMS_TENANT], [RDBMS_TENANT])

for _cust, _desc in ((MAIN_CUST, "Harbor Logistics"), (OTHER_CUST, "Quarry Mining"), (RDBMS_CUST, "Ledger Finance")):
    CUSTOMERS[_cust] = {
        "id": _cust, "tenants": list(CUSTOMER_TENANTS[_cust]), "externalProviderConfig": [],
        "description": _desc, "caseSensitiveLoginEnabled": False,
        "applicationClients": sorted(c for c, v in CLIENTS.items() if v["customer"] == _cust),
        "customerSpecificRoles": [],
    }
    EFFECTIVE_MT[_cust] = None

TOKENS = {}  # token -> dict(clientId, customer, issued, expires)
VALIDITY_CACHE = {}  # used only by a fault

# lookups: (tenant, typeName, code) -> lookup dict ; ORDER keeps insertion order
LOOKUPS = {}
GHOSTS = {}  # deleted lookups kept for the cache fault
SEQ = [0]

rnd = random.Random(4711)


def add_lookup(tenant, tname, code, value, user="seed"):
    SEQ[0] += 1
    lk = {
        "tenantId": tenant, "updatedBy": user, "updateDate": 1767225600000 + SEQ[0] * 1000,
        "version": 1 + SEQ[0] % 3, "type": TYPE_PREFIX + tname, "code": code, "enabled": SEQ[0] % 7 != 0,
        "sourceMappings": [{"source": "Reltio", "values": [
            {"code": code, "value": value, "enabled": True, "canonicalValue": True, "downStreamDefaultValue": False}]},
            {"source": "SAP", "values": [
                {"code": code.lower(), "value": value.upper(), "enabled": True, "canonicalValue": False,
                 "downStreamDefaultValue": False}]}],
        "localizations": [],
        "parents": [],
        "attributes": [{"name": "rank", "value": str(SEQ[0] % 50)}],
        "startDate": 1704067200000, "endDate": 1893456000000, "_seq": SEQ[0],
    }
    LOOKUPS[(tenant, tname, code)] = lk


def seed():
    entries = []
    for i in range(124):
        entries.append((MAIN_TENANT, "countries", "C%03d" % i, "Country %03d" % i))
    for i in range(32):
        entries.append((MAIN_TENANT, "currencies", "CUR%02d" % i, "Currency %02d" % i))
    for i in range(57):
        entries.append((MAIN_TENANT, "states", "S%02d" % i, "State %02d" % i))
    for code, val in (("M", "Male"), ("F", "Female"), ("U", "Unknown"), ("X", "Diverse"), ("N", "Not stated")):
        entries.append((MAIN_TENANT, "genders", code, val))
    for i in range(14):
        entries.append((MAIN_TENANT, "industries", "IND%02d" % i, "Industry %02d" % i))
    for i in range(40):
        entries.append((OTHER_TENANT, "countries", "C%03d" % i, "Pays %03d" % i))
    for i in range(12):
        entries.append((OTHER_TENANT, "minerals", "MIN%02d" % i, "Mineral %02d" % i))
    for i in range(20):
        entries.append((RDBMS_TENANT, "accounts", "ACC%02d" % i, "Account %02d" % i))
    rnd.shuffle(entries)  # insertion order differs from every sort order
    for e in entries:
        add_lookup(*e)


seed()

STATUSES = ["LOOKUP_CREATED", "MISSPELLED", "AUTOMAPPED", "MANUALLY_MAPPED", "TRACKING"]
STATS = {}  # tenant -> list of records (internal, with _id)


def seed_stats():
    recs = []
    types = [("countries", 90), ("currencies", 60), ("states", 55), ("genders", 20), ("industries", 25)]
    n = 0
    for tname, cnt in types:
        for i in range(cnt):
            n += 1
            st = STATUSES[(n * 7) % len(STATUSES)]
            created = 1767225600000 + n * 37000 + rnd.randint(0, 30000)
            r = {
                "tenantId": MAIN_TENANT, "lookupType": tname, "source": ["SAP", "Salesforce", "Oracle"][n % 3],
                "unmappedValue": "%s value %03d" % (tname, rnd.randint(0, 999)),
                "semanticScore": round(rnd.random(), 4), "centroidMatch": n % 2 == 0,
                "currentFrequency": rnd.randint(0, 40), "requiredFrequency": 5,
                "frequencyAtMapping": rnd.randint(0, 20), "frequencyWindowHours": 24,
                "status": st, "createdAt": created,
                "sourceFrequency": {"totalCount": rnd.randint(1, 300),
                                    "hourlyFrequency": {str(created - created % 3600000): rnd.randint(1, 9)}},
                "updateDate": created + rnd.randint(0, 999999), "aiConfidence": round(rnd.random(), 3),
                "aiReasoning": "closest canonical value by embedding distance", "configVersion": 3 + n % 4,
                "_id": n,
            }
            if st != "TRACKING" and n % 5 != 0:
                r["candidateLookupCode"] = "%s-%02d" % (tname[:3].upper(), n % 40)
                r["candidateValue"] = "Candidate %d" % (n % 40)
            if st in ("AUTOMAPPED", "MANUALLY_MAPPED", "LOOKUP_CREATED"):
                r["mappedAt"] = created + 60000
                r["mappedBy"] = "SYSTEM" if st != "MANUALLY_MAPPED" else "steward@harbor.example"
            if st == "LOOKUP_CREATED" and n % 2 == 0:
                r["dcrId"] = "dcr-%05d" % n
            recs.append(r)
    rnd.shuffle(recs)
    STATS[MAIN_TENANT] = recs
    other = []
    for i in range(15):
        other.append({"tenantId": OTHER_TENANT, "lookupType": "minerals", "source": "SAP",
                      "unmappedValue": "ore %d" % i, "semanticScore": 0.5, "centroidMatch": False,
                      "currentFrequency": 3, "requiredFrequency": 5, "frequencyAtMapping": 0,
                      "frequencyWindowHours": 24, "status": "MISSPELLED", "createdAt": 1767225600000 + i,
                      "sourceFrequency": {"totalCount": 3, "hourlyFrequency": {}}, "updateDate": 1767225600000 + i,
                      "aiConfidence": 0.4, "aiReasoning": "low similarity", "configVersion": 1, "_id": 10000 + i})
    STATS[OTHER_TENANT] = other
    STATS[RDBMS_TENANT] = []


seed_stats()

BLOCKED = {}  # (tenant, typeName) -> list


def seed_blocked():
    lst = []
    for i in range(137):
        lst.append({"tenantId": MAIN_TENANT, "lookupType": TYPE_PREFIX + "countries",
                    "value": "blocked country %03d" % i, "createdAt": 1767225600000 + i * 60000,
                    "createdBy": ["steward@harbor.example", "ops@harbor.example"][i % 2]})
    BLOCKED[(MAIN_TENANT, "countries")] = lst
    BLOCKED[(MAIN_TENANT, "currencies")] = [
        {"tenantId": MAIN_TENANT, "lookupType": TYPE_PREFIX + "currencies", "value": "XXX%d" % i,
         "createdAt": 1767225600000 + i, "createdBy": "ops@harbor.example"} for i in range(8)]
    BLOCKED[(OTHER_TENANT, "minerals")] = [
        {"tenantId": OTHER_TENANT, "lookupType": TYPE_PREFIX + "minerals", "value": "slag",
         "createdAt": 1767225600000, "createdBy": "geo@quarry.example"}]


seed_blocked()

SCROLLS = {}
SHARED_SCROLL = {}  # fault only
TASKS = {}


# ---------------------------------------------------------------- errors
class HttpError(Exception):
    def __init__(self, status, body, headers=None):
        Exception.__init__(self, str(body))
        self.status, self.body, self.headers = status, body, headers or {}


def bad(msg, code="invalid_request"):
    return HttpError(400, {"errorCode": 400, "error": code, "errorMessage": msg})


# ---------------------------------------------------------------- filter language
TOK_RE = re.compile(r"\s*(?:(\()|(\))|(,)|'((?:[^'\\]|\\.|'')*)'|\"((?:[^\"\\]|\\.)*)\"|([A-Za-z_][\w.\-]*)|(-?\d+(?:\.\d+)?))")


def tokenize(s):
    out, pos = [], 0
    s = s.strip()
    while pos < len(s):
        m = TOK_RE.match(s, pos)
        if not m or m.end() == pos:
            raise bad("cannot parse filter near position %d" % pos)
        pos = m.end()
        if m.group(1):
            out.append(("(", None))
        elif m.group(2):
            out.append((")", None))
        elif m.group(3):
            out.append((",", None))
        elif m.group(4) is not None:
            out.append(("str", m.group(4).replace("''", "'").replace("\\'", "'")))
        elif m.group(5) is not None:
            out.append(("str", m.group(5)))
        elif m.group(6):
            out.append(("id", m.group(6)))
        else:
            out.append(("num", m.group(7)))
        while pos < len(s) and s[pos].isspace():
            pos += 1
    return out


FUNCS = {"equals", "startswith", "contains", "fulltext", "lt", "lte", "gt", "gte", "missing", "exists", "not"}


class Parser:
    def __init__(self, toks):
        self.t, self.i = toks, 0

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else (None, None)

    def take(self, kind=None):
        tok = self.peek()
        if tok[0] is None or (kind and tok[0] != kind):
            raise bad("malformed filter expression")
        self.i += 1
        return tok

    def parse(self):
        e = self.expr_or()
        if self.i != len(self.t):
            raise bad("unexpected trailing tokens in filter")
        return e

    def expr_or(self):
        left = self.expr_and()
        while self.peek() == ("id", "or") or (self.peek()[0] == "id" and self.peek()[1].lower() == "or"):
            self.take()
            left = ("or", left, self.expr_and())
        return left

    def expr_and(self):
        left = self.atom()
        while self.peek()[0] == "id" and self.peek()[1].lower() == "and":
            self.take()
            left = ("and", left, self.atom())
        return left

    def atom(self):
        tok = self.peek()
        if tok[0] == "(":
            self.take()
            e = self.expr_or()
            self.take(")")
            return e
        if tok[0] == "id":
            name = tok[1].lower()
            if name not in FUNCS:
                raise bad("unknown filter function %s" % tok[1])
            self.take()
            self.take("(")
            if name == "not":
                e = self.expr_or()
                self.take(")")
                return ("not", e)
            args = []
            while True:
                a = self.take()
                if a[0] not in ("id", "str", "num"):
                    raise bad("malformed filter arguments")
                args.append(a)
                nxt = self.take()
                if nxt[0] == ")":
                    break
                if nxt[0] != ",":
                    raise bad("malformed filter arguments")
            if args[0][0] != "id":
                raise bad("filter field must be a name")
            if name in ("missing", "exists"):
                if len(args) != 1:
                    raise bad("%s takes one field" % name)
                return (name, args[0][1], None)
            if len(args) != 2:
                raise bad("%s takes a field and a value" % name)
            return (name, args[0][1], args[1])
        raise bad("malformed filter expression")


def get_field(rec, path):
    cur = rec
    for part in path.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            return None
    return cur


def norm_type(v):
    s = str(v)
    return s[len(TYPE_PREFIX):] if s.startswith(TYPE_PREFIX) else s


def as_str(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def evaluate(node, rec):
    op = node[0]
    if op == "and":
        return evaluate(node[1], rec) and evaluate(node[2], rec)
    if op == "or":
        return evaluate(node[1], rec) or evaluate(node[2], rec)
    if op == "not":
        return not evaluate(node[1], rec)
    field, arg = node[1], node[2]
    val = get_field(rec, field)
    if op == "missing":
        return val is None
    if op == "exists":
        return val is not None
    if val is None:
        return False
    want = arg[1]
    typeish = field in ("type", "lookupType")
    vals = val if isinstance(val, list) else [val]
    for v in vals:
        if isinstance(v, (dict, list)):
            continue
        a, b = as_str(v), want
        if typeish:
            a, b = norm_type(a), norm_type(b)
        if op in ("equals", "startswith", "contains", "fulltext") and not C("equals_case_sensitive"):
            a, b = a.lower(), b.lower()
        if op == "equals" and a == b:
            return True
        if op == "startswith" and a.startswith(b):
            return True
        if op in ("contains", "fulltext") and b in a:
            return True
        if op in ("lt", "lte", "gt", "gte"):
            try:
                x, y = float(v), float(want)
            except (TypeError, ValueError):
                x, y = a, b
            if (op == "lt" and x < y) or (op == "lte" and x <= y) or (op == "gt" and x > y) or (op == "gte" and x >= y):
                return True
    return False


def compile_filter(s):
    if s is None or s.strip() == "":
        return None
    return Parser(tokenize(s)).parse()


def sort_key_fn(field):
    def key(rec):
        v = get_field(rec, field)
        if v is None or isinstance(v, (dict, list)):
            return (1, 0, "")
        if isinstance(v, bool):
            return (0, 0, int(v))
        if isinstance(v, (int, float)):
            return (0, 0, v)
        return (0, 1, str(v))
    return key


def order_records(recs, sort, order, tie):
    recs = sorted(recs, key=tie)
    if sort:
        kf = sort_key_fn(sort)
        present = [r for r in recs if kf(r)[0] == 0]
        absent = [r for r in recs if kf(r)[0] != 0]
        present.sort(key=kf, reverse=(order == "desc"))
        return present + absent  # records without the field always come last
    if order == "desc":
        recs.reverse()
    return recs


def parse_int(q, name, default, maximum, minimum=1):
    raw = q.get(name)
    if raw is None or raw == "":
        return default
    try:
        v = int(raw)
    except ValueError:
        raise bad("%s must be an integer" % name)
    if v < minimum:
        raise bad("%s must be at least %d" % (name, minimum))
    if maximum is not None and v > maximum:
        if C("limit_reject"):
            raise bad("%s must be at most %d" % (name, maximum))
        v = maximum
    return v


def parse_order(q):
    o = q.get("order")
    if o is None or o == "":
        return "asc"
    if o.lower() not in ("asc", "desc"):
        raise bad("order must be asc or desc")
    return o.lower()


# ---------------------------------------------------------------- auth
def authenticate(handler):
    h = handler.headers.get("Authorization")
    if not h:
        raise HttpError(401, {"error": "unauthorized", "error_description": "Full authentication is required to access this resource"})
    parts = h.split(None, 1)
    if len(parts) != 2 or parts[0].lower() != "bearer":
        raise HttpError(401, {"error": "unauthorized", "error_description": "Bearer token required"})
    tok = TOKENS.get(parts[1].strip())
    if tok is None:
        raise HttpError(401, {"error": "invalid_token", "error_description": "Invalid access token"})
    if time.time() >= tok["expires"]:
        raise HttpError(401, {"error": "invalid_token", "error_description": "Access token expired: the token has expired"})
    cl = CLIENTS.get(tok["clientId"])
    if cl is None:
        raise HttpError(401, {"error": "invalid_token", "error_description": "Invalid access token"})
    return cl


def forbidden(msg="Access is denied"):
    return HttpError(403, {"errorCode": 403, "error": "access_denied", "errorMessage": msg})


def is_admin(cl, tenant):
    return ("ROLE_ADMIN_TENANT_" + tenant) in cl["authorities"]


def can_read(cl, tenant):
    if is_admin(cl, tenant):
        return True
    if "ROLE_RDM_EDIT" in cl["authorities"] or "ROLE_RDM" in cl["authorities"]:
        return tenant in cl["tenants"] or F("editor_cross_tenant")
    return False


def can_edit(cl, tenant):
    if is_admin(cl, tenant):
        return True
    if "ROLE_RDM_EDIT" in cl["authorities"]:
        return tenant in cl["tenants"] or F("editor_cross_tenant")
    if F("viewer_can_delete") and "ROLE_RDM" in cl["authorities"]:
        return tenant in cl["tenants"]
    return False


def can_configure_customer(cl, cust):
    return any(is_admin(cl, t) for t in CUSTOMER_TENANTS.get(cust, []))


# ---------------------------------------------------------------- token endpoint
def token_endpoint(handler, query, body):
    ctype = (handler.headers.get("Content-Type") or "").lower()
    form = {}
    if body:
        if "json" in ctype:
            try:
                j = json.loads(body.decode("utf-8"))
                if isinstance(j, dict):
                    form = {k: str(v) for k, v in j.items()}
            except ValueError:
                raise HttpError(400, {"error": "invalid_request", "error_description": "malformed body"})
        else:
            form = {k: v[0] for k, v in urllib.parse.parse_qs(body.decode("utf-8", "replace")).items()}
    params = dict(query)
    params.update(form)
    basic = False
    cid = secret = None
    h = handler.headers.get("Authorization")
    if h and h.split(None, 1)[0].lower() == "basic":
        basic = True
        try:
            dec = base64.b64decode(h.split(None, 1)[1].strip()).decode("utf-8")
            cid, secret = dec.split(":", 1)
            cid, secret = urllib.parse.unquote(cid), urllib.parse.unquote(secret)
        except Exception:
            raise HttpError(401, {"error": "invalid_client", "error_description": "malformed Basic credentials"},
                            {"WWW-Authenticate": 'Basic realm="oauth"'})
    else:
        cid, secret = params.get("client_id"), params.get("client_secret")
    grant = params.get("grant_type")
    if not grant:
        raise HttpError(400, {"error": "invalid_request", "error_description": "grant_type is required"})
    cl = CLIENTS.get(cid or "")
    if cl is None or not secrets.compare_digest(cl["clientSecret"].encode("utf-8"), (secret or "").encode("utf-8")):
        hdr = {"WWW-Authenticate": 'Basic realm="oauth", error="invalid_client"'} if basic else {}
        raise HttpError(401, {"error": "invalid_client", "error_description": "Bad client credentials"}, hdr)
    if grant != "client_credentials":
        raise HttpError(400, {"error": "unsupported_grant_type", "error_description": "Unsupported grant type: %s" % grant})
    cust = cl["customer"]
    t = time.time()
    if F("token_validity_stale"):
        validity = VALIDITY_CACHE.setdefault(cid, cl["accessTokenValidity"])
    else:
        validity = cl["accessTokenValidity"]
    mt = EFFECTIVE_MT.get(cust)
    if mt is None or F("token_multi_reuse"):
        # multi-token support off: the same token is returned while it is still valid
        live = [(k, v) for k, v in TOKENS.items() if v["clientId"] == cid and v["expires"] > t]
        if live:
            live.sort(key=lambda kv: kv[1]["issued"])
            k, v = live[-1]
            return issue_response(k, v, t)
    else:
        if F("token_quota_per_customer"):
            active = [v for v in TOKENS.values() if v["customer"] == cust and v["expires"] > t]
        elif F("token_quota_counts_expired"):
            active = [v for v in TOKENS.values() if v["clientId"] == cid]
        else:
            active = [v for v in TOKENS.values() if v["clientId"] == cid and v["expires"] > t]
        if len(active) >= mt:
            status = 403 if C("quota_status_403") else 429
            raise HttpError(status, {"error": "access_denied", "error_description":
                                     "Maximum active tokens limit exceeded: %d of %d active tokens in use for client %s; "
                                     "wait for a token to expire or raise maxActiveTokensAllowed" % (len(active), mt, cid)})
    k = secrets.token_urlsafe(30)
    v = {"clientId": cid, "customer": cust, "issued": t, "expires": t + validity, "validity": validity}
    TOKENS[k] = v
    prune_tokens(t)
    return issue_response(k, v, t)


def prune_tokens(t):
    if len(TOKENS) > 20000 and not F("token_quota_counts_expired"):
        for k in [k for k, v in TOKENS.items() if v["expires"] < t - 3600]:
            del TOKENS[k]


def issue_response(k, v, t):
    return 200, {"access_token": k, "token_type": "bearer", "expires_in": max(0, int(v["expires"] - t)),
                 "scope": " ".join(CLIENTS[v["clientId"]]["scope"])}, {"Cache-Control": "no-store", "Pragma": "no-cache"}


# ---------------------------------------------------------------- customers and clients
STR_ARRAYS = ("tenants", "applicationClients", "customerSpecificRoles")


def validate_customer(body, cust_id):
    if not isinstance(body, dict):
        raise bad("customer body must be a JSON object", "validation_error")
    for f in STR_ARRAYS:
        if f in body and body[f] is not None:
            if not isinstance(body[f], list) or not all(isinstance(x, str) for x in body[f]):
                raise bad("%s must be an array of strings" % f, "validation_error")
    if "externalProviderConfig" in body and body["externalProviderConfig"] is not None and not isinstance(body["externalProviderConfig"], list):
        raise bad("externalProviderConfig must be an array", "validation_error")
    if "description" in body and body["description"] is not None and not isinstance(body["description"], str):
        raise bad("description must be a string", "validation_error")
    if "caseSensitiveLoginEnabled" in body and body["caseSensitiveLoginEnabled"] is not None and not isinstance(body["caseSensitiveLoginEnabled"], bool):
        raise bad("caseSensitiveLoginEnabled must be a boolean", "validation_error")
    mtc = body.get("multitokenConfig")
    if mtc is None:
        return None
    if not isinstance(mtc, dict):
        raise bad("multitokenConfig must be an object", "validation_error")
    cc = mtc.get("clientCredentialsMultiTokenConfig")
    if cc is None:
        return None
    if not isinstance(cc, dict):
        raise bad("clientCredentialsMultiTokenConfig must be an object", "validation_error")
    mx = cc.get("maxActiveTokensAllowed", DEFAULT_MAX_TOKENS)
    if isinstance(mx, bool) or not isinstance(mx, int):
        raise bad("maxActiveTokensAllowed must be an integer", "validation_error")
    if mx < 1 or mx > HARD_MAX_TOKENS:
        raise bad("maxActiveTokensAllowed must be between 1 and 200", "validation_error")
    return mx


def customer_uses_rdbms(cust_id, body):
    tenants = set(CUSTOMER_TENANTS.get(cust_id, []))
    if isinstance(body.get("tenants"), list):
        tenants |= set(x for x in body["tenants"] if isinstance(x, str))
    return any(TENANT_AUTH.get(t) == "rdbms" for t in tenants)


def put_customer(cl, cust_id, body, method):
    if cust_id not in CUSTOMERS:
        raise HttpError(404, {"errorCode": 404, "error": "not_found", "errorMessage": "customer %s not found" % cust_id})
    if not can_configure_customer(cl, cust_id):
        raise forbidden()
    mx = validate_customer(body, cust_id)
    has_mt = isinstance(body, dict) and body.get("multitokenConfig") is not None
    merge = method == "POST" and C("post_merges")
    if merge and "multitokenConfig" not in body:
        has_mt = CUSTOMERS[cust_id].get("multitokenConfig") is not None
        mx = EFFECTIVE_MT[cust_id]
    if has_mt and customer_uses_rdbms(cust_id, body):
        if F("rdbms_refused_write_applied"):
            store_customer(cust_id, body, mx, merge)
        raise HttpError(400, {"errorCode": 400, "error": "validation_error", "errorMessage":
                              "multitokenConfig is supported only for tenants with Cassandra-based authorization; "
                              "tenant uses auth.migration.mode=rdbms"})
    store_customer(cust_id, body, mx, merge)
    return 200, public_customer(cust_id), {}


def store_customer(cust_id, body, mx, merge):
    old = CUSTOMERS[cust_id]
    if merge:
        new = dict(old)
        new.update({k: v for k, v in body.items()})
    else:
        new = {k: v for k, v in body.items()}
    new["id"] = cust_id
    for f in STR_ARRAYS + ("externalProviderConfig",):
        if new.get(f) is None:
            # tenants and application clients are managed by the platform: kept when left out
            new[f] = list(old.get(f) or []) if f in ("tenants", "applicationClients") else []
    if new.get("multitokenConfig") is None:
        new.pop("multitokenConfig", None)
    else:
        new["multitokenConfig"] = {"clientCredentialsMultiTokenConfig": {"maxActiveTokensAllowed": mx}}
    CUSTOMERS[cust_id] = new
    if mx is None and F("multitoken_off_still_new") and EFFECTIVE_MT.get(cust_id) is not None:
        return  # stale effective config kept
    EFFECTIVE_MT[cust_id] = mx


def public_customer(cust_id):
    return json.loads(json.dumps(CUSTOMERS[cust_id]))


def put_clients(cl, cust_id, body):
    if cust_id not in CUSTOMERS:
        raise HttpError(404, {"errorCode": 404, "error": "not_found", "errorMessage": "customer %s not found" % cust_id})
    if not can_configure_customer(cl, cust_id):
        raise forbidden()
    if not isinstance(body, list):
        raise bad("body must be an array of clients", "validation_error")
    updates = []
    for c in body:
        if not isinstance(c, dict) or not isinstance(c.get("clientId"), str) or not c["clientId"]:
            raise bad("every client needs a clientId", "validation_error")
        ex = CLIENTS.get(c["clientId"])
        if ex is not None and ex["customer"] != cust_id:
            raise bad("client %s belongs to another customer" % c["clientId"], "validation_error")
        for f in ("accessTokenValidity", "refreshTokenValidity"):
            if f in c and c[f] is not None and (isinstance(c[f], bool) or not isinstance(c[f], int) or c[f] < 1):
                raise bad("%s must be a positive integer" % f, "validation_error")
        for f in ("scope", "authorities", "resourceIds", "authorizedGrantTypes", "redirectUri"):
            if f in c and c[f] is not None and (not isinstance(c[f], list) or not all(isinstance(x, str) for x in c[f])):
                raise bad("%s must be an array of strings" % f, "validation_error")
        if ex is None and not isinstance(c.get("clientSecret"), str):
            raise bad("a new client needs a clientSecret", "validation_error")
        updates.append(c)
    out = []
    for c in updates:
        cid = c["clientId"]
        ex = CLIENTS.get(cid)
        if ex is None:
            add_client(cid, c["clientSecret"], cust_id, c.get("authorities") or ["ROLE_API"], CUSTOMER_TENANTS[cust_id])
            ex = CLIENTS[cid]
            if cid not in CUSTOMERS[cust_id]["applicationClients"]:
                CUSTOMERS[cust_id]["applicationClients"].append(cid)
        for f in ("accessTokenValidity", "refreshTokenValidity", "scope", "resourceIds", "authorizedGrantTypes", "redirectUri"):
            if c.get(f) is not None:
                ex[f] = c[f]
        if isinstance(c.get("clientSecret"), str) and c["clientSecret"] and c["clientSecret"] != "<CLIENT_SECRET>":
            ex["clientSecret"] = c["clientSecret"]
        out.append(public_client(ex))
    return 200, out, {}


def public_client(ex):
    return {"clientId": ex["clientId"], "scope": ex["scope"], "authorities": ex["authorities"],
            "resourceIds": ex["resourceIds"], "authorizedGrantTypes": ex["authorizedGrantTypes"],
            "redirectUri": ex["redirectUri"], "accessTokenValidity": ex["accessTokenValidity"],
            "refreshTokenValidity": ex["refreshTokenValidity"]}


# ---------------------------------------------------------------- scans
def parse_scroll_body(handler, body):
    """Returns None for a first request, else the scroll id."""
    raw = body.decode("utf-8", "replace").strip() if body else ""
    if raw == "":
        return None
    try:
        j = json.loads(raw)
    except ValueError:
        return raw  # raw scroll id as the body
    if j is None:
        if F("scan_null_body_rejected"):
            raise bad("request body must not be null")
        return None
    if isinstance(j, str):
        return j
    if isinstance(j, dict):
        s = j.get("scrollId")
        if s is None:
            if not j:
                return None
            raise bad("scrollId missing from body")
        if not isinstance(s, str):
            raise bad("scrollId must be a string")
        return s
    raise bad("body must be a scroll identifier")


def new_scroll(kind, tenant, items, limit, public):
    sid = "%s.%s" % (kind[:2], secrets.token_hex(16))
    sc = {"id": sid, "kind": kind, "tenant": tenant, "items": items, "pos": 0, "limit": limit,
          "public": public, "created": time.time(), "exhausted": False}
    SCROLLS[sid] = sc
    if F("scroll_shared_cursor"):
        SHARED_SCROLL[(tenant, kind)] = sc
    if len(SCROLLS) > 5000:
        for k in sorted(SCROLLS, key=lambda x: SCROLLS[x]["created"])[:1000]:
            del SCROLLS[k]
    return sc


def find_scroll(sid, kind, tenant):
    sc = SCROLLS.get(sid)
    if sc is None or sc["kind"] != kind or sc["tenant"] != tenant:
        raise HttpError(404, {"errorCode": 404, "error": "not_found", "errorMessage": "scroll %s not found or expired" % sid})
    if F("scroll_shared_cursor"):
        sc = SHARED_SCROLL.get((tenant, kind), sc)
    return sc


def next_page(sc, first):
    if sc["exhausted"] and C("exhausted_scroll_404") and not first:
        raise HttpError(404, {"errorCode": 404, "error": "not_found", "errorMessage": "scroll %s is exhausted" % sc["id"]})
    if not first and F("scan_page_overlap") and 0 < sc["pos"] < len(sc["items"]):
        sc["pos"] -= 1
    page = []
    items = sc["items"]
    while sc["pos"] < len(items) and len(page) < sc["limit"]:
        rec = sc["public"](items[sc["pos"]])
        sc["pos"] += 1
        if rec is not None:
            page.append(rec)
    if F("scan_sort_per_page") and sc.get("sort"):
        page = order_records(page, sc["sort"], sc["order"], lambda r: 0)
    if not page:
        sc["exhausted"] = True
    return {"scrollId": sc["id"], "values": page}


def lookup_public(key):
    lk = LOOKUPS.get(key)
    if lk is None and F("delete_stale_scan_cache"):
        lk = GHOSTS.get(key)
    if lk is None:
        return None  # deleted since the scroll was opened
    return {k: v for k, v in lk.items() if not k.startswith("_")}


def scan_lookups(cl, tenant, query, body):
    if not can_read(cl, tenant):
        raise forbidden()
    sid = parse_scroll_body(None, body)
    if sid is not None:
        return 200, next_page(find_scroll(sid, "lookups", tenant), False), {}
    limit = parse_int(query, "limit", 100, 1000 if not C("limit_reject") else 1000)
    flt = compile_filter(query.get("filter"))
    sort = query.get("sort") or None
    order = parse_order(query)
    pool = dict(LOOKUPS)
    if F("delete_stale_scan_cache"):
        for k, v in GHOSTS.items():
            pool.setdefault(k, v)
    recs = [v for k, v in pool.items() if k[0] == tenant and (flt is None or evaluate(flt, v))]
    if F("scan_sort_per_page"):
        recs.sort(key=lambda r: r["_seq"])
    else:
        recs = order_records(recs, sort, order, lambda r: (r["type"], r["code"]))
    items = [(r["tenantId"], norm_type(r["type"]), r["code"]) for r in recs]
    sc = new_scroll("lookups", tenant, items, limit, lookup_public)
    sc["sort"], sc["order"] = sort, order
    return 200, next_page(sc, True), {}


def stat_public_factory(per_type):
    def pub(rec):
        out = {k: v for k, v in rec.items() if not k.startswith("_")}
        if per_type:
            out.pop("dcrId", None)
        return out
    return pub


def scan_stats(cl, tenant, lookup_type, query, body):
    if not can_read(cl, tenant):
        raise forbidden()
    kind = "stats" if lookup_type is None else "stats/" + lookup_type
    sid = parse_scroll_body(None, body)
    if sid is not None:
        return 200, next_page(find_scroll(sid, kind, tenant), False), {}
    limit = parse_int(query, "limit", 100, None if F("stats_limit_over_max") else 100)
    flt = compile_filter(query.get("filter"))
    sort = query.get("sort") or None
    order = parse_order(query)
    allrecs = STATS.get(tenant, [])
    recs = [r for r in allrecs
            if (lookup_type is None or norm_type(r["lookupType"]) == norm_type(lookup_type))
            and (flt is None or evaluate(flt, r))]
    recs = order_records(recs, sort, order, lambda r: r["_id"])
    if lookup_type is not None and F("stats_type_leak_continuation"):
        rest = order_records([r for r in allrecs if flt is None or evaluate(flt, r)], sort, order, lambda r: r["_id"])
        recs = recs[:limit] + rest[limit:]
    sc = new_scroll(kind, tenant, recs, limit, stat_public_factory(lookup_type is not None))
    sc["sort"], sc["order"] = sort, order
    return 200, next_page(sc, True), {}


def blocked_values(cl, tenant, lookup_type, query):
    if not can_read(cl, tenant):
        raise forbidden()
    offset = parse_int(query, "offset", 0, None, minimum=0)
    limit = parse_int(query, "limit", 100, 100)
    lst = sorted(BLOCKED.get((tenant, norm_type(lookup_type)), []), key=lambda b: (b["createdAt"], b["value"]))
    start = max(0, offset - 1) if F("blocked_offset_one_based") else offset
    return 200, [dict(b) for b in lst[start:start + limit]], {}


# ---------------------------------------------------------------- tasks
def delete_task(cl, tenant, body):
    if not can_edit(cl, tenant):
        raise forbidden()
    try:
        req = json.loads(body.decode("utf-8")) if body and body.strip() else None
    except ValueError:
        raise bad("body must be JSON")
    if not isinstance(req, dict):
        raise bad("body must be a task object")
    if req.get("type") != "delete":
        raise bad("task type must be delete")
    params = req.get("parameters")
    if params is not None and not isinstance(params, dict):
        raise bad("parameters must be an object")
    params = params or {}
    ptype, uris = params.get("type"), params.get("uris")
    if ptype is not None:
        if not isinstance(ptype, str) or not ptype.startswith(TYPE_PREFIX) or len(ptype) == len(TYPE_PREFIX) or "/" in ptype[len(TYPE_PREFIX):]:
            raise bad("parameters.type must be a lookup type URI rdm/lookupTypes/<type_name>")
    targets = set()
    if uris is not None:
        if not isinstance(uris, list) or not all(isinstance(u, str) for u in uris):
            raise bad("parameters.uris must be an array of strings")
        if len(uris) > 1000:
            raise bad("at most 1000 uris per task")
        parsed = []
        for u in uris:
            parts = u.split("/")
            if len(parts) != 3 or not all(parts):
                raise bad("lookup uri %r must have the shape <tenant_id>/<type_name>/<code>" % u)
            parsed.append(tuple(parts))
        if F("delete_uris_first_only"):
            parsed = parsed[:1]
        for p in parsed:
            if p[0] == tenant:
                targets.add(p)
    if ptype is not None:
        tname = norm_type(ptype)
        for k in LOOKUPS:
            if k[0] == tenant and (k[1] == tname or F("delete_type_removes_all")):
                targets.add(k)
    if ptype is None and uris is None:
        for k in LOOKUPS:
            if k[0] == tenant:
                targets.add(k)
    removed = 0
    for k in targets:
        lk = LOOKUPS.pop(k, None)
        if lk is not None:
            removed += 1
            GHOSTS[k] = lk
    tid = secrets.token_hex(8)
    task = {"id": tid, "type": "delete", "tenantId": tenant, "createdBy": cl["clientId"],
            "createdTime": now_ms(), "parameters": params,
            "status": "NOT_STARTED" if C("task_accepted") else "COMPLETED",
            "result": {"deleted": removed} if not C("task_accepted") else None}
    if task["result"] is None:
        del task["result"]
    TASKS[tid] = task
    return (202 if C("task_accepted") else 200), task, {}


# ---------------------------------------------------------------- http
class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "HarborRDM/2026.4"

    def log_message(self, fmt, *args):
        pass

    def send_json(self, status, obj, headers=None):
        data = json.dumps(obj).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json;charset=UTF-8")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def read_body(self):
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks, total = [], 0
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                total += size
                if total > 5 * 1024 * 1024:
                    raise HttpError(413, {"errorCode": 413, "error": "payload_too_large", "errorMessage": "body too large"})
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        if n > 5 * 1024 * 1024:
            raise HttpError(413, {"errorCode": 413, "error": "payload_too_large", "errorMessage": "body too large"})
        return self.rfile.read(n) if n > 0 else b""

    def handle_any(self, method):
        try:
            u = urllib.parse.urlsplit(self.path)
            query = {k: v[0] for k, v in urllib.parse.parse_qs(u.query, keep_blank_values=True).items()}
            parts = [urllib.parse.unquote(p) for p in u.path.split("/") if p]
            body = self.read_body()
            with LOCK:
                status, obj, headers = self.route(method, parts, query, body)
            self.send_json(status, obj, headers)
        except HttpError as e:
            self.send_json(e.status, e.body, e.headers)
        except Exception as e:  # pragma: no cover
            self.send_json(500, {"errorCode": 500, "error": "internal_error", "errorMessage": str(e)})

    def route(self, method, p, q, body):
        if p == ["oauth", "token"]:
            if method != "POST":
                raise HttpError(405, {"error": "method_not_allowed"}, {"Allow": "POST"})
            return token_endpoint(self, q, body)
        allowed = None
        if len(p) == 1 and p[0] in ("healthcheck", "status", "version"):
            allowed = "GET"
        elif len(p) == 3 and p[0] == "lookups" and p[2] == "_scan":
            allowed = "POST"
        elif len(p) == 2 and p[0] == "tasks":
            allowed = "POST"
        elif len(p) == 3 and p[:2] == ["oauth", "customers"]:
            allowed = ("PUT", "POST", "GET")
        elif len(p) == 4 and p[:2] == ["oauth", "customers"] and p[3] == "clients":
            allowed = ("PUT", "GET")
        elif len(p) == 5 and p[0] == "configuration" and p[2:] == ["autopilot", "stats", "_scan"]:
            allowed = "POST"
        elif len(p) == 6 and p[0] == "configuration" and p[2:4] == ["autopilot", "stats"] and p[5] == "_scan":
            allowed = "POST"
        elif len(p) == 5 and p[0] == "configuration" and p[2] == "autopilot" and p[4] == "blockedValues":
            allowed = "GET"
        if allowed is None:
            raise HttpError(404, {"errorCode": 404, "error": "not_found", "errorMessage": "no such resource"})
        cl = authenticate(self)
        if method not in (allowed if isinstance(allowed, tuple) else (allowed,)):
            raise HttpError(405, {"errorCode": 405, "error": "method_not_allowed", "errorMessage": method},
                            {"Allow": ", ".join(allowed if isinstance(allowed, tuple) else (allowed,))})
        if p == ["healthcheck"]:
            return 200, {"status": "UP" if F("healthcheck_status_up") else "OK"}, {}
        if p == ["status"]:
            return 200, {"status": "OK"}, {}
        if p == ["version"]:
            return 200, {"rdm-service": VERSION}, {}
        if p[0] == "lookups":
            return scan_lookups(cl, p[1], q, body)
        if p[0] == "tasks":
            return delete_task(cl, p[1], body)
        if p[0] == "oauth":
            if len(p) == 3:
                if method == "GET":
                    if p[2] not in CUSTOMERS:
                        raise HttpError(404, {"errorCode": 404, "error": "not_found", "errorMessage": "customer not found"})
                    if not can_configure_customer(cl, p[2]):
                        raise forbidden()
                    return 200, public_customer(p[2]), {}
                return put_customer(cl, p[2], parse_json(body), method)
            if method == "GET":
                if p[2] not in CUSTOMERS:
                    raise HttpError(404, {"errorCode": 404, "error": "not_found", "errorMessage": "customer not found"})
                if not can_configure_customer(cl, p[2]):
                    raise forbidden()
                return 200, [public_client(c) for c in CLIENTS.values() if c["customer"] == p[2]], {}
            return put_clients(cl, p[2], parse_json(body))
        if p[0] == "configuration":
            if p[-1] == "blockedValues":
                return blocked_values(cl, p[1], p[3], q)
            return scan_stats(cl, p[1], p[4] if len(p) == 6 else None, q, body)
        raise HttpError(404, {"errorCode": 404, "error": "not_found"})

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PUT(self):
        self.handle_any("PUT")

    def do_DELETE(self):
        self.handle_any("DELETE")

    def do_PATCH(self):
        self.handle_any("PATCH")


def parse_json(body):
    if not body or not body.strip():
        raise bad("a JSON body is required", "validation_error")
    try:
        return json.loads(body.decode("utf-8"))
    except ValueError:
        raise bad("malformed JSON body", "validation_error")


def main():
    port = 0
    args = sys.argv[1:]
    if "--port" in args:
        port = int(args[args.index("--port") + 1])
    srv = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    srv.daemon_threads = True

    def stop(*_):
        threading.Thread(target=srv.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    sys.stdout.write("listening %d\n" % srv.server_address[1])
    sys.stdout.flush()
    srv.serve_forever(poll_interval=0.2)
    srv.server_close()


if __name__ == "__main__":
    main()
