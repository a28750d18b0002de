#!/usr/bin/env python3
# blocklist-export (governance team): exports the blocked values of a lookup type, plus scan totals.
# Python standard library only; written in the team's usual "paged REST" helper style.
import base64
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

PAGE_SIZE = 50


def env(name, default=None):
    v = os.environ.get(name, default)
    if v is None or v == "":
        sys.exit("error: environment variable %s is required" % name)
    return v


BASE = env("LCKIT_BASE_URL").rstrip("/")
RDM = env("LCKIT_RDM_URL").rstrip("/")
TENANT = env("LCKIT_TENANT")
LOOKUP_TYPE = env("LCKIT_LOOKUP_TYPE")
TOKEN_URL = os.environ.get("LCKIT_TOKEN_URL") or BASE + "/oauth/token"


def fetch_token():
    creds = "%s:%s" % (os.environ.get("LCKIT_CLIENT_ID", ""), os.environ.get("LCKIT_CLIENT_SECRET", ""))
    req = urllib.request.Request(TOKEN_URL + "?grant_type=client_credentials", data=b"", method="POST",
                                 headers={"Authorization": "Basic " + base64.b64encode(creds.encode()).decode()})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.load(resp)["access_token"]


TOKEN = None
RAW_SCROLL = False  # {"scrollId": ...} first; the raw id as text if the service refuses that


def rest(method, path_or_url, params=None, body=None, raw_text=None, _retried=False):
    global TOKEN, RAW_SCROLL
    if TOKEN is None:
        TOKEN = fetch_token()
    url = path_or_url + ("?" + urllib.parse.urlencode(params) if params else "")
    data = raw_text.encode() if raw_text is not None else json.dumps(body).encode() if body is not None else None
    headers = {"Authorization": "Bearer " + TOKEN, "Accept": "application/json"}
    if data is not None:
        headers["Content-Type"] = "text/plain" if raw_text is not None else "application/json"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data, method=method, headers=headers), timeout=30) as resp:
            text = resp.read().decode()
    except urllib.error.HTTPError as err:
        if err.code in (400, 415, 422) and isinstance(body, dict) and "scrollId" in body and not RAW_SCROLL:
            RAW_SCROLL = True
            return rest(method, path_or_url, params, raw_text=body["scrollId"])
        if err.code == 401 and not _retried:
            TOKEN = None  # expired: fetch a new one and try once more
            return rest(method, path_or_url, params, body, raw_text, _retried=True)
        sys.exit("error: %s %s -> %d %s" % (method, url, err.code, err.read()[:200].decode(errors="replace")))
    return json.loads(text) if text.strip() else None


def scan_total(url, params):
    total, page = 0, rest("POST", url, params)
    while page:
        values = page.get("values") or []
        total += len(values)
        if not values or not page.get("scrollId"):
            break
        if RAW_SCROLL:
            page = rest("POST", url, params, raw_text=page["scrollId"])
        else:
            page = rest("POST", url, params, {"scrollId": page["scrollId"]})
    return total


def blocked_values():
    url = "%s/configuration/%s/autopilot/%s/blockedValues" % (BASE, urllib.parse.quote(TENANT, safe=""), urllib.parse.quote(LOOKUP_TYPE, safe=""))
    seen, out = set(), []
    for page_no in range(1000):
        page = rest("GET", url, {"page": page_no, "size": PAGE_SIZE}) or []
        fresh = [b for b in page if b.get("value") not in seen]
        for b in fresh:
            seen.add(b.get("value"))
            out.append(b)
        if len(page) < PAGE_SIZE or not fresh:
            break
    return out


def main():
    t = urllib.parse.quote(TENANT, safe="")
    blocked = blocked_values()
    print(json.dumps({
        "healthcheck": (rest("GET", RDM + "/healthcheck") or {}).get("status"),
        "blocked": len(blocked),
        "blockedValues": sorted(b.get("value") for b in blocked)[:5],
        "statsOfType": scan_total("%s/configuration/%s/autopilot/stats/%s/_scan" % (BASE, t, urllib.parse.quote(LOOKUP_TYPE, safe="")), {"limit": 100}),
        "lookupsOfType": scan_total("%s/lookups/%s/_scan" % (RDM, t), {"limit": 100, "filter": "equals(type,'%s')" % LOOKUP_TYPE}),
    }))


if __name__ == "__main__":
    main()
