#!/usr/bin/env python3
"""Blocked-value watch (team: data stewardship).

Compares the blocked values of the first lookup type with the unmapped values autopilot still tracks
for that type, and flags unmapped values that are also blocked (autopilot must skip them) and blocked
values nobody sends any more.
"""
import base64
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


def env(name):
    value = os.environ.get(name)
    if not value:
        sys.stderr.write("missing %s\n" % name)
        sys.exit(2)
    return value


BASE = env("LCKIT_BASE_URL").rstrip("/")
RDM = env("LCKIT_RDM_URL").rstrip("/")
TOKEN_URL = env("LCKIT_TOKEN_URL")
CLIENT_ID = env("LCKIT_CLIENT_ID")
CLIENT_SECRET = env("LCKIT_CLIENT_SECRET")
TENANT = env("LCKIT_TENANT")
LOOKUP_TYPE = env("LCKIT_LOOKUP_TYPE")
Q = lambda s: urllib.parse.quote(s, safe="")


class Reply:
    def __init__(self, status, text, headers):
        self.status = status
        self.text = text
        self.headers = headers
        try:
            self.json = json.loads(text) if text else None
        except ValueError:
            self.json = None


def http(method, url, headers=None, body=None):
    data = body.encode("utf-8") if isinstance(body, str) else body
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=4) as res:
            return Reply(res.status, res.read().decode("utf-8", "replace"), res.headers)
    except urllib.error.HTTPError as err:
        return Reply(err.code, err.read().decode("utf-8", "replace"), err.headers)


class Tokens:
    """One access token, reused until shortly before it expires; renewed once on an expired-token error."""

    def __init__(self):
        self.value = None
        self.expires_at = 0.0
        self.life = 0.0

    def fetch(self):
        basic = base64.b64encode(("%s:%s" % (CLIENT_ID, CLIENT_SECRET)).encode()).decode()
        for attempt in (1, 2, 3):
            sent = time.time()
            r = http("POST", TOKEN_URL, {
                "Authorization": "Basic " + basic,
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/json",
            }, "grant_type=client_credentials")
            if r.status == 200 and isinstance(r.json, dict) and r.json.get("access_token"):
                try:
                    life = float(r.json.get("expires_in") or 3600)
                except (TypeError, ValueError):
                    life = 3600.0
                self.value, self.life, self.expires_at = r.json["access_token"], life, sent + life
                return self.value
            if r.status == 429 or "limit" in r.text.lower() or "exceeded" in r.text.lower():
                # quota (or rate limit): a slot frees only when a token expires, so wait before asking again
                if attempt < 3:
                    retry_after = r.headers.get("Retry-After") if r.headers else None
                    try:
                        delay = float(retry_after) if retry_after else 0.5 * attempt
                    except ValueError:
                        delay = 0.5 * attempt
                    time.sleep(min(delay, 1.5))
                continue
            raise RuntimeError("token request refused: %s %s" % (r.status, r.text[:200]))
        raise RuntimeError("no token: the quota stayed exhausted")

    def get(self):
        if self.value and time.time() < self.expires_at - min(5.0, self.life * 0.1):
            return self.value
        return self.fetch()

    def drop(self):
        self.value = None


TOKENS = Tokens()


def api(method, url, body=None, content_type="application/json"):
    renewed = False
    for attempt in range(4):
        headers = {"Authorization": "Bearer " + TOKENS.get(), "Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = content_type
        r = http(method, url, headers, body)
        why = r.text + " " + ((r.headers.get("WWW-Authenticate") or "") if r.headers else "")
        if r.status in (401, 403) and not renewed and ("invalid_token" in why or "expired" in why.lower()):
            TOKENS.drop()
            renewed = True
            continue
        if r.status == 429 and attempt < 3:
            time.sleep(1.0)
            continue
        return r
    raise RuntimeError("%s %s: gave up" % (method, url))


ENCODINGS = [
    lambda sid: (json.dumps(sid), "application/json"),
    lambda sid: (json.dumps({"scrollId": sid}), "application/json"),
    lambda sid: (sid, "text/plain"),
]
PREFERRED = [0]


def scan(url, on_page, first_body=None, max_pages=80):
    r = api("POST", url, first_body)
    for _ in range(max_pages):
        if r.status != 200 or not isinstance(r.json, dict):
            raise RuntimeError("scan %s: %s %s" % (url, r.status, r.text[:200]))
        values = r.json.get("values") or []
        if values:
            on_page(values)
        sid = r.json.get("scrollId")
        if not sid or not values:
            return
        nxt = None
        for k in range(len(ENCODINGS)):
            idx = (PREFERRED[0] + k) % len(ENCODINGS)
            body, ctype = ENCODINGS[idx](sid)
            nxt = api("POST", url, body, ctype)
            if nxt.status == 200:
                PREFERRED[0] = idx
                break
            if nxt.status not in (400, 415, 422):
                break
        r = nxt
    raise RuntimeError("scan %s: no end after %d pages" % (url, max_pages))


def run(main):
    try:
        main()
    except Exception as err:  # the job failed
        sys.stderr.write("%s: %s\n" % (type(err).__name__, err))
        sys.exit(1)
    sys.exit(0)


def blocked_values():
    url = "%s/configuration/%s/autopilot/%s/blockedValues" % (BASE, Q(TENANT), Q(LOOKUP_TYPE))
    # Blocked lists are short: ask for everything in one request.
    r = api("GET", url + "?offset=0&limit=1000")
    if r.status in (400, 422):
        # a deployment that insists on its own page size: take its default page and page on from there
        out, offset = [], 0
        for _ in range(100):
            r = api("GET", url + ("?offset=%d" % offset if offset else ""))
            if r.status != 200 or not isinstance(r.json, list):
                raise RuntimeError("blocked values: %s %s" % (r.status, r.text[:200]))
            out.extend(r.json)
            if len(r.json) < 100:
                return out
            offset += len(r.json)
        return out
    if r.status != 200 or not isinstance(r.json, list):
        raise RuntimeError("blocked values: %s %s" % (r.status, r.text[:200]))
    return r.json


def main():
    blocked = {b.get("value") for b in blocked_values()}
    unmapped = {}

    def page(values):
        for s in values:
            unmapped[s.get("unmappedValue")] = s.get("status")

    scan("%s/configuration/%s/autopilot/stats/%s/_scan?limit=100" % (BASE, Q(TENANT), Q(LOOKUP_TYPE)), page)
    both = sorted(v for v in unmapped if v in blocked)
    stale = sorted(v for v in blocked if v not in unmapped)
    print("%s: %d blocked values, %d unmapped values tracked" % (LOOKUP_TYPE, len(blocked), len(unmapped)))
    print("blocked but still tracked: %s" % (", ".join(map(str, both)) or "-"))
    print("blocked and no longer seen: %s" % (", ".join(map(str, stale[:20])) or "-"))


run(main)
