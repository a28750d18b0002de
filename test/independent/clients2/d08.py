#!/usr/bin/env python3
"""Cleanup job (catalog team): deletes stale codes of a lookup type. stdlib only."""
import base64
import dataclasses
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


@dataclasses.dataclass
class Settings:
    base: str
    rdm: str
    token_url: str
    client_id: str
    client_secret: str
    tenant: str
    lookup_type: str

    @classmethod
    def from_env(cls):
        e = os.environ
        missing = [k for k in ("LCKIT_BASE_URL", "LCKIT_RDM_URL", "LCKIT_TENANT", "LCKIT_LOOKUP_TYPE") if not e.get(k)]
        if missing:
            raise SystemExit("error: missing environment variables: " + ", ".join(missing))
        base = e["LCKIT_BASE_URL"].rstrip("/")
        return cls(base, e["LCKIT_RDM_URL"].rstrip("/"), e.get("LCKIT_TOKEN_URL") or base + "/oauth/token",
                   e.get("LCKIT_CLIENT_ID", ""), e.get("LCKIT_CLIENT_SECRET", ""), e["LCKIT_TENANT"], e["LCKIT_LOOKUP_TYPE"])


class Http:
    def __init__(self, s):
        self.s = s
        self.token = None
        self.deadline = 0
        self.raw_scroll = False  # {"scrollId": ...} first; the raw id as text if the service refuses that

    def _bearer(self):
        if self.token is None or time.monotonic() >= self.deadline:
            body = urllib.parse.urlencode({"grant_type": "client_credentials", "client_id": self.s.client_id,
                                           "client_secret": self.s.client_secret}).encode()
            basic = base64.b64encode(("%s:%s" % (self.s.client_id, self.s.client_secret)).encode()).decode()
            req = urllib.request.Request(self.s.token_url, data=body, method="POST", headers={
                "Content-Type": "application/x-www-form-urlencoded", "Authorization": "Basic " + basic})
            with urllib.request.urlopen(req, timeout=30) as r:
                tok = json.load(r)
            self.token = tok["access_token"]
            self.deadline = time.monotonic() + 0.9 * float(tok.get("expires_in") or 3600)
        return self.token

    def json(self, method, url, body=None, raw_text=None):
        data = raw_text.encode() if raw_text is not None else None if body is None else json.dumps(body).encode()
        headers = {"Authorization": "Bearer " + self._bearer()}
        if data is not None:
            headers["Content-Type"] = "text/plain" if raw_text is not None else "application/json"
        try:
            with urllib.request.urlopen(urllib.request.Request(url, data=data, method=method, headers=headers), timeout=30) as r:
                raw = r.read()
        except urllib.error.HTTPError as err:
            if err.code in (400, 415, 422) and body is not None and "scrollId" in body and not self.raw_scroll:
                self.raw_scroll = True
                return self.json(method, url, raw_text=body["scrollId"])
            raise SystemExit("error: %s %s -> HTTP %d %s" % (method, url, err.code, err.read()[:200].decode(errors="replace")))
        return json.loads(raw) if raw.strip() else None


def lookup_codes(http, s):
    url = "%s/lookups/%s/_scan?%s" % (s.rdm, urllib.parse.quote(s.tenant, safe=""), urllib.parse.urlencode(
        {"filter": "equals(type,'%s')" % s.lookup_type, "limit": 100, "sort": "code", "order": "desc"}))
    codes, page = [], http.json("POST", url)
    while True:
        values = (page or {}).get("values") or []
        codes += [v.get("code") for v in values if isinstance(v, dict)]
        if not values or not (page or {}).get("scrollId"):
            return codes
        if http.raw_scroll:
            page = http.json("POST", url, raw_text=page["scrollId"])
        else:
            page = http.json("POST", url, {"scrollId": page["scrollId"]})


def main():
    s = Settings.from_env()
    http = Http(s)
    before = lookup_codes(http, s)
    stale = [c for c in before if c][:3]
    if not stale:
        raise SystemExit("error: the lookup type %s has no lookups to delete" % s.lookup_type)
    uris = ",".join("%s/%s/%s" % (s.tenant, s.lookup_type, c) for c in stale)
    task = http.json("POST", "%s/tasks/%s" % (s.rdm, urllib.parse.quote(s.tenant, safe="")),
                     {"type": "delete", "parameters": {"uris": uris}})
    after = before
    for _ in range(20):
        after = lookup_codes(http, s)
        if len(after) <= len(before) - len(stale):
            break
        time.sleep(0.5)
    print(json.dumps({"deleted": stale, "task": task, "before": len(before), "after": len(after)}, default=str))


if __name__ == "__main__":
    main()
