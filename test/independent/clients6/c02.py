#!/usr/bin/env python3
"""Autopilot review digest (data-quality team).

Reads the autopilot match statistics of the tenant (all lookup types) and, at the same time, the
statistics of our own lookup type, plus its blocked values; prints a digest per status. The two scans
run in parallel threads, each with its own scroll state. The token is kept until the service says it
expired; then it is renewed once and the request repeated.
"""
import base64
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

BASE = os.environ["LCKIT_BASE_URL"].rstrip("/")
TOKEN_URL = os.environ["LCKIT_TOKEN_URL"]
TENANT = os.environ["LCKIT_TENANT"]
LTYPE = os.environ["LCKIT_LOOKUP_TYPE"]
CREDS = base64.b64encode(
    f"{os.environ['LCKIT_CLIENT_ID']}:{os.environ['LCKIT_CLIENT_SECRET']}".encode()
).decode()


class TokenHolder:
    def __init__(self):
        self._lock = threading.Lock()
        self._token = None

    def current(self):
        with self._lock:
            if self._token is None:
                self._token = self._issue()
            return self._token

    def expired(self, stale):
        with self._lock:
            if self._token == stale:  # only one thread renews for a given stale token
                self._token = self._issue()
            return self._token

    @staticmethod
    def _issue():
        req = urllib.request.Request(
            TOKEN_URL,
            data=urllib.parse.urlencode({"grant_type": "client_credentials"}).encode(),
            headers={"Authorization": "Basic " + CREDS,
                     "Content-Type": "application/x-www-form-urlencoded"},
            method="POST",
        )
        for attempt in range(4):
            try:
                with urllib.request.urlopen(req, timeout=5) as resp:
                    return json.load(resp)["access_token"]
            except urllib.error.HTTPError as err:
                wait = float(err.headers.get("Retry-After") or 0)
                # a short Retry-After is gateway throttling; the token quota is not worth waiting for here
                if err.code != 429 or attempt == 3 or not 0 < wait <= 2:
                    raise
                err.read()
                time.sleep(wait)


TOKENS = TokenHolder()


def api(method, url, payload=None, _retry=True):
    tok = TOKENS.current()
    data = None if payload is None else json.dumps(payload).encode()
    headers = {"Authorization": "Bearer " + tok, "Accept": "application/json"}
    if data is not None:
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return json.load(resp)
    except urllib.error.HTTPError as err:
        body = err.read().decode("utf-8", "replace")
        if err.code == 401 and _retry and ("expired" in body or "invalid_token" in body):
            TOKENS.expired(tok)
            return api(method, url, payload, _retry=False)
        if err.code == 429 and _retry:
            time.sleep(min(float(err.headers.get("Retry-After") or 1), 2))
            return api(method, url, payload, _retry=False)
        raise RuntimeError(f"{method} {url}: {err.code} {body}") from None


def scan(path):
    url = f"{BASE}{path}?" + urllib.parse.urlencode({"limit": 100, "sort": "createdAt", "order": "asc"})
    records, scroll = [], None
    for _ in range(1000):
        page = api("POST", url, None if scroll is None else {"scrollId": scroll})
        chunk = page.get("values") or []
        records.extend(chunk)
        scroll = page.get("scrollId")
        if not scroll or not chunk:
            break
    return records


def blocked_values():
    out, offset = [], 0
    t = urllib.parse.quote(LTYPE, safe="")
    while offset < 100_000:
        chunk = api("GET", f"{BASE}/configuration/{TENANT}/autopilot/{t}/blockedValues?offset={offset}&limit=100")
        out.extend(chunk)
        if len(chunk) < 100:
            break
        offset += len(chunk)
    return out


def main():
    tenant = urllib.parse.quote(TENANT, safe="")
    with ThreadPoolExecutor(max_workers=2) as pool:
        all_f = pool.submit(scan, f"/configuration/{tenant}/autopilot/stats/_scan")
        own_f = pool.submit(scan, f"/configuration/{tenant}/autopilot/stats/{urllib.parse.quote(LTYPE, safe='')}/_scan")
        everything, ours = all_f.result(), own_f.result()
    blocked = blocked_values()
    by_status = Counter(r.get("status", "?") for r in everything)
    print(f"tenant {TENANT}: {len(everything)} statistics over "
          f"{len({r.get('lookupType') for r in everything})} lookup types")
    for status, n in sorted(by_status.items()):
        print(f"  {status:<18}{n}")
    print(f"{LTYPE}: {len(ours)} statistics, {len(blocked)} blocked values "
          f"({', '.join(sorted(b.get('value', '') for b in blocked)[:5])})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
