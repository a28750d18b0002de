#!/usr/bin/python3
"""An example client of the interface for `lckit client check` (Python 3 with requests).

It reads the sandbox's addresses and credentials from the LCKIT_* variables, keeps one access token until
it nears expiry, pages through scans by passing each answer's scrollId (as the raw id, one of the
encodings deployments take), stays within documented page sizes, sends a delete task of the documented
shape and waits out a 429. Run it checked:

    lckit client check --client nightly-sync -- /usr/bin/python3 examples/clients/lookup_client.py

The kit's tests also run it with one deliberate mistake (FAULT=<name>), to prove each caller rule.
"""
import os
import sys
import time

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
    if r.status_code != 200:
        sys.exit(f"token request answered {r.status_code}: {r.text}")
    answer = r.json()
    cached["value"] = answer["access_token"]
    cached["until"] = time.time() + answer.get("expires_in", 60) * 0.9
    return cached["value"]


def call(method, url, body=None, raw=None):
    headers = {} if FAULT == "no-bearer" else {"Authorization": f"Bearer {token()}"}
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
    raw = "{}" if FAULT == "first-body" else None
    for _ in range(100):
        r = call("POST", url, raw=raw)
        if r.status_code != 200:
            return values, r.status_code
        answer = r.json()
        values.extend(answer.get("values") or [])
        scroll = answer.get("scrollId")
        if not isinstance(scroll, str) or scroll == "" or FAULT == "first-page-only":
            if FAULT == "past-end" and raw is not None:
                call("POST", url, raw=raw)
            return values, 200
        raw = scroll + "-stale" if FAULT == "wrong-scroll" else scroll
    return values, 200


lookups, lookups_status = scan_all(f"{RDM}/lookups/{TENANT}/_scan?limit=2&sort=code")
limit = 500 if FAULT == "big-page" else 100
stats, stats_status = scan_all(f"{BASE}/configuration/{TENANT}/autopilot/stats/_scan?limit={limit}")
blocked = call("GET", f"{BASE}/configuration/{TENANT}/autopilot/{TYPE}/blockedValues?limit=50")
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
        "task-whole-tenant": {"type": "delete"},
        "task-foreign-uri": {"type": "delete", "parameters": {"uris": [f"not-{TENANT}/{type_name}/{first['code']}"]}},
    }.get(FAULT, {"type": "delete", "parameters": {"uris": [uri]}})
    task_status = call("POST", f"{RDM}/tasks/{TENANT}", body=task).status_code
if CONTROL:
    requests.put(f"{CONTROL}/rate-limit", json={"requests": 1, "perSeconds": 1})
    call("GET", f"{RDM}/healthcheck")
    call("GET", f"{RDM}/healthcheck")
    requests.delete(f"{CONTROL}/rate-limit")
print(f"lookups {len(lookups)} ({lookups_status}), statistics {len(stats)} ({stats_status}), "
      f"blocked {blocked.status_code}, task {task_status}")
sys.exit(0 if lookups_status == 200 and stats_status == 200 else 1)
