"""Autopilot statistics dump per lookup type (ML platform team).

Dumps every autopilot match statistic of the tenant as JSON lines, grouped per lookup type, together
with the blocked values of each type, into a training snapshot written on stdout (one summary line per
type). Uses one urllib opener carrying the bearer header; the token is kept until the service says it
has expired, then renewed and the request repeated once.
"""
import base64
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections import defaultdict


class Snapshot:
    def __init__(self, environ):
        self.base = environ["LCKIT_BASE_URL"].rstrip("/")
        self.token_url = environ["LCKIT_TOKEN_URL"]
        self.tenant = urllib.parse.quote(environ["LCKIT_TENANT"], safe="")
        self.basic = base64.b64encode(
            f"{environ['LCKIT_CLIENT_ID']}:{environ['LCKIT_CLIENT_SECRET']}".encode()).decode()
        self.token = self.renew()
        self.opener = urllib.request.build_opener()
        self.opener.addheaders = [("Authorization", f"Bearer {self.token}"), ("Accept", "application/json")]

    def renew(self):
        req = urllib.request.Request(self.token_url, data=b"grant_type=client_credentials", method="POST",
                                     headers={"Authorization": f"Basic {self.basic}",
                                              "Content-Type": "application/x-www-form-urlencoded"})
        with urllib.request.urlopen(req, timeout=5) as resp:
            self.token = json.load(resp)["access_token"]
        return self.token

    def call(self, method, url, body=None):
        data = None if body is None else json.dumps(body).encode()
        for attempt in range(2):
            req = urllib.request.Request(url, data=data, method=method)
            if data is not None:
                req.add_header("Content-Type", "application/json")
            try:
                with self.opener.open(req, timeout=5) as resp:
                    return json.load(resp)
            except urllib.error.HTTPError as err:
                text = err.read().decode("utf-8", "replace")
                if err.code == 401 and attempt == 0 and "expired" in text:
                    self.renew()
                    continue
                raise RuntimeError(f"{method} {url}: {err.code} {text}") from None
        raise RuntimeError(f"{method} {url}: still unauthorised")

    def statistics(self):
        url = f"{self.base}/configuration/{self.tenant}/autopilot/stats/_scan?limit=100"
        scroll = None
        for _ in range(1000):
            page = self.call("POST", url, None if scroll is None else {"scrollId": scroll})
            values = page.get("values") or []
            yield from values
            scroll = page.get("scrollId")
            if not scroll or not values:
                return

    def blocked(self, lookup_type):
        out, offset = [], 0
        lt = urllib.parse.quote(lookup_type, safe="")
        for _ in range(1000):
            chunk = self.call("GET", f"{self.base}/configuration/{self.tenant}/autopilot/{lt}/blockedValues"
                                     f"?offset={offset}&limit=100")
            out += chunk
            if len(chunk) < 100:
                break
            offset += 100
        return out


def main():
    snap = Snapshot(os.environ)
    per_type = defaultdict(list)
    for rec in snap.statistics():
        per_type[rec.get("lookupType", "?")].append(rec)
    for lookup_type in sorted(per_type):
        rows = per_type[lookup_type]
        blocked = snap.blocked(lookup_type)
        scores = [r.get("semanticScore") or 0 for r in rows]
        print(json.dumps({"lookupType": lookup_type, "statistics": len(rows), "blocked": len(blocked),
                          "meanScore": round(sum(scores) / len(scores), 4) if scores else None}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
