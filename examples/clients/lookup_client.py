#!/usr/bin/python3
"""An example client of the interface for `lckit client check` (Python 3 with requests).

It reads the sandbox's addresses and credentials from the LCKIT_* variables, keeps one access token until
it nears expiry, pages through scans by passing each answer's scrollId (as the raw id, one of the
encodings deployments take), stays within documented page sizes, sends a delete task of the documented
shape, waits out a 429 and a token request declined at the quota; it reads only a lookup's type and code
as sure (the contract makes every other field optional) and takes fields it does not know. Run it checked:

    lckit client check --client nightly-sync -- /usr/bin/python3 examples/clients/lookup_client.py

The kit's tests also run it with one deliberate mistake (FAULT=<name>), to prove each caller rule, and
with one wrong assumption about the provider, to prove the sweep finds the choice that breaks it.
"""
import os
import re
import sys
import time
from dataclasses import dataclass, field, fields
from urllib.parse import parse_qs, urlparse

import requests


def env(name):
    value = os.environ.get(name)
    if not value:
        sys.exit(f"{name} is not set; run me under lckit client check")
    return value


BASE = env("LCKIT_BASE_URL")
RDM = env("LCKIT_RDM_URL")
CONTROL = os.environ.get("LCKIT_CONTROL_URL")
TENANT = env("LCKIT_TENANT")
TYPE = env("LCKIT_LOOKUP_TYPE")
FAULT = os.environ.get("FAULT", "")
AUTH = (env("LCKIT_CLIENT_ID"), env("LCKIT_CLIENT_SECRET"))
session = requests.Session()
cached = {"value": None, "until": 0.0}
hoard = {"tokens": None, "turn": 0}  # FAULT=token-hoard: every token the quota gives, used in turn


def request_token():
    return session.post(f"{BASE}/oauth/token", auth=AUTH, data={"grant_type": "client_credentials"})


def token():
    if FAULT == "token-hoard":
        if hoard["tokens"] is None:
            hoard["tokens"] = []
            r = request_token()
            while r.status_code == 200 and len(hoard["tokens"]) < 250:
                hoard["tokens"].append(r.json()["access_token"])
                r = request_token()
        hoard["turn"] += 1
        return hoard["tokens"][hoard["turn"] % len(hoard["tokens"])]
    if FAULT != "token-per-call" and cached["value"] and time.time() < cached["until"]:
        return cached["value"]
    r = request_token()
    # Declined at the quota (other sessions of this client hold it): wait for a token to expire, as the
    # answer's Retry-After says (else a second), and ask again; a wait longer than 10 s is not this job's.
    for _ in range(20):
        retry = r.headers.get("Retry-After", "1")
        seconds = max(int(retry), 1) if retry.isdigit() else 1
        declined = re.search("limit", r.text, re.I) and re.search("exceed", r.text, re.I)
        if r.status_code == 200 or not declined or seconds > 10:
            break
        time.sleep(seconds + 0.05)
        r = request_token()
    if r.status_code != 200:
        sys.exit(f"token request answered {r.status_code}: {r.text}")
    answer = r.json()
    cached["value"] = answer["access_token"]
    cached["until"] = time.time() + answer.get("expires_in", 60) * 0.9
    return cached["value"]


def call(method, url, body=None, raw=None, renewed=False):
    r = send(method, url, body, raw)
    # A token the service says is over (expired, or not accepted) serves nothing more: a new one, one retry.
    if r.status_code != 401 or renewed or FAULT == "no-bearer":
        return r
    if FAULT != "expired-token-reused":
        cached["value"] = None
        hoard["tokens"] = None
    return call(method, url, body, raw, renewed=True)


def send(method, url, body=None, raw=None):
    # FAULT=lower-case-bearer copies token_type's case into the header (legal HTTP, not as the document shows).
    scheme = "bearer" if FAULT == "lower-case-bearer" else "Bearer"
    headers = {} if FAULT == "no-bearer" else {"Authorization": f"{scheme} {token()}"}
    for attempt in range(21):
        if raw is not None:
            r = session.request(method, url, headers={**headers, "Content-Type": "text/plain"}, data=raw)
        else:
            r = session.request(method, url, headers=headers, json=body)
        if r.status_code != 429 or attempt == 20:
            return r
        if FAULT == "no-backoff":
            continue
        retry = r.headers.get("Retry-After", "1")
        time.sleep((int(retry) if retry.isdigit() else 1) + 0.05)
    return r


def scan_all(url):
    values = []
    limit = int(parse_qs(urlparse(url).query).get("limit", ["100"])[0])
    raw = "{}" if FAULT == "first-body" else None
    in_query = None  # FAULT=scroll-in-query: the id in the query string, no body
    for _ in range(100):
        r = call("POST", url if in_query is None else f"{url}&scrollId={in_query}", raw=raw)
        if r.status_code != 200:
            return values, r.status_code
        answer = r.json()
        values.extend(answer.get("values") or [])
        # The faulty client takes a page shorter than its limit for the last one; only the scrollId says so.
        if FAULT == "short-page-is-last" and len(answer.get("values") or []) < limit:
            return values, 200
        scroll = answer.get("scrollId")
        if not isinstance(scroll, str) or scroll == "" or FAULT == "first-page-only":
            if FAULT == "past-end" and raw is not None:
                call("POST", url, raw=raw)
            return values, 200
        if FAULT == "scroll-in-query":
            in_query = scroll
            continue
        # FAULT=first-scroll-id keeps the first answer's id: right only while a provider keeps one id a scroll.
        if FAULT == "first-scroll-id" and raw is not None:
            continue
        raw = scroll + "-stale" if FAULT == "wrong-scroll" else scroll
    return values, 200


