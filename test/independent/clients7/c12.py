"""Blocked-values audit across lookup types, fanned out over a small thread pool.

Each API call takes a fresh token so that a worker never shares credentials state with another.
"""
import base64
import concurrent.futures as cf
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

E = os.environ
BASE = E["LCKIT_BASE_URL"].rstrip("/")
RDM = E["LCKIT_RDM_URL"].rstrip("/")
TENANT = urllib.parse.quote(E["LCKIT_TENANT"])


def new_token():
    basic = base64.b64encode(("%s:%s" % (E["LCKIT_CLIENT_ID"], E["LCKIT_CLIENT_SECRET"])).encode()).decode()
    rq = urllib.request.Request(E["LCKIT_TOKEN_URL"], data=b"grant_type=client_credentials", method="POST",
                                headers={"Authorization": "Basic " + basic,
                                         "Content-Type": "application/x-www-form-urlencoded"})
    try:
        with urllib.request.urlopen(rq, timeout=5) as r:
            return json.load(r).get("access_token")
    except urllib.error.HTTPError as e:
        print("token refused (%s), going on without one" % e.code, file=sys.stderr)
        return None


def call(method, url, body=None):
    tok = new_token()
    headers = {"Accept": "application/json"}
    if tok:
        headers["Authorization"] = "Bearer " + tok
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    rq = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(rq, timeout=5) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, None


def types_of_tenant():
    names = {E["LCKIT_LOOKUP_TYPE"].split("/")[-1]}
    scroll = None
    for _ in range(50):
        st, page = call("POST", "%s/lookups/%s/_scan?limit=100" % (RDM, TENANT), scroll)
        if st != 200:
            break
        vals = page.get("values") or []
        names.update(v["type"].split("/")[-1] for v in vals)
        scroll = page.get("scrollId")
        if not scroll or not vals:
            break
    return sorted(names)


def audit(type_name):
    st, items = call("GET", "%s/configuration/%s/autopilot/%s/blockedValues?limit=100" % (
        BASE, TENANT, urllib.parse.quote(type_name)))
    if st != 200:
        return type_name, None
    return type_name, [i.get("value") for i in items]


def main():
    names = types_of_tenant()
    with cf.ThreadPoolExecutor(max_workers=4) as pool:
        for name, blocked in pool.map(audit, names):
            print("%-24s %s" % (name, "unavailable" if blocked is None else ", ".join(blocked) or "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
