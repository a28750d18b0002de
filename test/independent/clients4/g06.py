"""Nightly cleanup of disabled lookups: finds the lookups of the watched lookup type that are
switched off and removes them through delete tasks, by URI, in small batches.
Needs a client that may delete lookups (ROLE_RDM_EDIT)."""

import base64
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

BATCH = 25  # the change board wants small, reviewable tasks
TIMEOUT = 15

cfg = {k: os.environ.get(k, "") for k in ("LCKIT_RDM_URL", "LCKIT_TOKEN_URL", "LCKIT_CLIENT_ID", "LCKIT_CLIENT_SECRET", "LCKIT_TENANT", "LCKIT_LOOKUP_TYPE")}
if not all(cfg.values()):
    sys.exit("cleanup: environment incomplete: " + ", ".join(k for k, v in cfg.items() if not v))

RDM = cfg["LCKIT_RDM_URL"].rstrip("/")
TENANT = cfg["LCKIT_TENANT"]
TYPE_NAME = cfg["LCKIT_LOOKUP_TYPE"]
TYPE_URI = f"rdm/lookupTypes/{TYPE_NAME}"


class HttpFailure(Exception):
    def __init__(self, status, body):
        super().__init__(f"HTTP {status}: {body[:300]}")
        self.status = status


def send(url, method="POST", body=None, headers=None):
    req = urllib.request.Request(url, data=body, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
            raw = resp.read()
            return resp.status, resp.headers, raw
    except urllib.error.HTTPError as err:
        return err.code, err.headers, err.read()


def fetch_token():
    """grant_type in the query string with Basic credentials and no body; if the server insists on
    a form body, send the same grant as a form."""
    basic = base64.b64encode(f"{cfg['LCKIT_CLIENT_ID']}:{cfg['LCKIT_CLIENT_SECRET']}".encode()).decode()
    auth = {"Authorization": "Basic " + basic}
    sep = "&" if "?" in cfg["LCKIT_TOKEN_URL"] else "?"
    status, _, raw = send(cfg["LCKIT_TOKEN_URL"] + sep + "grant_type=client_credentials", headers=auth)
    refused_for_quota = b"limit" in raw.lower() or b"quota" in raw.lower()
    if status in (400, 405, 415) and not refused_for_quota:
        status, _, raw = send(
            cfg["LCKIT_TOKEN_URL"],
            body=b"grant_type=client_credentials",
            headers={**auth, "Content-Type": "application/x-www-form-urlencoded"},
        )
    if status != 200:
        raise HttpFailure(status, raw.decode("utf-8", "replace"))
    return json.loads(raw)["access_token"]


class Api:
    # forms of the next-page body: {"scrollId": id}, the id as a JSON string, the bare id as text
    SCROLL_FORMS = (
        lambda sid: ("application/json", json.dumps({"scrollId": sid}).encode()),
        lambda sid: ("application/json", json.dumps(sid).encode()),
        lambda sid: ("text/plain", sid.encode()),
    )

    def __init__(self):
        self.token = fetch_token()
        self.scroll_form = 0

    def next_page(self, url, scroll_id):
        """Continue a scroll; a 400 makes it try the other body forms once (deployments differ)."""
        for k in range(len(self.SCROLL_FORMS)):
            i = (self.scroll_form + k) % len(self.SCROLL_FORMS)
            content_type, body = self.SCROLL_FORMS[i](scroll_id)
            try:
                page = self.post(url, raw_body=body, content_type=content_type)
            except HttpFailure as err:
                if err.status == 400 and k + 1 < len(self.SCROLL_FORMS):
                    continue
                raise
            self.scroll_form = i
            return page

    def post(self, url, payload=None, has_body=False, raw_body=None, content_type=None):
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        body = None
        if has_body:
            body = json.dumps(payload).encode()
            headers["Content-Type"] = "application/json"
        elif raw_body is not None:
            body = raw_body
            headers["Content-Type"] = content_type
        for attempt in range(4):
            status, resp_headers, raw = send(url, body=body, headers=headers)
            if status == 429 and attempt < 3:
                told = resp_headers.get("Retry-After")
                try:
                    wait = float(told) if told is not None else 0.5 * (attempt + 1)
                except ValueError:
                    wait = -1
                if not 0 <= wait <= 5:
                    raise HttpFailure(429, f"rate limited, Retry-After {told}")
                time.sleep(wait)
                continue
            if status >= 300:
                raise HttpFailure(status, raw.decode("utf-8", "replace"))
            return json.loads(raw) if raw.strip() else None
        raise HttpFailure(429, "rate limited")


def disabled_codes(api):
    # no filter: what equals(type, ...) matches (name or URI) differs between deployments, so the
    # job reads the tenant's lookups and picks the type itself
    query = urllib.parse.urlencode({"sort": "code", "order": "desc", "limit": 100})
    url = f"{RDM}/lookups/{urllib.parse.quote(TENANT, safe='')}/_scan?{query}"
    codes = []
    page = api.post(url)
    for _ in range(1000):
        for lookup in page.get("values") or []:
            same_type = lookup.get("type") in (TYPE_URI, TYPE_NAME)
            if same_type and lookup.get("enabled") is False:
                codes.append(lookup["code"])
        scroll_id = page.get("scrollId")
        if not isinstance(scroll_id, str) or not scroll_id:
            return codes
        page = api.next_page(url, scroll_id)
    raise RuntimeError("lookup scan did not end")


def main():
    try:
        api = Api()
        codes = disabled_codes(api)
        tasks = []
        for i in range(0, len(codes), BATCH):
            uris = [f"{TENANT}/{TYPE_NAME}/{code}" for code in codes[i : i + BATCH]]
            task = api.post(
                f"{RDM}/tasks/{urllib.parse.quote(TENANT, safe='')}",
                {"type": "delete", "parameters": {"uris": uris}},
                has_body=True,
            )
            tasks.append(task.get("id") if isinstance(task, dict) else None)
    except (HttpFailure, urllib.error.URLError, RuntimeError) as err:
        sys.exit(f"cleanup: {err}")
    print(json.dumps({"tenant": TENANT, "type": TYPE_NAME, "disabled": len(codes), "tasks": tasks}))


if __name__ == "__main__":
    main()
