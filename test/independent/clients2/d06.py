#!/usr/bin/env python3
"""Lookup mirror (warehouse team): copies lookups and autopilot statistics into files. stdlib only."""
import base64
import json
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

BASE = os.environ.get("LCKIT_BASE_URL", "").rstrip("/")
RDM = os.environ.get("LCKIT_RDM_URL", "").rstrip("/")
TOKEN_URL = os.environ.get("LCKIT_TOKEN_URL") or BASE + "/oauth/token"
TENANT = os.environ.get("LCKIT_TENANT", "")
LTYPE = os.environ.get("LCKIT_LOOKUP_TYPE", "")

def parse_json(raw):
    """JSON, except /version, whose number may be unquoted ({"rdm-service": 2016.3.0.0.1})."""
    try:
        return json.loads(raw)
    except ValueError:
        m = re.search(r'"rdm-service"\s*:\s*"?([0-9][0-9.]*)', raw)
        if m:
            return {"rdm-service": m.group(1)}
        raise


_TOKEN = None  # fetched once per process and kept
RAW_SCROLL = False  # {"scrollId": ...} first; the raw id as text if the service refuses that


def token():
    global _TOKEN
    if _TOKEN is None:
        pair = "%s:%s" % (os.environ.get("LCKIT_CLIENT_ID", ""), os.environ.get("LCKIT_CLIENT_SECRET", ""))
        req = urllib.request.Request(TOKEN_URL, data=b"grant_type=client_credentials", method="POST", headers={
            "Authorization": "Basic " + base64.b64encode(pair.encode()).decode(),
            "Content-Type": "application/x-www-form-urlencoded",
        })
        with urllib.request.urlopen(req, timeout=30) as r:
            _TOKEN = json.load(r)["access_token"]
    return _TOKEN


def call(method, url, payload=None, retries=3, raw=None):
    data = raw.encode() if raw is not None else None if payload is None else json.dumps(payload).encode()
    for attempt in range(retries):
        headers = {"Authorization": "Bearer " + token(), "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "text/plain" if raw is not None else "application/json"
        try:
            with urllib.request.urlopen(urllib.request.Request(url, data=data, method=method, headers=headers), timeout=30) as r:
                text = r.read().decode()
                return parse_json(text) if text.strip() else None
        except urllib.error.HTTPError as e:
            # 401/429/5xx are treated as transient: back off and try again
            if e.code in (401, 429, 500, 502, 503) and attempt < retries - 1:
                time.sleep(0.5 * (attempt + 1))
                continue
            err = RuntimeError("%s %s failed with HTTP %d: %s" % (method, url, e.code, e.read()[:200].decode(errors="replace")))
            err.status = e.code
            raise err


def next_page(url, sid):
    global RAW_SCROLL
    if not RAW_SCROLL:
        try:
            return call("POST", url, {"scrollId": sid})
        except RuntimeError as err:
            if getattr(err, "status", None) not in (400, 415, 422):
                raise
            RAW_SCROLL = True
    return call("POST", url, raw=sid)


def scan(url):
    rows, sid = [], None
    for _ in range(10000):
        page = (call("POST", url) if sid is None else next_page(url, sid)) or {}
        rows.extend(page.get("values") or [])
        sid = page.get("scrollId")
        if not sid or not page.get("values"):
            return rows
    raise RuntimeError("scan did not end: " + url)


def main():
    if not (BASE and RDM and TENANT and LTYPE):
        sys.exit("error: LCKIT_BASE_URL, LCKIT_RDM_URL, LCKIT_TENANT and LCKIT_LOOKUP_TYPE are required")
    t, lt = urllib.parse.quote(TENANT, safe=""), urllib.parse.quote(LTYPE, safe="")
    q = urllib.parse.urlencode({"filter": "equals(type,'%s')" % LTYPE, "limit": 100})
    summary = {
        "version": (call("GET", RDM + "/version") or {}).get("rdm-service"),
        "lookupsOfType": len(scan("%s/lookups/%s/_scan?%s" % (RDM, t, q))),
        "lookups": len(scan("%s/lookups/%s/_scan?limit=100" % (RDM, t))),
        "statsAll": len(scan("%s/configuration/%s/autopilot/stats/_scan?limit=100&sort=createdAt&order=desc" % (BASE, t))),
        "statsOfType": len(scan("%s/configuration/%s/autopilot/stats/%s/_scan?limit=100" % (BASE, t, lt))),
    }
    blocked, offset = [], 0
    while True:
        page = call("GET", "%s/configuration/%s/autopilot/%s/blockedValues?offset=%d&limit=100" % (BASE, t, lt, offset)) or []
        blocked += page
        offset += len(page)
        if len(page) < 100:
            break
    summary["blocked"] = len(blocked)
    print(json.dumps(summary))


if __name__ == "__main__":
    try:
        main()
    except (RuntimeError, urllib.error.URLError) as exc:
        print("error: %s" % exc, file=sys.stderr)
        sys.exit(1)
