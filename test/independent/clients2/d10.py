#!/usr/bin/env python3
"""Autopilot review helper (stewardship team): lists automapped statistics of one lookup type.

One persistent HTTP/1.1 connection per host (http.client); stdlib only.
"""
import base64
import http.client
import json
import os
import re
import sys
import time
import urllib.parse


def parse_json(raw):
    """JSON, except /version, whose number may be unquoted ({"rdm-service": 2016.3.0.0.1})."""
    try:
        return json.loads(raw)
    except ValueError:
        m = re.search(r'"rdm-service"\s*:\s*"?([0-9][0-9.]*)', raw)
        if m:
            return {"rdm-service": m.group(1)}
        raise


class Conn:
    """Keeps one connection per scheme://host and reopens it when the server closes it."""

    def __init__(self):
        self.pool = {}
        self.calls = 0

    def send(self, method, url, body=None, headers=None):
        u = urllib.parse.urlsplit(url)
        key = (u.scheme, u.netloc)
        target = (u.path or "/") + ("?" + u.query if u.query else "")
        hdrs = dict(headers or {})
        if body is not None:
            body = body.encode("utf-8")
        elif method == "POST":
            hdrs["Content-Length"] = "0"
        for attempt in (0, 1):
            c = self.pool.get(key)
            if c is None:
                cls = http.client.HTTPSConnection if u.scheme == "https" else http.client.HTTPConnection
                c = self.pool[key] = cls(u.netloc, timeout=30)
            try:
                self.calls += 1
                c.request(method, target, body=body, headers=hdrs)
                r = c.getresponse()
                return r.status, r.read().decode("utf-8")
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                c.close()
                self.pool.pop(key, None)
                if attempt:
                    raise


class Review:
    def __init__(self):
        env = os.environ
        need = ["LCKIT_BASE_URL", "LCKIT_RDM_URL", "LCKIT_TENANT", "LCKIT_LOOKUP_TYPE"]
        absent = [n for n in need if not env.get(n)]
        if absent:
            sys.exit("error: set " + ", ".join(absent))
        self.base = env["LCKIT_BASE_URL"].rstrip("/")
        self.rdm = env["LCKIT_RDM_URL"].rstrip("/")
        self.token_url = env.get("LCKIT_TOKEN_URL") or self.base + "/oauth/token"
        self.basic = base64.b64encode(("%s:%s" % (env.get("LCKIT_CLIENT_ID", ""), env.get("LCKIT_CLIENT_SECRET", ""))).encode()).decode()
        self.tenant = urllib.parse.quote(env["LCKIT_TENANT"], safe="")
        self.type_name = env["LCKIT_LOOKUP_TYPE"]
        self.http = Conn()
        self.tok, self.tok_until = None, 0.0
        self.raw_scroll = False  # {"scrollId": ...} first; the raw id as text if the service refuses that

    def token(self, renew=False):
        if renew or not self.tok or time.time() >= self.tok_until:
            st, text = self.http.send("POST", self.token_url, "grant_type=client_credentials",
                                      {"Authorization": "Basic " + self.basic, "Content-Type": "application/x-www-form-urlencoded"})
            if st != 200:
                sys.exit("error: token endpoint answered %d: %s" % (st, text[:200]))
            data = json.loads(text)
            self.tok, self.tok_until = data["access_token"], time.time() + 0.75 * float(data.get("expires_in") or 3600)
        return self.tok

    def call(self, method, url, payload=None, raw=None):
        body = raw if raw is not None else None if payload is None else json.dumps(payload)
        for renew in (False, True):
            h = {"Authorization": "Bearer " + self.token(renew), "Accept": "application/json"}
            if body is not None:
                h["Content-Type"] = "text/plain" if raw is not None else "application/json"
            st, text = self.http.send(method, url, body, h)
            if st == 401 and not renew:
                continue
            if st in (400, 415, 422) and isinstance(payload, dict) and "scrollId" in payload and not self.raw_scroll:
                self.raw_scroll = True
                return self.call(method, url, raw=payload["scrollId"])
            if st >= 300:
                sys.exit("error: %s %s answered %d: %s" % (method, url, st, text[:200]))
            return parse_json(text) if text.strip() else None

    def scan(self, url):
        """Yields records; ends on a page without scrollId or on an empty page."""
        page = self.call("POST", url)
        for _ in range(10000):
            values = (page or {}).get("values") or []
            for v in values:
                yield v
            sid = (page or {}).get("scrollId")
            if not sid or not values:
                return
            page = self.call("POST", url, raw=sid) if self.raw_scroll else self.call("POST", url, {"scrollId": sid})
        sys.exit("error: scan %s does not end" % url)


def main():
    r = Review()
    lt = urllib.parse.quote(r.type_name, safe="")
    version = r.call("GET", r.rdm + "/version") or {}
    q = urllib.parse.urlencode({"filter": "equals(status,'AUTOMAPPED')", "sort": "unmappedValue", "order": "desc", "limit": 100})
    automapped = list(r.scan("%s/configuration/%s/autopilot/stats/%s/_scan?%s" % (r.base, r.tenant, lt, q)))
    every = sum(1 for _ in r.scan("%s/configuration/%s/autopilot/stats/%s/_scan" % (r.base, r.tenant, lt)))
    codes = {l.get("code") for l in r.scan("%s/lookups/%s/_scan?%s" % (r.rdm, r.tenant, urllib.parse.urlencode(
        {"filter": "equals(type,'%s')" % r.type_name, "limit": 100})))}
    blocked, offset = set(), 0
    while True:
        page = r.call("GET", "%s/configuration/%s/autopilot/%s/blockedValues?offset=%d&limit=100" % (r.base, r.tenant, lt, offset)) or []
        blocked.update(b.get("value") for b in page)
        offset += len(page)
        if len(page) < 100:
            break
    unknown = [s for s in automapped if s.get("candidateLookupCode") and s["candidateLookupCode"] not in codes]
    print(json.dumps({"version": version.get("rdm-service"), "automapped": len(automapped), "statsOfType": every,
                      "lookupCodes": len(codes), "blocked": len(blocked), "mappedToUnknownCode": len(unknown),
                      "httpCalls": r.http.calls}))


if __name__ == "__main__":
    main()
