#!/usr/bin/env python3
# Dashboard feeder (BI team): grabs a snapshot of lookups and autopilot stats for a tile. stdlib only.
import base64
import http.client
import json
import os
import sys
import urllib.parse

ENV = os.environ


def split(url):
    u = urllib.parse.urlsplit(url.rstrip("/"))
    return u.scheme, u.netloc, u.path


def conn_for(url):
    scheme, netloc, _ = split(url)
    return (http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection)(netloc, timeout=30)


def do(url, method="GET", body=None, headers=None):
    scheme, netloc, path = split(url)
    rest = url[len(scheme) + 3 + len(netloc):]
    c = conn_for(url)
    c.request(method, rest or "/", body=body, headers=headers or {})
    r = c.getresponse()
    data = r.read().decode("utf-8")
    c.close()
    if r.status >= 300:
        sys.exit("error: %s %s -> %d %s" % (method, url, r.status, data[:200]))
    return json.loads(data) if data.strip() else None


def get_token():
    base = ENV["LCKIT_BASE_URL"].rstrip("/")
    url = ENV.get("LCKIT_TOKEN_URL") or base + "/oauth/token"
    basic = base64.b64encode(("%s:%s" % (ENV.get("LCKIT_CLIENT_ID", ""), ENV.get("LCKIT_CLIENT_SECRET", ""))).encode()).decode()
    tok = do(url, "POST", "grant_type=client_credentials",
             {"Authorization": "Basic " + basic, "Content-Type": "application/x-www-form-urlencoded"})
    return tok["access_token"]


def scan(url, token):
    # One request per scan: the tile shows "first N" and treats the page as the data set.
    page = do(url, "POST", None, {"Authorization": "Bearer " + token, "Content-Length": "0"})
    return len(page.get("values") or [])


def main():
    for k in ("LCKIT_BASE_URL", "LCKIT_RDM_URL", "LCKIT_TENANT", "LCKIT_LOOKUP_TYPE"):
        if not ENV.get(k):
            sys.exit("error: %s is not set" % k)
    base = ENV["LCKIT_BASE_URL"].rstrip("/")
    rdm = ENV["LCKIT_RDM_URL"].rstrip("/")
    t = urllib.parse.quote(ENV["LCKIT_TENANT"], safe="")
    lt_name = ENV["LCKIT_LOOKUP_TYPE"]
    lt = urllib.parse.quote(lt_name, safe="")
    token = get_token()
    auth = {"Authorization": "Bearer " + token}
    out = {"status": do(rdm + "/status", headers=auth).get("status")}
    q = urllib.parse.urlencode({"filter": "equals(type,'%s')" % lt_name, "limit": 100, "sort": "code", "order": "asc"})
    out["lookupsOfType"] = scan("%s/lookups/%s/_scan?%s" % (rdm, t, q), token)
    out["statsAll"] = scan("%s/configuration/%s/autopilot/stats/_scan?limit=100" % (base, t), token)
    out["statsOfType"] = scan("%s/configuration/%s/autopilot/stats/%s/_scan?limit=100" % (base, t, lt), token)
    blocked, offset = 0, 0
    while True:
        page = do("%s/configuration/%s/autopilot/%s/blockedValues?offset=%d&limit=100" % (base, t, lt, offset), headers=auth)
        blocked += len(page)
        offset += len(page)
        if len(page) < 100:
            break
    out["blocked"] = blocked
    print(json.dumps(out))


if __name__ == "__main__":
    main()
