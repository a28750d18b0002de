#!/usr/bin/env python3
"""Uptime probe for the lookup-data service: checks healthcheck, status and version, then proves the
data path works by reading the first page of the tenant's lookups. Prints one status line."""
import base64
import json
import os
import sys
import time
import urllib.error
import urllib.request

RDM = os.environ["LCKIT_RDM_URL"].rstrip("/")


def get(path, headers=None):
    req = urllib.request.Request(RDM + path, headers=headers or {})
    started = time.monotonic()
    with urllib.request.urlopen(req, timeout=4) as resp:
        payload = json.loads(resp.read() or b"null")
    return payload, int((time.monotonic() - started) * 1000)


def bearer():
    cred = base64.b64encode(("%s:%s" % (os.environ["LCKIT_CLIENT_ID"],
                                        os.environ["LCKIT_CLIENT_SECRET"])).encode()).decode()
    req = urllib.request.Request(os.environ["LCKIT_TOKEN_URL"] + "?grant_type=client_credentials",
                                 data=b"", method="POST", headers={"Authorization": "Basic " + cred})
    with urllib.request.urlopen(req, timeout=4) as resp:
        return json.loads(resp.read())["access_token"]


def main():
    results = {}
    try:
        # liveness endpoints are probed anonymously, like the load balancer does
        for name in ("healthcheck", "status", "version"):
            results[name] = get("/" + name)
        tok = bearer()
        req = urllib.request.Request(
            "%s/lookups/%s/_scan?limit=1" % (RDM, os.environ["LCKIT_TENANT"]),
            method="POST", headers={"Authorization": "Bearer " + tok})
        t0 = time.monotonic()
        with urllib.request.urlopen(req, timeout=4) as resp:
            first = json.loads(resp.read())
        results["scan"] = (len(first.get("values") or []), int((time.monotonic() - t0) * 1000))
    except (urllib.error.URLError, OSError, ValueError) as err:
        print("DOWN %s" % err)
        return 1
    ok = (results["healthcheck"][0] or {}).get("status") == "OK" and (results["status"][0] or {}).get("status") == "OK"
    print("%s version=%s health=%dms status=%dms version=%dms scan=%d rows/%dms" % (
        "UP" if ok else "DEGRADED", (results["version"][0] or {}).get("rdm-service"),
        results["healthcheck"][1], results["status"][1], results["version"][1],
        results["scan"][0], results["scan"][1]))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
