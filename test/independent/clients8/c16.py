#!/usr/bin/env python3
"""Search-index feeder: runs three scans side by side on worker threads (the tenant's lookups, the
statistics of all types, the statistics of the configured type), each with its own scroll, plus the
blocked values of the type, and prints one summary line per source.

Legal choices where the document is silent: no limit parameter on the scans (service default); the
next-page body is the bare scroll id as a JSON string; one token shared by all threads, renewed under a
lock only when a call comes back 401 and no other thread renewed it already."""
import base64
import json
import os
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor


class SharedToken:
    def __init__(self):
        self._lock = threading.Lock()
        self._value = None
        self._generation = 0

    def _issue(self):
        cred = "%s:%s" % (os.environ["LCKIT_CLIENT_ID"], os.environ["LCKIT_CLIENT_SECRET"])
        req = urllib.request.Request(
            os.environ["LCKIT_TOKEN_URL"], method="POST",
            data=urllib.parse.urlencode({"grant_type": "client_credentials"}).encode(),
            headers={"Authorization": "Basic " + base64.b64encode(cred.encode()).decode(),
                     "Content-Type": "application/x-www-form-urlencoded"})
        with urllib.request.urlopen(req, timeout=5) as r:
            return json.loads(r.read())["access_token"]

    def current(self):
        with self._lock:
            if self._value is None:
                self._value = self._issue()
                self._generation += 1
            return self._value, self._generation

    def renew(self, seen_generation):
        with self._lock:
            if self._generation == seen_generation:  # nobody renewed since we used it
                try:
                    self._value = self._issue()
                    self._generation += 1
                except urllib.error.HTTPError as e:
                    if e.code != 429:
                        raise
                    e.read()  # quota full: keep the current token, nothing better to do
            return self._value, self._generation


TOKEN = SharedToken()


def call(method, url, body=None, has_body=False):
    value, gen = TOKEN.current()
    for attempt in range(2):
        headers = {"Authorization": "Bearer " + value}
        data = None
        if has_body:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            with urllib.request.urlopen(urllib.request.Request(url, data=data, method=method, headers=headers),
                                        timeout=5) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as e:
            e.read()
            if e.code == 401 and attempt == 0:
                value, gen = TOKEN.renew(gen)
                continue
            raise


def scan(url):
    rows = []
    scroll = None
    for page_no in range(200):
        if page_no == 0:
            page = call("POST", url)  # no body at all on the first page
        else:
            page = call("POST", url, scroll, has_body=True)
        values = page.get("values") or []
        rows.extend(values)
        scroll = page.get("scrollId")
        if not scroll or not values:
            break
    return rows


def blocked(base, tenant, ltype):
    rows, offset = [], 0
    while offset < 10000:
        q = urllib.parse.urlencode({"offset": offset, "limit": 100})
        chunk = call("GET", "%s/configuration/%s/autopilot/%s/blockedValues?%s" % (base, tenant, ltype, q)) or []
        rows.extend(chunk)
        if len(chunk) < 100:
            break
        offset += len(chunk)
    return rows


def main():
    base = os.environ["LCKIT_BASE_URL"].rstrip("/")
    rdm = os.environ["LCKIT_RDM_URL"].rstrip("/")
    tenant = urllib.parse.quote(os.environ["LCKIT_TENANT"], safe="")
    ltype = urllib.parse.quote(os.environ["LCKIT_LOOKUP_TYPE"], safe="")
    TOKEN.current()  # one token before the threads start
    with ThreadPoolExecutor(max_workers=3) as pool:
        jobs = {
            "lookups": pool.submit(scan, "%s/lookups/%s/_scan" % (rdm, tenant)),
            "stats-all": pool.submit(scan, "%s/configuration/%s/autopilot/stats/_scan" % (base, tenant)),
            "stats-type": pool.submit(scan, "%s/configuration/%s/autopilot/stats/%s/_scan" % (base, tenant, ltype)),
        }
        out = {name: fut.result(timeout=20) for name, fut in jobs.items()}
    out["blocked"] = blocked(base, tenant, ltype)
    types = sorted({lk.get("type", "").rsplit("/", 1)[-1] for lk in out["lookups"]})
    print("lookups=%d types=%s" % (len(out["lookups"]), ",".join(types)))
    print("stats-all=%d stats-type=%d blocked=%d" % (len(out["stats-all"]), len(out["stats-type"]), len(out["blocked"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
