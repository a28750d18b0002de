#!/usr/bin/env python3
"""Mapping-gap report for data stewards: all autopilot statistics of the tenant (all types), joined with
the lookups of the configured type, written as a JSON document on stdout."""
import base64
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections import defaultdict


def env(name):
    value = os.environ.get(name)
    if not value:
        sys.exit("missing %s" % name)
    return value


class TokenHolder:
    """Holds the token response and renders the Authorization header from it."""

    def __init__(self):
        self.reply = None

    def fetch(self):
        auth = base64.b64encode(("%s:%s" % (env("LCKIT_CLIENT_ID"), env("LCKIT_CLIENT_SECRET"))).encode()).decode()
        req = urllib.request.Request(env("LCKIT_TOKEN_URL"), method="POST",
                                     data=b"grant_type=client_credentials",
                                     headers={"Authorization": "Basic " + auth,
                                              "Content-Type": "application/x-www-form-urlencoded"})
        with urllib.request.urlopen(req, timeout=5) as resp:
            self.reply = json.loads(resp.read())

    def header(self):
        if self.reply is None:
            self.fetch()
        # use the scheme the server told us in token_type
        return "%s %s" % (self.reply.get("token_type", "Bearer"), self.reply["access_token"])


def scan(holder, url):
    results = []
    next_body = None
    for _ in range(100):
        data = json.dumps(next_body).encode() if next_body is not None else None
        headers = {"Authorization": holder.header()}
        if data:
            headers["Content-Type"] = "application/json"
        try:
            with urllib.request.urlopen(urllib.request.Request(url, data=data, method="POST", headers=headers),
                                        timeout=5) as resp:
                page = json.loads(resp.read())
        except urllib.error.HTTPError as err:
            if err.code != 401:
                raise
            err.read()
            holder.fetch()  # the token ran out; take a new one and repeat this page
            headers["Authorization"] = holder.header()
            with urllib.request.urlopen(urllib.request.Request(url, data=data, method="POST", headers=headers),
                                        timeout=5) as resp:
                page = json.loads(resp.read())
        results += page.get("values") or []
        if not page.get("scrollId") or not page.get("values"):
            break
        next_body = {"scrollId": page["scrollId"]}
    return results


def main():
    holder = TokenHolder()
    tenant = urllib.parse.quote(env("LCKIT_TENANT"), safe="")
    ltype = env("LCKIT_LOOKUP_TYPE")
    stats = scan(holder, "%s/configuration/%s/autopilot/stats/_scan?limit=100&sort=lookupType&order=asc"
                 % (env("LCKIT_BASE_URL").rstrip("/"), tenant))
    filt = urllib.parse.quote("equals(type,'rdm/lookupTypes/%s')" % ltype)
    lookups = scan(holder, "%s/lookups/%s/_scan?filter=%s&limit=100" % (env("LCKIT_RDM_URL").rstrip("/"), tenant, filt))
    codes = {lk["code"] for lk in lookups}
    gaps = defaultdict(list)
    for st in stats:
        if st.get("lookupType") == ltype and st.get("candidateLookupCode") not in codes:
            gaps[st.get("source", "?")].append(st.get("unmappedValue"))
    json.dump({"type": ltype, "lookups": len(codes), "statistics": len(stats), "gaps": gaps}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
