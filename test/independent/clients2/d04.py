#!/usr/bin/env python3
# Dashboard feeder (BI team): grabs a snapshot of lookups and autopilot stats for a tile. stdlib only.
import base64
import http.client
import json
import os
import sys
import time
import urllib.parse

ENV = os.environ


def split(url):
    u = urllib.parse.urlsplit(url.rstrip("/"))
    return u.scheme, u.netloc, u.path


def conn_for(url):
    scheme, netloc, _ = split(url)
    return (http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection)(netloc, timeout=30)


def do_raw(url, method="GET", body=None, headers=None):
    scheme, netloc, path = split(url)
    rest = url[len(scheme) + 3 + len(netloc):]
    c = conn_for(url)
    c.request(method, rest or "/", body=body, headers=headers or {})
    r = c.getresponse()
    data = r.read().decode("utf-8")
    c.close()
    return r.status, data


def do(url, method="GET", body=None, headers=None):
    status, data = do_raw(url, method, body, headers)
    if status >= 300:
        sys.exit("error: %s %s -> %d %s" % (method, url, status, data[:200]))
    return json.loads(data) if data.strip() else None


_TOK = {"value": None, "until": 0.0}


def get_token(renew=False):
    if not renew and _TOK["value"] and time.time() < _TOK["until"]:
        return _TOK["value"]
    base = ENV["LCKIT_BASE_URL"].rstrip("/")
    url = ENV.get("LCKIT_TOKEN_URL") or base + "/oauth/token"
    basic = base64.b64encode(("%s:%s" % (ENV.get("LCKIT_CLIENT_ID", ""), ENV.get("LCKIT_CLIENT_SECRET", ""))).encode()).decode()
    tok = do(url, "POST", "grant_type=client_credentials",
             {"Authorization": "Basic " + basic, "Content-Type": "application/x-www-form-urlencoded"})
    _TOK["value"], _TOK["until"] = tok["access_token"], time.time() + 0.9 * float(tok.get("expires_in") or 3600)
    return _TOK["value"]


def authed(url, method="GET"):
    """GET/POST with the current token; one retry with a new token on 401."""
    extra = {"Content-Length": "0"} if method == "POST" else {}
    for renew in (False, True):
        status, data = do_raw(url, method, None, dict(extra, Authorization="Bearer " + get_token(renew)))
        if status != 401:
            break
    if status >= 300:
        sys.exit("error: %s %s -> %d %s" % (method, url, status, data[:200]))
    return json.loads(data) if data.strip() else None


def scan(url):
    # One request per scan: the tile shows "first N" and treats the page as the data set.
    page = authed(url, "POST")
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
    out = {"status": (authed(rdm + "/status") or {}).get("status")}
    q = urllib.parse.urlencode({"filter": "equals(type,'%s')" % lt_name, "limit": 100, "sort": "code", "order": "asc"})
    out["lookupsOfType"] = scan("%s/lookups/%s/_scan?%s" % (rdm, t, q))
    out["statsAll"] = scan("%s/configuration/%s/autopilot/stats/_scan?limit=100" % (base, t))
    out["statsOfType"] = scan("%s/configuration/%s/autopilot/stats/%s/_scan?limit=100" % (base, t, lt))
    blocked, offset = 0, 0
    while True:
        page = authed("%s/configuration/%s/autopilot/%s/blockedValues?offset=%d&limit=100" % (base, t, lt, offset))
        blocked += len(page)
        offset += len(page)
        if len(page) < 100:
            break
    out["blocked"] = blocked
    print(json.dumps(out))


if __name__ == "__main__":
    main()
