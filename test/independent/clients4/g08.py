"""Autopilot statistics sync into the data warehouse staging table (printed as JSON lines
summary). Pulls the tenant-wide statistics and those of the watched lookup type side by side,
one page of each in turn, so that both staging loads progress together."""

import base64
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

E = os.environ
try:
    BASE = E["LCKIT_BASE_URL"].rstrip("/")
    TOKEN_URL = E["LCKIT_TOKEN_URL"]
    CLIENT = (E["LCKIT_CLIENT_ID"], E["LCKIT_CLIENT_SECRET"])
    TENANT = E["LCKIT_TENANT"]
    LOOKUP_TYPE = E["LCKIT_LOOKUP_TYPE"]
except KeyError as missing:
    sys.exit(f"stats-sync: environment variable {missing} not set")

# scroll position per tenant, kept between pages (the loader was written for one scan per tenant)
_scroll_state = {}


def get_token():
    req = urllib.request.Request(
        TOKEN_URL,
        data=b"grant_type=client_credentials",
        headers={
            "Authorization": "Basic " + base64.b64encode(("%s:%s" % CLIENT).encode()).decode(),
            "Content-Type": "application/x-www-form-urlencoded",
        },
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=15) as r:
        return json.loads(r.read())["access_token"]


class StatsScan:
    def __init__(self, token, name, path):
        self.token = token
        self.name = name
        self.url = f"{BASE}/configuration/{urllib.parse.quote(TENANT)}/autopilot/stats{path}/_scan?limit=10"
        self.started = False
        self.done = False
        self.failed = False
        self.rows = {}

    def next_page(self):
        headers = {"Authorization": "Bearer " + self.token}
        data = None
        if self.started:
            data = json.dumps({"scrollId": _scroll_state[TENANT]}).encode()
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=15) as r:
                page = json.loads(r.read())
        except urllib.error.HTTPError as err:
            print(f"stats-sync: {self.name} stopped with HTTP {err.code}", file=sys.stderr)
            self.done = True
            self.failed = True
            return
        self.started = True
        values = page.get("values") or []
        new = 0
        for v in values:
            key = (v.get("lookupType"), v.get("source"), v.get("unmappedValue"))
            if key not in self.rows:
                new += 1
            self.rows[key] = v
        if page.get("scrollId") and values and new:
            _scroll_state[TENANT] = page["scrollId"]
        else:
            self.done = True


def main():
    try:
        token = get_token()
    except (urllib.error.URLError, KeyError, ValueError) as err:
        sys.exit(f"stats-sync: no token: {err}")
    scans = [
        StatsScan(token, "all", ""),
        StatsScan(token, LOOKUP_TYPE, "/" + urllib.parse.quote(LOOKUP_TYPE, safe="")),
    ]
    for _ in range(200):
        active = [s for s in scans if not s.done]
        if not active:
            break
        for scan in active:
            scan.next_page()
    for scan in scans:
        statuses = {}
        for row in scan.rows.values():
            statuses[row.get("status")] = statuses.get(row.get("status"), 0) + 1
        print(json.dumps({"load": scan.name, "rows": len(scan.rows), "statuses": statuses}))
    if not any(scan.rows for scan in scans):
        sys.exit("stats-sync: nothing loaded")
    if any(scan.failed for scan in scans):
        sys.exit("stats-sync: a load stopped early; staging is incomplete")


if __name__ == "__main__":
    main()
