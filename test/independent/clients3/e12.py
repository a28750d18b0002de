#!/usr/bin/env python3
"""Autopilot candidate cross-check (data quality team). Python 3.11 stdlib only.

Lists the autopilot records of one lookup type whose candidate lookup code is not (or no longer) a
lookup of that type, so that stewards can fix the mapping before autopilot acts on it.
"""

JOB = "e12"
import base64
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


def need(name):
    value = os.environ.get(name)
    if not value:
        sys.exit(f"{JOB}: environment variable {name} is not set")
    return value


BASE = need("LCKIT_BASE_URL").rstrip("/")
RDM = need("LCKIT_RDM_URL").rstrip("/")
TOKEN_URL = need("LCKIT_TOKEN_URL")
BASIC = base64.b64encode(f"{need('LCKIT_CLIENT_ID')}:{need('LCKIT_CLIENT_SECRET')}".encode()).decode()
TENANT = need("LCKIT_TENANT")
TYPE = need("LCKIT_LOOKUP_TYPE")
T = urllib.parse.quote(TENANT, safe="")


class Failure(Exception):
    pass


def http(method, url, body=None, headers=None):
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=60) as res:
            return res.status, res.read().decode("utf-8", "replace"), res.headers
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode("utf-8", "replace"), err.headers


def wait_seconds(headers, attempt):
    try:
        seconds = float(headers.get("Retry-After") or 0)
    except ValueError:
        seconds = 0
    return seconds if seconds > 0 else 2**attempt


class Api:
    def __init__(self):
        self.token = None
        self.renew_at = 0.0

    def new_token(self):
        for attempt in range(7):
            status, text, headers = http(
                "POST",
                TOKEN_URL,
                b"grant_type=client_credentials",
                {"Authorization": f"Basic {BASIC}", "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
            )
            if status == 200:
                body = json.loads(text)
                ttl = float(body.get("expires_in") or 3600)
                self.token = body["access_token"]
                self.renew_at = time.time() + ttl * 0.8
                return
            if status == 429 and attempt < 6:
                # active-token quota reached (or a burst limit): wait for a token to expire
                time.sleep(wait_seconds(headers, attempt))
                continue
            raise Failure(f"token request failed: HTTP {status} {text[:200]}")

    def call(self, method, url, body=None):
        renewed = False
        attempt = 0
        while True:
            if self.token is None or time.time() >= self.renew_at:
                self.new_token()
            headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
            data = None
            if body is not None:
                data = body.encode() if isinstance(body, str) else body
                headers["Content-Type"] = "application/json"
            status, text, resp_headers = http(method, url, data, headers)
            if status == 401 and not renewed:
                renewed = True
                self.new_token()
                continue
            if status == 429 and attempt < 5:
                attempt += 1
                time.sleep(wait_seconds(resp_headers, attempt - 1))
                continue
            return status, text


def parse(result, what):
    status, text = result
    if not 200 <= status < 300:
        raise Failure(f"{what}: HTTP {status} {text[:200]}")
    try:
        return json.loads(text) if text else None
    except ValueError:
        raise Failure(f"{what}: response is not JSON: {text[:200]}") from None


raw_scroll = False  # some deployments take the bare scroll id instead of {"scrollId": ...}


def scan(api, url, what):
    """Reads every page of a scan; the request body is always a JSON object, the cursor once we have one."""
    global raw_scroll
    rows = []
    cursor = {}
    while True:
        if raw_scroll and "scrollId" in cursor:
            result = api.call("POST", url, cursor["scrollId"])
        else:
            result = api.call("POST", url, json.dumps(cursor))
            if result[0] == 400 and "scrollId" in cursor:
                raw_scroll = True
                result = api.call("POST", url, cursor["scrollId"])
        page = parse(result, what)
        values = page.get("values") if isinstance(page, dict) else None
        values = values if isinstance(values, list) else []
        rows.extend(values)
        sid = page.get("scrollId") if isinstance(page, dict) else None
        if not isinstance(sid, str) or not sid or not values:
            return rows
        cursor = {"scrollId": sid}


def main():
    api = Api()
    query = urllib.parse.urlencode({"filter": f"equals(type,'{TYPE}')", "limit": 100})
    codes = {lk.get("code") for lk in scan(api, f"{RDM}/lookups/{T}/_scan?{query}", "lookup scan")}
    if not codes:
        raise Failure(f"no lookups of type {TYPE}")
    stats_url = f"{BASE}/configuration/{T}/autopilot/stats/{urllib.parse.quote(TYPE, safe='')}/_scan?limit=100"
    records = scan(api, stats_url, "autopilot scan of type")
    dangling = [r for r in records if r.get("candidateLookupCode") and r["candidateLookupCode"] not in codes]
    for r in dangling:
        print(json.dumps({"unmappedValue": r.get("unmappedValue"), "candidate": r["candidateLookupCode"], "status": r.get("status")}))
    print(f"{JOB}: {len(records)} autopilot records of {TYPE}, {len(dangling)} with a candidate that is not a lookup", file=sys.stderr)


if __name__ == "__main__":
    try:
        main()
    except Failure as err:
        sys.exit(f"{JOB}: {err}")
