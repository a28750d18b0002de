#!/usr/bin/env python3
"""Tenant reset tool (data-ops team). Standard library only.

Reads what the tenant holds, then wipes every lookup of the tenant with one delete task that has no
parameters, and polls until the tenant scan comes back empty.
"""
import base64
import json
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


def parse_json(raw):
    """JSON, except /version, whose number may be unquoted ({"rdm-service": 2016.3.0.0.1})."""
    try:
        return json.loads(raw)
    except ValueError:
        m = re.search(r'"rdm-service"\s*:\s*"?([0-9][0-9.]*)', raw)
        if m:
            return {"rdm-service": m.group(1)}
        raise


class ApiError(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class LookupClient:
    def __init__(self):
        env = os.environ
        self.base = env.get("LCKIT_BASE_URL", "").rstrip("/")
        self.rdm = env.get("LCKIT_RDM_URL", "").rstrip("/")
        self.token_url = env.get("LCKIT_TOKEN_URL") or self.base + "/oauth/token"
        self.client_id = env.get("LCKIT_CLIENT_ID", "")
        self.secret = env.get("LCKIT_CLIENT_SECRET", "")
        self.tenant = env.get("LCKIT_TENANT", "")
        self.lookup_type = env.get("LCKIT_LOOKUP_TYPE", "")
        if not (self.base and self.rdm and self.tenant and self.lookup_type):
            raise SystemExit("error: LCKIT_BASE_URL, LCKIT_RDM_URL, LCKIT_TENANT and LCKIT_LOOKUP_TYPE must be set")
        self._token = None
        self._expires = 0.0
        # The scroll id goes in the body as a JSON string; if the service refuses that we try {"scrollId": ...},
        # then the raw id as text (the document leaves the encoding open).
        self.scroll_encodings = ["json-string", "object", "raw"]

    def _send(self, req):
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                raw = resp.read().decode("utf-8")
                return parse_json(raw) if raw.strip() else None
        except urllib.error.HTTPError as err:
            raise ApiError(err.code, "%s %s -> %s %s" % (req.get_method(), req.full_url, err.code, err.read()[:200]))

    def token(self, force=False):
        if force or self._token is None or time.time() > self._expires:
            creds = base64.b64encode(("%s:%s" % (self.client_id, self.secret)).encode()).decode()
            req = urllib.request.Request(
                self.token_url,
                data=urllib.parse.urlencode({"grant_type": "client_credentials"}).encode(),
                headers={"Authorization": "Basic " + creds, "Content-Type": "application/x-www-form-urlencoded"},
                method="POST",
            )
            body = self._send(req)
            self._token = body["access_token"]
            self._expires = time.time() + float(body.get("expires_in") or 3600) * 0.9
        return self._token

    def request(self, method, url, body=None, raw_text=False):
        data = None if body is None else (body.encode() if raw_text else json.dumps(body).encode())
        for attempt in (0, 1):
            headers = {"Authorization": "Bearer " + self.token(force=attempt == 1), "Accept": "application/json"}
            if data is not None:
                headers["Content-Type"] = "text/plain" if raw_text else "application/json"
            try:
                return self._send(urllib.request.Request(url, data=data, headers=headers, method=method))
            except ApiError as err:
                if err.status != 401 or attempt == 1:
                    raise

    def scan(self, url):
        """Counts the records of a scan; the first request carries no body."""
        count, scroll, first = 0, None, True
        while True:
            if first:
                page = self.request("POST", url)
            else:
                enc = self.scroll_encodings[0]
                try:
                    if enc == "object":
                        page = self.request("POST", url, {"scrollId": scroll})
                    else:
                        page = self.request("POST", url, scroll, raw_text=enc == "raw")
                except ApiError as err:
                    if len(self.scroll_encodings) == 1 or err.status not in (400, 415, 422):
                        raise
                    self.scroll_encodings.pop(0)
                    print("note: scroll id encoding %s refused, trying %s" % (enc, self.scroll_encodings[0]), file=sys.stderr)
                    continue
            first = False
            values = (page or {}).get("values") or []
            count += len(values)
            scroll = (page or {}).get("scrollId")
            if not scroll or not values:
                return count

    def lookups_url(self, **params):
        q = urllib.parse.urlencode(params)
        return "%s/lookups/%s/_scan%s" % (self.rdm, urllib.parse.quote(self.tenant, safe=""), "?" + q if q else "")


def main():
    c = LookupClient()
    t = urllib.parse.quote(c.tenant, safe="")
    lt = urllib.parse.quote(c.lookup_type, safe="")
    report = {"version": (c.request("GET", c.rdm + "/version") or {}).get("rdm-service")}
    report["healthcheck"] = (c.request("GET", c.rdm + "/healthcheck") or {}).get("status")
    report["statsOfType"] = c.scan("%s/configuration/%s/autopilot/stats/%s/_scan" % (c.base, t, lt))
    report["statsAll"] = c.scan("%s/configuration/%s/autopilot/stats/_scan" % (c.base, t))
    blocked_url = "%s/configuration/%s/autopilot/%s/blockedValues" % (c.base, t, lt)
    report["blocked"] = 0
    while True:  # offset is an item offset; pages of 64, the last one is short
        page = c.request("GET", "%s?offset=%d&limit=64" % (blocked_url, report["blocked"])) or []
        report["blocked"] += len(page)
        if len(page) < 64:
            break
    report["lookupsBefore"] = c.scan(c.lookups_url(limit=100, sort="code", order="asc"))
    report["task"] = c.request("POST", "%s/tasks/%s" % (c.rdm, t), {"type": "delete"})
    for _ in range(20):
        report["lookupsAfter"] = c.scan(c.lookups_url(limit=100))
        if report["lookupsAfter"] == 0:
            break
        time.sleep(0.5)
    print(json.dumps(report, default=str))


if __name__ == "__main__":
    try:
        main()
    except (ApiError, ValueError) as exc:
        print("error: %s" % exc, file=sys.stderr)
        sys.exit(1)
