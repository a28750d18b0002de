"""Blocked-values export for the stewardship spreadsheet (data governance team).

Prints a CSV of every blocked value of our lookup type, with who blocked it and when, followed by the
number of autopilot statistics whose unmapped value is blocked. Pages through the blocked values 50
at a time.
"""
import base64
import csv
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime, timezone

PAGE = 50
MAX_PAGES = 400

env = os.environ
session = {"token": None}


def _token():
    if session["token"] is None:
        pair = f"{env['LCKIT_CLIENT_ID']}:{env['LCKIT_CLIENT_SECRET']}".encode()
        rq = urllib.request.Request(
            env["LCKIT_TOKEN_URL"], method="POST",
            data=b"grant_type=client_credentials",
            headers={"Authorization": "Basic " + base64.b64encode(pair).decode(),
                     "Content-Type": "application/x-www-form-urlencoded"})
        with urllib.request.urlopen(rq, timeout=5) as rs:
            session["token"] = json.loads(rs.read())["access_token"]
    return session["token"]


def request(method, url, body=None):
    for attempt in (1, 2):
        hdrs = {"Authorization": f"Bearer {_token()}"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            hdrs["Content-Type"] = "application/json"
        try:
            with urllib.request.urlopen(urllib.request.Request(url, data=data, headers=hdrs, method=method),
                                        timeout=5) as rs:
                return json.loads(rs.read() or b"null")
        except urllib.error.HTTPError as e:
            text = e.read().decode(errors="replace")
            if e.code == 401 and attempt == 1:
                session["token"] = None  # expired or revoked: get a new one, once
                continue
            raise SystemExit(f"{method} {url} failed with {e.code}: {text}")


def blocked(base, tenant, ltype):
    path = f"{base}/configuration/{urllib.parse.quote(tenant)}/autopilot/{urllib.parse.quote(ltype)}/blockedValues"
    page, rows = 0, []
    while page < MAX_PAGES:
        batch = request("GET", f"{path}?{urllib.parse.urlencode({'offset': page, 'limit': PAGE})}")
        rows.extend(batch or [])
        if not batch or len(batch) < PAGE:
            break
        page += 1
    return rows


def type_statistics(base, tenant, ltype):
    url = f"{base}/configuration/{urllib.parse.quote(tenant)}/autopilot/stats/{urllib.parse.quote(ltype)}/_scan"
    seen, scroll = [], None
    for _ in range(MAX_PAGES):
        res = request("POST", url, None if scroll is None else {"scrollId": scroll})
        seen += res.get("values", [])
        scroll = res.get("scrollId")
        if not scroll or not res.get("values"):
            break
    return seen


def main():
    base, tenant, ltype = env["LCKIT_BASE_URL"].rstrip("/"), env["LCKIT_TENANT"], env["LCKIT_LOOKUP_TYPE"]
    rows = blocked(base, tenant, ltype)
    out = csv.writer(sys.stdout)
    out.writerow(["lookupType", "value", "createdBy", "createdAt"])
    for r in rows:
        when = datetime.fromtimestamp(r.get("createdAt", 0) / 1000, tz=timezone.utc).isoformat()
        out.writerow([r.get("lookupType"), r.get("value"), r.get("createdBy"), when])
    values = {r.get("value") for r in rows}
    hits = [s for s in type_statistics(base, tenant, ltype) if s.get("unmappedValue") in values]
    print(f"# {len(rows)} blocked values, {len(hits)} autopilot statistics on blocked values", file=sys.stderr)


if __name__ == "__main__":
    main()
