"""Candidate check: for one lookup type, lists unmapped values whose candidate code is a disabled lookup."""
import base64
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


class Session:
    """Token kept until 60 s before the announced expiry; one retry on an invalid_token answer."""

    MARGIN = 60

    def __init__(self, env):
        self.env = env
        self._token = None
        self._until = 0.0

    def _fetch(self):
        # No body at all: grant_type travels in the query string, credentials by Basic.
        url = self.env["LCKIT_TOKEN_URL"] + "?" + urllib.parse.urlencode({"grant_type": "client_credentials"})
        pair = "%s:%s" % (self.env["LCKIT_CLIENT_ID"], self.env["LCKIT_CLIENT_SECRET"])
        rq = urllib.request.Request(url, method="POST",
                                    headers={"Authorization": "Basic " + base64.b64encode(pair.encode()).decode()})
        with urllib.request.urlopen(rq, timeout=5) as r:
            doc = json.load(r)
        self._token = doc["access_token"]
        self._until = time.monotonic() + float(doc.get("expires_in") or 3600) - self.MARGIN

    def token(self):
        if self._token is None or time.monotonic() >= self._until:
            self._fetch()
        return self._token

    def post_json(self, url, payload, first):
        for attempt in (0, 1):
            headers = {"Authorization": "Bearer " + self.token()}
            data = None
            if not first:
                data = json.dumps(payload).encode()
                headers["Content-Type"] = "application/json"
            rq = urllib.request.Request(url, data=data, method="POST", headers=headers)
            try:
                with urllib.request.urlopen(rq, timeout=5) as r:
                    return json.load(r)
            except urllib.error.HTTPError as e:
                if e.code == 401 and attempt == 0:
                    self._token = None
                    continue
                raise
        raise RuntimeError("unreachable")


def drain(session, url):
    items, cursor = [], None
    for n in range(100):
        page = session.post_json(url, {"scrollId": cursor}, first=(n == 0)) or {}
        chunk = page.get("values") or []
        items.extend(chunk)
        cursor = page.get("scrollId")
        if not cursor or not chunk:
            break
    return items


def main():
    env = os.environ
    s = Session(env)
    tname = env["LCKIT_LOOKUP_TYPE"].split("/")[-1]
    tenant = urllib.parse.quote(env["LCKIT_TENANT"])
    lk_url = "%s/lookups/%s/_scan?%s" % (env["LCKIT_RDM_URL"].rstrip("/"), tenant, urllib.parse.urlencode(
        {"filter": "equals(type,'%s')" % tname, "limit": 100}))
    st_url = "%s/configuration/%s/autopilot/stats/%s/_scan?%s" % (
        env["LCKIT_BASE_URL"].rstrip("/"), tenant, urllib.parse.quote(tname),
        urllib.parse.urlencode({"limit": 75, "sort": "semanticScore", "order": "desc"}))
    disabled = {lk["code"] for lk in drain(s, lk_url) if lk.get("enabled") is False}
    suspicious = [r for r in drain(s, st_url) if r.get("candidateLookupCode") in disabled]
    for r in suspicious:
        print("%s/%s -> %s (%s)" % (r.get("source"), r.get("unmappedValue"), r["candidateLookupCode"], r.get("status")))
    print("%d disabled codes, %d statistics point at one" % (len(disabled), len(suspicious)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (urllib.error.URLError, OSError) as exc:
        print("check failed:", exc, file=sys.stderr)
        sys.exit(1)
