#!/usr/bin/env python3
"""'What changed lately' feed: reads the lookups of the tenant newest code last-first, keeps the 15 most
recently updated ones and prints them with their updater."""
import base64
import datetime
import heapq
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

CLIENT = (os.environ["LCKIT_CLIENT_ID"], os.environ["LCKIT_CLIENT_SECRET"])
RDM = os.environ["LCKIT_RDM_URL"].rstrip("/")
TENANT = os.environ["LCKIT_TENANT"]
SORT_FIELD = "code"
SORT_DIRECTION = "DESC"
KEEP = 15


def _call(url, *, data=None, headers=None, method="POST"):
    req = urllib.request.Request(url, data=data, headers=headers or {}, method=method)
    with urllib.request.urlopen(req, timeout=5) as resp:
        raw = resp.read()
    return json.loads(raw) if raw else None


def access_token():
    basic = base64.b64encode(("%s:%s" % CLIENT).encode("utf-8")).decode("ascii")
    reply = _call(os.environ["LCKIT_TOKEN_URL"],
                  data=urllib.parse.urlencode({"grant_type": "client_credentials"}).encode(),
                  headers={"Authorization": "Basic " + basic,
                           "Content-Type": "application/x-www-form-urlencoded"})
    return reply["access_token"]


def newest(token):
    holder = {"token": token}

    def post_page(url, body):
        for attempt in range(2):
            hdrs = {"Authorization": "Bearer " + holder["token"]}
            if body is not None:
                hdrs["Content-Type"] = "application/json"
            try:
                return _call(url, data=body, headers=hdrs)
            except urllib.error.HTTPError as exc:
                if exc.code != 401 or attempt:
                    raise
                holder["token"] = access_token()

    query = urllib.parse.urlencode({"limit": 60, "sort": SORT_FIELD, "order": SORT_DIRECTION})
    url = "%s/lookups/%s/_scan?%s" % (RDM, urllib.parse.quote(TENANT, safe=""), query)
    heap = []
    scroll = None
    pages = 0
    while pages < 100:
        pages += 1
        body = None if scroll is None else json.dumps(scroll).encode()
        page = post_page(url, body)
        for lk in page.get("values") or []:
            item = (lk.get("updateDate") or 0, lk.get("code"), lk.get("type"), lk.get("updatedBy"))
            if len(heap) < KEEP:
                heapq.heappush(heap, item)
            else:
                heapq.heappushpop(heap, item)
        scroll = page.get("scrollId")
        if not scroll or not page.get("values"):
            break
    return sorted(heap, reverse=True)


def main():
    for when, code, ltype, who in newest(access_token()):
        ts = datetime.datetime.fromtimestamp(when / 1000, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")
        print("%s  %-28s %-10s %s" % (ts, (ltype or "").rsplit("/", 1)[-1], code, who))
    return 0


if __name__ == "__main__":
    sys.exit(main())