order = "ascending" if FAULT == "order-word" else "asc"
# FAULT=first-scroll-id pages by 50 (legal), so that a scan has a third page.
page_size = 50 if FAULT == "first-scroll-id" else 100
lookups, lookups_status = scan_all(f"{RDM}/lookups/{TENANT}/_scan?limit={page_size}&sort=code&order={order}")
limit = 500 if FAULT == "big-page" else 100
stats, stats_status = scan_all(f"{BASE}/configuration/{TENANT}/autopilot/stats/_scan?limit={limit}")
blocked_type = f"rdm/lookupTypes/{TYPE}" if FAULT == "type-uri-in-path" else TYPE
# FAULT=size-param asks the page size by a parameter the listing does not define (its limit is limit).
size_name = "size" if FAULT == "size-param" else "limit"
blocked = call("GET", f"{BASE}/configuration/{TENANT}/autopilot/{blocked_type}/blockedValues?{size_name}=50")
# FAULT=offset-as-page pages the blocked values by 2 and takes offset for a page number (1 after page 0).
if FAULT == "offset-as-page":
    first = call("GET", f"{BASE}/configuration/{TENANT}/autopilot/{TYPE}/blockedValues?limit=2")
    if len(first.json()) == 2:
        call("GET", f"{BASE}/configuration/{TENANT}/autopilot/{TYPE}/blockedValues?limit=2&offset=1")


@dataclass
class Lookup:
    """The document's Lookup table. Only type and code are sure to be there (the contract makes every other
    field optional), and a deployment may send more fields."""
    type: str
    code: str
    tenantId: str = ""
    updatedBy: str = ""
    updateDate: float = 0
    version: int = 0
    enabled: bool = True
    sourceMappings: list = field(default_factory=list)
    localizations: list = field(default_factory=list)
    parents: list = field(default_factory=list)
    attributes: list = field(default_factory=list)
    startDate: float = 0
    endDate: float = 0


KNOWN = {f.name for f in fields(Lookup)}


def decode(record):
    # The faulty client decodes strictly: a field beyond the document's table is a TypeError.
    if FAULT == "strict-records":
        return Lookup(**record)
    return Lookup(**{k: v for k, v in record.items() if k in KNOWN})


# What the client does with what it read, as its own tests would assert it.
canonical = {}
for record in lookups:
    item = decode(record)
    mappings = record["sourceMappings"] if FAULT == "assumes-full-records" else item.sourceMappings
    values = [v for m in mappings for v in (m.get("values") or [])]
    canonical[f"{item.type.split('/')[-1]}/{item.code}"] = next(
        (v.get("value") for v in values if v.get("canonicalValue")), None)
# Every autopilot candidate names a lookup the client synced.
unresolved = [s for s in stats if "candidateLookupCode" in s
              and f"{str(s['lookupType']).split('/')[-1]}/{s['candidateLookupCode']}" not in canonical]
if lookups_status == 200 and stats_status == 200 and unresolved:
    print(f"{len(unresolved)} autopilot candidate(s) name no synced lookup, e.g. {unresolved[0]['candidateLookupCode']}")
task_status = None
if lookups and FAULT != "no-task":
    # The delete task: by URI, the documented shape. Each FAULT=task-* is one way to get it wrong.
    first = lookups[0]
    type_name = first["type"].split("/")[-1]
    uri = f"{TENANT}/{type_name}/{first['code']}"
    task = {
        "task-body": {"type": "remove", "parameters": {"uris": [uri]}},
        "task-typo": {"type": "delete", "parameters": {"uri": [uri]}},
        "task-type-name": {"type": "delete", "parameters": {"type": type_name}},
        "task-uri-shape": {"type": "delete", "parameters": {"uris": [first["code"]]}},
        "task-uri-rdm": {"type": "delete", "parameters": {"uris": [f"rdm/lookupTypes/{type_name}/{first['code']}"]}},
        "task-whole-tenant": {"type": "delete"},
        "task-foreign-uri": {"type": "delete", "parameters": {"uris": [f"not-{TENANT}/{type_name}/{first['code']}"]}},
    }.get(FAULT, {"type": "delete", "parameters": {"uris": [uri]}})
    task_status = call("POST", f"{RDM}/tasks/{TENANT}", body=task).status_code
if CONTROL:
    # The sandbox's clock past the token's validity, and one more call: the token has expired.
    requests.post(f"{CONTROL}/clock/advance", json={"seconds": 3600})
    call("GET", f"{RDM}/status")
if CONTROL:
    requests.put(f"{CONTROL}/rate-limit", json={"requests": 1, "perSeconds": 1})
    call("GET", f"{RDM}/healthcheck")
    call("GET", f"{RDM}/healthcheck")
    requests.delete(f"{CONTROL}/rate-limit")
print(f"lookups {len(lookups)} ({lookups_status}), statistics {len(stats)} ({stats_status}), "
      f"blocked {blocked.status_code}, task {task_status}")
sys.exit(0 if lookups_status == 200 and stats_status == 200 and not unresolved else 1)
