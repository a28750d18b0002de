#!/usr/bin/env python3
"""Exports the tenant's lookups of one type to CSV on stdout (code, enabled, canonical ERP value)."""
import base64
import csv
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

E = os.environ
PAGE = 30


def token():
    raw = ("%s:%s" % (E["LCKIT_CLIENT_ID"], E["LCKIT_CLIENT_SECRET"])).encode()
    req = urllib.request.Request(E["LCKIT_TOKEN_URL"], data=b"grant_type=client_credentials", method="POST")
    req.add_header("Authorization", "Basic " + base64.b64encode(raw).decode())
    req.add_header("Content-Type", "application/x-www-form-urlencoded")
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.loads(r.read().decode())["access_token"]


def scan_pages(tok):
    base = "%s/lookups/%s/_scan" % (E["LCKIT_RDM_URL"].rstrip("/"), urllib.parse.quote(E["LCKIT_TENANT"]))
    params = {
        "limit": PAGE,
        "filter": "equals(type,'rdm/lookupTypes/%s')" % E["LCKIT_LOOKUP_TYPE"],
        "sort": "code",
        "order": "asc",
    }
    for _ in range(100):
        url = base + "?" + urllib.parse.urlencode(params)
        for attempt in (0, 1):
            req = urllib.request.Request(url, method="POST", headers={"Authorization": "Bearer " + tok})
            try:
                with urllib.request.urlopen(req, timeout=5) as r:
                    page = json.loads(r.read().decode())
                break
            except urllib.error.HTTPError as e:
                if e.code != 401 or attempt:
                    raise
                tok = token()
        yield page.get("values") or []
        sid = page.get("scrollId")
        if not sid or not page.get("values"):
            break
        params["scrollId"] = sid  # continue the same scroll


def canonical(lookup):
    for sm in lookup.get("sourceMappings") or []:
        for v in sm.get("values") or []:
            if v.get("canonicalValue"):
                return v.get("value", "")
    return ""


def main():
    tok = token()
    out = csv.writer(sys.stdout)
    out.writerow(["code", "enabled", "canonical"])
    seen = set()
    for values in scan_pages(tok):
        fresh = 0
        for lk in values:
            if lk["code"] in seen:
                continue
            seen.add(lk["code"])
            fresh += 1
            out.writerow([lk["code"], lk.get("enabled"), canonical(lk)])
        if values and not fresh:
            break  # a page of nothing new: we have everything
    print("# %d rows" % len(seen), file=sys.stderr)


if __name__ == "__main__":
    main()
