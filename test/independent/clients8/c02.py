#!/usr/bin/env python3
"""Autopilot review queue for one lookup type: lists the statistics of that type that still wait for a
human (anything not automatically mapped) and prints them sorted by semantic score."""
import base64
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

BASE = os.environ["LCKIT_BASE_URL"].rstrip("/")
TENANT = os.environ["LCKIT_TENANT"]
LTYPE = os.environ["LCKIT_LOOKUP_TYPE"]


def get_token():
    creds = "%s:%s" % (os.environ["LCKIT_CLIENT_ID"], os.environ["LCKIT_CLIENT_SECRET"])
    req = urllib.request.Request(
        os.environ["LCKIT_TOKEN_URL"],
        data=urllib.parse.urlencode({"grant_type": "client_credentials"}).encode(),
        method="POST",
        headers={
            "Authorization": "Basic " + base64.b64encode(creds.encode()).decode(),
            "Content-Type": "application/x-www-form-urlencoded",
        },
    )
    with urllib.request.urlopen(req, timeout=5) as resp:
        return json.load(resp)["access_token"]


class StatsScanner:
    def __init__(self, token):
        self.token = token
        self.url = "%s/configuration/%s/autopilot/stats/%s/_scan?%s" % (
            BASE,
            urllib.parse.quote(TENANT, safe=""),
            urllib.parse.quote(LTYPE, safe=""),
            urllib.parse.urlencode({"limit": 25, "sort": "semanticScore", "order": "desc"}),
        )

    def _post(self, payload, renewed=False):
        req = urllib.request.Request(
            self.url,
            data=json.dumps(payload).encode(),
            method="POST",
            headers={"Authorization": "Bearer " + self.token, "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=5) as resp:
                return json.load(resp)
        except urllib.error.HTTPError as err:
            if err.code != 401 or renewed:
                raise
            err.read()
            self.token = get_token()  # expired: one new token, one retry
            return self._post(payload, renewed=True)

    def records(self):
        # every request carries a JSON object; the scroll goes in it once we have one
        state = {}
        for _ in range(80):
            page = self._post(state)
            values = page.get("values") or []
            for rec in values:
                yield rec
            scroll = page.get("scrollId")
            if not scroll or not values:
                return
            state = {"scrollId": scroll}


def main():
    try:
        token = get_token()
        pending = [r for r in StatsScanner(token).records() if r.get("status") not in ("AUTOMAPPED",)]
    except urllib.error.HTTPError as err:
        print("request failed: %s %s" % (err.code, err.read()[:200]), file=sys.stderr)
        return 1
    pending.sort(key=lambda r: -(r.get("semanticScore") or 0))
    for rec in pending[:20]:
        print("%-20s %-12s %-8s %s" % (rec.get("unmappedValue"), rec.get("candidateLookupCode", "-"),
                                     rec.get("semanticScore"), rec.get("status")))
    print("pending: %d" % len(pending))
    return 0


if __name__ == "__main__":
    sys.exit(main())
