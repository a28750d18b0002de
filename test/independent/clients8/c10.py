#!/usr/bin/env python3
"""Autopilot health page for one lookup type: service health/status/version, the statistics of the
type grouped by status, and how many tracked unmapped values are already blocked.

Token policy: keep the token until the service rejects it with 401; then fetch a new one and retry
that request once. If the token endpoint declines (quota), reuse the token we hold when we have one."""
import base64
import collections
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


class Api:
    def __init__(self, env):
        self.env = env
        self.base = env["LCKIT_BASE_URL"].rstrip("/")
        self.rdm = env["LCKIT_RDM_URL"].rstrip("/")
        self.tenant = urllib.parse.quote(env["LCKIT_TENANT"], safe="")
        self.token = None

    def _fetch_token(self):
        pair = "%s:%s" % (self.env["LCKIT_CLIENT_ID"], self.env["LCKIT_CLIENT_SECRET"])
        for attempt in range(3):
            req = urllib.request.Request(
                self.env["LCKIT_TOKEN_URL"], method="POST",
                data=urllib.parse.urlencode({"grant_type": "client_credentials"}).encode(),
                headers={"Authorization": "Basic " + base64.b64encode(pair.encode()).decode(),
                         "Content-Type": "application/x-www-form-urlencoded",
                         "Accept": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=5) as r:
                    self.token = json.load(r)["access_token"]
                    return
            except urllib.error.HTTPError as e:
                e.read()
                if e.code != 429:
                    raise
                if self.token:  # quota reached: keep using what we hold
                    return
                time.sleep(min(float(e.headers.get("Retry-After") or 1), 1.5))
        raise RuntimeError("token endpoint keeps declining")

    def request(self, method, url, payload=None, send_body=False):
        if self.token is None:
            self._fetch_token()
        for attempt in (1, 2):
            headers = {"Authorization": "Bearer " + self.token, "Accept": "application/json"}
            data = None
            if send_body:
                data = json.dumps(payload).encode()
                headers["Content-Type"] = "application/json"
            req = urllib.request.Request(url, data=data, method=method, headers=headers)
            try:
                with urllib.request.urlopen(req, timeout=5) as r:
                    return json.load(r)
            except urllib.error.HTTPError as e:
                e.read()
                if e.code == 401 and attempt == 1:
                    self.token = None
                    self._fetch_token()
                    continue
                raise

    def scan(self, url, max_pages=200):
        """First call with a null body, later calls with {"scrollId": ...}."""
        body, out = None, []
        for _ in range(max_pages):
            page = self.request("POST", url, body, send_body=True)
            values = page.get("values") or []
            out.extend(values)
            sid = page.get("scrollId")
            if not sid:
                break
            body = {"scrollId": sid}
        return out


def main():
    api = Api(os.environ)
    ltype = os.environ["LCKIT_LOOKUP_TYPE"]
    qtype = urllib.parse.quote(ltype, safe="")
    health = api.request("GET", api.rdm + "/healthcheck")
    status = api.request("GET", api.rdm + "/status")
    version = api.request("GET", api.rdm + "/version")
    q = urllib.parse.urlencode({"limit": 100, "sort": "updateDate", "order": "desc"})
    stats = api.scan("%s/configuration/%s/autopilot/stats/%s/_scan?%s" % (api.base, api.tenant, qtype, q))
    blocked = []
    offset = 0
    for _ in range(100):
        rows = api.request("GET", "%s/configuration/%s/autopilot/%s/blockedValues?%s" % (
            api.base, api.tenant, qtype, urllib.parse.urlencode({"offset": offset, "limit": 100})))
        blocked.extend(rows or [])
        if not rows or len(rows) < 100:
            break
        offset += len(rows)
    blocked_set = {b.get("value") for b in blocked}
    by_status = collections.Counter(s.get("status", "?") for s in stats)
    print("health=%s status=%s rdm-service=%s" % (health.get("status"), status.get("status"),
                                                   version.get("rdm-service")))
    for st, n in sorted(by_status.items()):
        print("  %-18s %d" % (st, n))
    print("tracked-but-blocked: %d of %d blocked values"
          % (sum(1 for s in stats if s.get("unmappedValue") in blocked_set), len(blocked_set)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
