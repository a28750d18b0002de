#!/usr/bin/env python3
"""Lookup code retirement (master-data team). Python 3.11 stdlib only.

Retires the four highest codes of one lookup type (where the team appends temporary codes), two per
delete task, then checks code by code that they are gone. A client without the delete privilege gets
a dry run.

Choices where the interface leaves room:
- the type is read sorted by code desc; each delete task lists two lookup URIs;
- a fresh token is requested for the delete phase, so that a long read never leaves it expiring
  between the tasks; otherwise tokens are renewed at 80% of their lifetime or on a 401;
- the check filters by code (equals(code,'<code>')), never trusting the filter alone.
"""

JOB = "e08"
import base64
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


def need(name):
    value = os.environ.get(name)
    if not value:
        sys.exit(f"{JOB}: environment variable {name} is not set")
    return value


BASE = need("LCKIT_BASE_URL").rstrip("/")
RDM = need("LCKIT_RDM_URL").rstrip("/")
TOKEN_URL = need("LCKIT_TOKEN_URL")
BASIC = base64.b64encode(f"{need('LCKIT_CLIENT_ID')}:{need('LCKIT_CLIENT_SECRET')}".encode()).decode()
TENANT = need("LCKIT_TENANT")
TYPE = need("LCKIT_LOOKUP_TYPE")
T = urllib.parse.quote(TENANT, safe="")


class Failure(Exception):
    pass


def http(method, url, body=None, headers=None):
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=60) as res:
            return res.status, res.read().decode("utf-8", "replace"), res.headers
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode("utf-8", "replace"), err.headers


def wait_seconds(headers, attempt):
    try:
        seconds = float(headers.get("Retry-After") or 0)
    except ValueError:
        seconds = 0
    return seconds if seconds > 0 else 2**attempt


class Api:
    def __init__(self):
        self.token = None
        self.renew_at = 0.0

    def new_token(self):
        for attempt in range(7):
            status, text, headers = http(
                "POST",
                TOKEN_URL,
                b"grant_type=client_credentials",
                {"Authorization": f"Basic {BASIC}", "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
            )
            if status == 200:
                body = json.loads(text)
                ttl = float(body.get("expires_in") or 3600)
                self.token = body["access_token"]
                self.renew_at = time.time() + ttl * 0.8
                return
            if status == 429 and attempt < 6:
                # active-token quota reached (or a burst limit): wait for a token to expire
                time.sleep(wait_seconds(headers, attempt))
                continue
            raise Failure(f"token request failed: HTTP {status} {text[:200]}")

    def call(self, method, url, body=None):
        renewed = False
        attempt = 0
        while True:
            if self.token is None or time.time() >= self.renew_at:
                self.new_token()
            headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
            data = None
            if body is not None:
                data = body.encode() if isinstance(body, str) else body
                headers["Content-Type"] = "application/json"
            status, text, resp_headers = http(method, url, data, headers)
            if status == 401 and not renewed:
                renewed = True
                self.new_token()
                continue
            if status == 429 and attempt < 5:
                attempt += 1
                time.sleep(wait_seconds(resp_headers, attempt - 1))
                continue
            return status, text


def parse(result, what):
    status, text = result
    if not 200 <= status < 300:
        raise Failure(f"{what}: HTTP {status} {text[:200]}")
    try:
        return json.loads(text) if text else None
    except ValueError:
        raise Failure(f"{what}: response is not JSON: {text[:200]}") from None


raw_scroll = False  # some deployments take the bare scroll id instead of {"scrollId": ...}


def scan(api, url, what):
    global raw_scroll
    rows = []
    page = parse(api.call("POST", url), what)
    while True:
        values = page.get("values") if isinstance(page, dict) else None
        values = values if isinstance(values, list) else []
        rows.extend(values)
        sid = page.get("scrollId") if isinstance(page, dict) else None
        if not isinstance(sid, str) or not sid or not values:
            return rows
        result = api.call("POST", url, sid if raw_scroll else json.dumps({"scrollId": sid}))
        if result[0] == 400 and not raw_scroll:
            raw_scroll = True
            result = api.call("POST", url, sid)
        page = parse(result, what)


RETIRE = 4
PER_TASK = 2


def main():
    api = Api()
    query = urllib.parse.urlencode({"filter": f"equals(type,'{TYPE}')", "sort": "code", "order": "desc", "limit": 100})
    rows = scan(api, f"{RDM}/lookups/{T}/_scan?{query}", "lookup scan")
    codes = sorted({r.get("code") for r in rows if r.get("code")}, reverse=True)[:RETIRE]
    if not codes:
        raise Failure(f"no lookups of type {TYPE}")
    uris = [f"{TENANT}/{TYPE}/{code}" for code in codes]
    api.new_token()  # fresh token for the write phase
    for i in range(0, len(uris), PER_TASK):
        batch = uris[i : i + PER_TASK]
        status, text = api.call("POST", f"{RDM}/tasks/{T}", json.dumps({"type": "delete", "parameters": {"uris": batch}}))
        if status in (401, 403):
            print(f"{JOB}: this client may not delete lookups (HTTP {status}); dry run, would retire {', '.join(uris)}")
            return
        parse((status, text), "delete task")
        print(f"{JOB}: delete task accepted for {', '.join(batch)}")
    pending = set(codes)
    for _ in range(10):
        for code in sorted(pending):
            query = urllib.parse.urlencode({"filter": f"equals(code,'{code}')", "limit": 100})
            found = scan(api, f"{RDM}/lookups/{T}/_scan?{query}", "lookup check")
            if not any(r.get("code") == code and str(r.get("type", "")).endswith(f"/{TYPE}") for r in found):
                pending.discard(code)
        if not pending:
            print(f"{JOB}: retired {', '.join(codes)}")
            return
        time.sleep(1)
    print(f"{JOB}: tasks accepted; still listed: {', '.join(sorted(pending))} (the deletion may still be running)")


if __name__ == "__main__":
    try:
        main()
    except Failure as err:
        sys.exit(f"{JOB}: {err}")
