#!/usr/bin/env python3
# Housekeeping job of the data-steward team: purge every disabled lookup of the tenant, all types.
import base64
import json
import os
import sys
import urllib.request
from urllib.error import HTTPError


def _req(method, url, token=None, basic=None, payload=None, form=None):
    headers = {}
    data = None
    if token:
        headers["Authorization"] = "Bearer " + token
    if basic:
        headers["Authorization"] = "Basic " + base64.b64encode(basic.encode()).decode()
    if payload is not None:
        data = json.dumps(payload).encode()
        headers["Content-Type"] = "application/json"
    if form is not None:
        data = form.encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    r = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(r, timeout=5) as resp:
            txt = resp.read().decode()
            return resp.status, json.loads(txt) if txt else None
    except HTTPError as e:
        return e.code, None


def main():
    rdm = os.environ["LCKIT_RDM_URL"].rstrip("/")
    tenant = os.environ["LCKIT_TENANT"]
    st, tok = _req("POST", os.environ["LCKIT_TOKEN_URL"],
                   basic=os.environ["LCKIT_CLIENT_ID"] + ":" + os.environ["LCKIT_CLIENT_SECRET"],
                   form="grant_type=client_credentials")
    if st != 200:
        print("no token (%s)" % st, file=sys.stderr)
        return 1
    token = tok["access_token"]

    doomed = []
    scroll = None
    for _ in range(100):
        st, page = _req("POST", "%s/lookups/%s/_scan?limit=100&sort=updateDate&order=asc" % (rdm, tenant),
                        token=token, payload=scroll)
        if st != 200:
            print("scan failed (%s)" % st, file=sys.stderr)
            return 1
        values = page.get("values") or []
        for lk in values:
            if not lk.get("enabled", True):
                # lookup type URI + code identifies the lookup (as in the parents field)
                doomed.append("%s/%s" % (lk["type"], lk["code"]))
        scroll = page.get("scrollId")
        if not scroll or not values:
            break

    print("%d disabled lookups" % len(doomed))
    if doomed:
        st, task = _req("POST", "%s/tasks/%s" % (rdm, tenant), token=token,
                        payload={"type": "delete", "parameters": {"uris": doomed}})
        if st >= 300:
            print("task refused (%s)" % st, file=sys.stderr)
            return 1
        print("task:", json.dumps(task))
    return 0


if __name__ == "__main__":
    sys.exit(main())
