"""Lookup type purge before the quarterly reload (master-data loading team, sync client).

Counts the lookups of our lookup type, asks the service to delete all lookups of that type (the loader
re-creates them from the new reference file afterwards), then re-counts a few times until the type is
empty, since the deletion runs as an asynchronous task.
"""
import base64
import json
import os
import sys
import time
from urllib import error, parse, request

RDM = os.environ["LCKIT_RDM_URL"].rstrip("/")
TENANT = os.environ["LCKIT_TENANT"]
TYPE_NAME = os.environ["LCKIT_LOOKUP_TYPE"]


def log(msg):
    print(time.strftime("%H:%M:%S"), msg, flush=True)


class Client:
    def __init__(self):
        self.token = None

    def login(self):
        creds = base64.b64encode("{}:{}".format(os.environ["LCKIT_CLIENT_ID"],
                                                os.environ["LCKIT_CLIENT_SECRET"]).encode()).decode()
        rq = request.Request(os.environ["LCKIT_TOKEN_URL"], method="POST",
                             data=parse.urlencode({"grant_type": "client_credentials"}).encode(),
                             headers={"Authorization": "Basic " + creds,
                                      "Content-Type": "application/x-www-form-urlencoded"})
        with request.urlopen(rq, timeout=5) as r:
            self.token = json.load(r)["access_token"]

    def __call__(self, method, path, payload=None, first=True):
        if self.token is None:
            self.login()
        raw = json.dumps(payload).encode() if payload is not None else None
        rq = request.Request(RDM + path, data=raw, method=method,
                             headers={"Authorization": "Bearer " + self.token,
                                      **({"Content-Type": "application/json"} if raw is not None else {})})
        try:
            with request.urlopen(rq, timeout=5) as r:
                txt = r.read()
                return json.loads(txt) if txt else None
        except error.HTTPError as e:
            detail = e.read().decode("utf-8", "replace")
            if e.code == 401 and first and "expired" in detail.lower():
                self.token = None
                return self(method, path, payload, first=False)
            raise RuntimeError(f"{method} {path}: HTTP {e.code} {detail}") from None


def count_type(api):
    q = parse.urlencode({"filter": f"equals(type,'{TYPE_NAME}')", "limit": 100})
    path = f"/lookups/{parse.quote(TENANT)}/_scan?{q}"
    total, sid = 0, None
    for _ in range(500):
        page = api("POST", path, None if sid is None else {"scrollId": sid})
        vals = page.get("values") or []
        total += sum(1 for v in vals if v.get("type", "").rsplit("/", 1)[-1] == TYPE_NAME)
        sid = page.get("scrollId")
        if not sid or not vals:
            break
    return total


def main():
    api = Client()
    before = count_type(api)
    log(f"{before} lookups of {TYPE_NAME} before the purge")
    if before == 0:
        log("nothing to purge")
        return 0
    task = api("POST", f"/tasks/{parse.quote(TENANT)}", {
        "type": "delete",
        "parameters": {"type": TYPE_NAME},
    })
    log(f"delete task {(task or {}).get('id', '?')} status {(task or {}).get('status', '?')}")
    left = before
    for _ in range(5):
        time.sleep(0.3)
        left = count_type(api)
        if left == 0:
            break
    log(f"{left} lookups of {TYPE_NAME} left after the purge")
    return 0


if __name__ == "__main__":
    sys.exit(main())
