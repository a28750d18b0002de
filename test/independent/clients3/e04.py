#!/usr/bin/env python3
"""Lookup service monitor (operations team). Python 3.11 stdlib only.

Checks that the lookup-data service is up (health, status, version) and that the lookups of one type
can be read end to end; prints one JSON line for the monitoring system.
"""

JOB = "e04"
import base64
import json
import os
import re
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
    global raw_scroll
    rows = []
    page = parse(api.call("POST", url), what)
    while True:
        values = page.get("values") if isinstance(page, dict) else None
        values = values if isinstance(values, list) else []
        rows.extend(values)
        sid = page.get("scrollId") if isinstance(page, dict) else None
        if not isinstance(sid, str) or not sid or not values:
            return rows
        result = api.call("POST", url, sid if raw_scroll else json.dumps({"scrollId": sid}))
        if result[0] == 400 and not raw_scroll:
            raw_scroll = True
            result = api.call("POST", url, sid)
        page = parse(result, what)


def probe(path):
    # liveness probes are cheap and need no token, so the monitor keeps them independent of the token endpoint
    status, text, _ = http("GET", f"{RDM}/{path}", None, {"Accept": "application/json"})
    return status, text


def main():
    report = {}
    for path in ("healthcheck", "status", "version"):
        status, text = probe(path)
        if status != 200:
            raise Failure(f"{path}: HTTP {status} {text[:200]}")
        if path == "version":
            # the version may be written unquoted, which is not valid JSON: read it as text
            found = re.search(r'"rdm-service"\s*:\s*"?([0-9][0-9.]*)', text)
            report["version"] = found.group(1) if found else text[:40]
        else:
            report[path] = json.loads(text).get("status")
    api = Api()
    query = urllib.parse.urlencode({"filter": f"equals(type,'{TYPE}')", "limit": 100})
    rows = scan(api, f"{RDM}/lookups/{T}/_scan?{query}", "lookup scan")
    report["lookups"] = len(rows)
    print(json.dumps(report))
    if not rows:
        raise Failure(f"no lookups of type {TYPE} could be read")


if __name__ == "__main__":
    try:
        main()
    except Failure as err:
        sys.exit(f"{JOB}: {err}")
