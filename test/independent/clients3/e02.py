#!/usr/bin/env python3
"""Autopilot weekly audit (data governance). Python 3.11 stdlib only.

Summarises the autopilot match statistics of the tenant and of one lookup type (records per status,
per source, the best-scored candidates) and the type's blocked values, as one JSON document.

Choices where the interface leaves room:
- the token is requested with grant_type in the query string, HTTP Basic and no body; a form body is
  sent only if the token endpoint refuses that; it is renewed once half its lifetime has passed;
- the first scan request has an explicit JSON null body; later ones {"scrollId": ...} (the bare id if
  that is refused);
- tenant scan sorted by semanticScore desc with limit 100; type scan with small pages (limit 7) sorted
  by createdAt asc; blocked values paged with limit 10 until a short page.
"""

JOB = "e02"
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
        self.form_body = False

    def new_token(self):
        for attempt in range(7):
            headers = {"Authorization": f"Basic {BASIC}", "Accept": "application/json"}
            if self.form_body:
                headers["Content-Type"] = "application/x-www-form-urlencoded"
                status, text, resp = http("POST", TOKEN_URL, b"grant_type=client_credentials", headers)
            else:
                sep = "&" if "?" in TOKEN_URL else "?"
                status, text, resp = http("POST", f"{TOKEN_URL}{sep}grant_type=client_credentials", b"", headers)
            if status == 200:
                body = json.loads(text)
                ttl = float(body.get("expires_in") or 3600)
                self.token = body["access_token"]
                self.renew_at = time.time() + ttl * 0.5
                return
            if status in (400, 405, 415) and not self.form_body:
                self.form_body = True  # this deployment wants the grant in a form body
                continue
            if status == 429 and attempt < 6:
                time.sleep(wait_seconds(resp, attempt))
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
                data = body.encode()
                headers["Content-Type"] = "application/json"
            status, text, resp = http(method, url, data, headers)
            if status == 401 and not renewed:
                renewed = True
                self.new_token()
                continue
            if status == 429 and attempt < 5:
                attempt += 1
                time.sleep(wait_seconds(resp, attempt - 1))
                continue
            return status, text


def parse(result, what):
    status, text = result
    if status != 200:
        raise Failure(f"{what}: HTTP {status} {text[:200]}")
    try:
        return json.loads(text)
    except ValueError:
        raise Failure(f"{what}: response is not JSON: {text[:200]}") from None


def scan(api, url, what):
    bare = False
    rows = []
    page = parse(api.call("POST", url, "null"), what)
    while True:
        values = page.get("values") if isinstance(page, dict) else None
        values = values if isinstance(values, list) else []
        rows.extend(values)
        sid = page.get("scrollId") if isinstance(page, dict) else None
        if not isinstance(sid, str) or not sid or not values:
            return rows
        result = api.call("POST", url, sid if bare else json.dumps({"scrollId": sid}))
        if result[0] == 400 and not bare:
            bare = True
            result = api.call("POST", url, sid)
        page = parse(result, what)


def blocked_values(api):
    rows, offset, limit = [], 0, 10
    while True:
        page = parse(api.call("GET", f"{BASE}/configuration/{T}/autopilot/{urllib.parse.quote(TYPE, safe='')}/blockedValues?offset={offset}&limit={limit}"), "blocked values")
        if not isinstance(page, list):
            raise Failure("blocked values: the response is not an array")
        rows.extend(page)
        if len(page) < limit:
            return rows
        offset += len(page)


def count(records, key):
    out = {}
    for r in records:
        out[str(r.get(key))] = out.get(str(r.get(key)), 0) + 1
    return out


def main():
    api = Api()
    stats = f"{BASE}/configuration/{T}/autopilot/stats"
    everything = scan(api, f"{stats}/_scan?sort=semanticScore&order=desc&limit=100", "autopilot scan")
    of_type = scan(api, f"{stats}/{urllib.parse.quote(TYPE, safe='')}/_scan?sort=createdAt&order=asc&limit=7", "autopilot scan of type")
    blocked = blocked_values(api)
    best = sorted((r for r in of_type if r.get("candidateLookupCode")), key=lambda r: -(r.get("semanticScore") or 0))[:10]
    print(
        json.dumps(
            {
                "tenant": {"records": len(everything), "byStatus": count(everything, "status")},
                "type": {"name": TYPE, "records": len(of_type), "bySource": count(of_type, "source"), "best": [(r.get("unmappedValue"), r["candidateLookupCode"]) for r in best]},
                "blockedValues": sorted(b.get("value") for b in blocked),
            }
        )
    )


if __name__ == "__main__":
    try:
        main()
    except Failure as err:
        sys.exit(f"{JOB}: {err}")
