"""Autopilot weekly report: reads all match statistics of the tenant and prints counts per status."""
import base64
import collections
import json
import os
import sys
import urllib.error
import urllib.request

BASE = os.environ["LCKIT_BASE_URL"].rstrip("/")
TENANT = os.environ["LCKIT_TENANT"]


def fetch_token():
    creds = "%s:%s" % (os.environ["LCKIT_CLIENT_ID"], os.environ["LCKIT_CLIENT_SECRET"])
    req = urllib.request.Request(
        os.environ["LCKIT_TOKEN_URL"],
        data=b"grant_type=client_credentials",
        method="POST",
        headers={
            "Authorization": "Basic " + base64.b64encode(creds.encode()).decode(),
            "Content-Type": "application/x-www-form-urlencoded",
        },
    )
    with urllib.request.urlopen(req, timeout=5) as resp:
        return json.load(resp)["access_token"]


class StatsReader:
    # Fewer round trips: we ask for big pages.
    PAGE = 200

    def __init__(self, token):
        self.token = token

    def pages(self):
        scroll = None
        for _ in range(40):
            data = None if scroll is None else json.dumps(scroll).encode()
            req = urllib.request.Request(
                "%s/configuration/%s/autopilot/stats/_scan?limit=%d" % (BASE, TENANT, self.PAGE),
                data=data,
                method="POST",
                headers={"Authorization": "Bearer " + self.token, "Content-Type": "application/json"},
            )
            with urllib.request.urlopen(req, timeout=5) as resp:
                page = json.load(resp)
            values = page.get("values") or []
            yield values
            scroll = page.get("scrollId")
            if not scroll or not values:
                return


def main():
    reader = StatsReader(fetch_token())
    per_status = collections.Counter()
    for values in reader.pages():
        for rec in values:
            per_status[rec.get("status", "?")] += 1
    for status, n in sorted(per_status.items()):
        print("%-20s %d" % (status, n))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (urllib.error.URLError, OSError, ValueError) as exc:
        print("report failed:", exc, file=sys.stderr)
        sys.exit(1)
