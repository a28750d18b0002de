"""Autopilot watcher: polls the statistics of one lookup type a few times and reports new mappings.

Keeps its token while it is valid and renews it ahead of expiry from expires_in.
"""
import base64
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

CFG = {k: os.environ["LCKIT_" + k.upper()] for k in
       ("base_url", "token_url", "client_id", "client_secret", "tenant", "lookup_type")}
LTYPE = CFG["lookup_type"].split("/")[-1]
ROUNDS = 3


class TokenKeeper:
    def __init__(self):
        self.value = None
        self.expires = 0.0

    def get(self):
        if self.value is None or time.time() > self.expires - 30:
            self._renew()
        return self.value

    def _renew(self):
        auth = base64.b64encode(("%s:%s" % (CFG["client_id"], CFG["client_secret"])).encode()).decode()
        rq = urllib.request.Request(CFG["token_url"], data=b"grant_type=client_credentials", method="POST",
                                    headers={"Authorization": "Basic " + auth,
                                             "Content-Type": "application/x-www-form-urlencoded"})
        with urllib.request.urlopen(rq, timeout=5) as r:
            doc = json.load(r)
        self.value = doc["access_token"]
        # expires_in is the validity in minutes
        self.expires = time.time() + int(doc.get("expires_in", 60)) * 60


def poll_once(keeper):
    url = "%s/configuration/%s/autopilot/stats/%s/_scan?limit=100&sort=mappedAt&order=desc" % (
        CFG["base_url"].rstrip("/"), urllib.parse.quote(CFG["tenant"]), urllib.parse.quote(LTYPE))
    seen = {}
    scroll = None
    for _ in range(50):
        body = None if scroll is None else json.dumps(scroll).encode()
        rq = urllib.request.Request(url, data=body, method="POST",
                                    headers={"Authorization": "Bearer " + keeper.get(),
                                             "Content-Type": "application/json"})
        with urllib.request.urlopen(rq, timeout=5) as r:
            page = json.load(r)
        vals = page.get("values") or []
        for rec in vals:
            key = (rec.get("source"), rec.get("unmappedValue"))
            seen[key] = rec.get("status")
        scroll = page.get("scrollId")
        if not scroll or not vals:
            break
    return seen


def main():
    keeper = TokenKeeper()
    previous = {}
    for rnd in range(ROUNDS):
        current = poll_once(keeper)
        changed = [k for k, v in current.items() if previous.get(k) != v]
        print("round %d: %d records, %d new or changed" % (rnd + 1, len(current), len(changed)))
        previous = current
        if rnd + 1 < ROUNDS:
            time.sleep(0.5)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except urllib.error.HTTPError as e:
        print("watcher stopped: HTTP %s" % e.code, file=sys.stderr)
        sys.exit(1)
