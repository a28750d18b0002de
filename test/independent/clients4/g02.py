"""Weekly autopilot report: how many unmapped values the autopilot resolved per status and
source, across all lookup types of the tenant. Prints a small text table."""

import base64
import collections
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

PAGE_SIZE = 500  # fewer round trips for the weekly pull


def env(name):
    value = os.environ.get(name)
    if not value:
        sys.exit(f"report: {name} is not set")
    return value


BASE = env("LCKIT_BASE_URL").rstrip("/")
TOKEN_URL = env("LCKIT_TOKEN_URL")
CLIENT_ID = env("LCKIT_CLIENT_ID")
CLIENT_SECRET = env("LCKIT_CLIENT_SECRET")
TENANT = env("LCKIT_TENANT")


def token():
    basic = base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
    req = urllib.request.Request(
        TOKEN_URL,
        data=b"grant_type=client_credentials",
        headers={"Authorization": f"Basic {basic}", "Content-Type": "application/x-www-form-urlencoded"},
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=20) as resp:
        return json.load(resp)["access_token"]


def post_scan(access_token, page_size, scroll_id=None):
    url = f"{BASE}/configuration/{urllib.parse.quote(TENANT, safe='')}/autopilot/stats/_scan?limit={page_size}"
    headers = {"Authorization": f"Bearer {access_token}", "Accept": "application/json"}
    data = None
    if scroll_id is not None:
        data = json.dumps({"scrollId": scroll_id}).encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(url, data=data, headers=headers, method="POST")
    with urllib.request.urlopen(req, timeout=20) as resp:
        return json.load(resp)


def all_statistics(access_token):
    page_size = PAGE_SIZE
    try:
        page = post_scan(access_token, page_size)
    except urllib.error.HTTPError as err:
        if err.code != 400:
            raise
        # some environments cap the page size; use their cap
        page_size = 100
        page = post_scan(access_token, page_size)
    records = list(page.get("values") or [])
    for _ in range(1000):
        scroll_id = page.get("scrollId")
        if not scroll_id or not page.get("values"):
            break
        page = post_scan(access_token, page_size, scroll_id)
        records.extend(page.get("values") or [])
    return records


def main():
    try:
        records = all_statistics(token())
    except urllib.error.HTTPError as err:
        sys.exit(f"report: HTTP {err.code} from {err.url}: {err.read()[:200]!r}")
    except urllib.error.URLError as err:
        sys.exit(f"report: cannot reach the service: {err.reason}")
    by_status = collections.Counter(r.get("status", "?") for r in records)
    by_source = collections.Counter((r.get("lookupType", "?"), r.get("source", "?")) for r in records)
    print(f"autopilot report for tenant {TENANT}: {len(records)} statistics")
    for status, n in by_status.most_common():
        print(f"  {status:<20} {n:>6}")
    for (lookup_type, source), n in sorted(by_source.items()):
        print(f"  {lookup_type}/{source:<20} {n:>6}")
    if not records:
        sys.exit("report: no statistics returned")


if __name__ == "__main__":
    main()
