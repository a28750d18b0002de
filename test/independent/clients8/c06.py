#!/usr/bin/env python3
"""Nightly lookup consistency check for a reporting job: walks all lookups of the tenant, then the
autopilot statistics of the configured type, and reports candidate codes that are not known lookups.
Every call is made through a small session object that authenticates the call."""
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from base64 import b64encode


class Session:
    def __init__(self):
        self.token_url = os.environ["LCKIT_TOKEN_URL"]
        self.basic = b64encode(
            ("%s:%s" % (os.environ["LCKIT_CLIENT_ID"], os.environ["LCKIT_CLIENT_SECRET"])).encode()
        ).decode()

    def _authenticate(self):
        req = urllib.request.Request(
            self.token_url,
            data=b"grant_type=client_credentials",
            headers={"Authorization": "Basic " + self.basic,
                     "Content-Type": "application/x-www-form-urlencoded"},
        )
        with urllib.request.urlopen(req, timeout=5) as resp:
            body = json.loads(resp.read())
        return body["access_token"]

    def post_json(self, url, payload=None):
        # a fresh token per call, so a long job never runs into an expired one
        token = self._authenticate()
        data = None if payload is None else json.dumps(payload).encode()
        headers = {"Authorization": "Bearer " + token}
        if data is not None:
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(url, data=data, method="POST", headers=headers)
        with urllib.request.urlopen(req, timeout=5) as resp:
            return json.loads(resp.read())


def scan(session, url):
    rows, sid = [], None
    for _ in range(100):
        page = session.post_json(url, sid)
        vals = page.get("values") or []
        rows.extend(vals)
        sid = page.get("scrollId")
        if not sid or not vals:
            break
    return rows


def main():
    s = Session()
    tenant = urllib.parse.quote(os.environ["LCKIT_TENANT"], safe="")
    ltype = os.environ["LCKIT_LOOKUP_TYPE"]
    rdm = os.environ["LCKIT_RDM_URL"].rstrip("/")
    base = os.environ["LCKIT_BASE_URL"].rstrip("/")
    try:
        lookups = scan(s, "%s/lookups/%s/_scan?limit=25" % (rdm, tenant))
        stats = scan(s, "%s/configuration/%s/autopilot/stats/%s/_scan?limit=50"
                     % (base, tenant, urllib.parse.quote(ltype, safe="")))
    except urllib.error.HTTPError as e:
        print("HTTP %s: %s" % (e.code, e.read()[:300]), file=sys.stderr)
        return 2
    codes = {lk.get("code") for lk in lookups if lk.get("type", "").endswith("/" + ltype)}
    unknown = sorted({st["candidateLookupCode"] for st in stats
                      if st.get("candidateLookupCode") and st["candidateLookupCode"] not in codes})
    print("lookups of %s: %d, statistics: %d, unknown candidates: %s" % (ltype, len(codes), len(stats), unknown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
