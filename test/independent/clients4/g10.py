"""Blocked-values review for the data stewards: lists the blocked values of the watched lookup
type and flags those the autopilot still reports statistics for (a blocked value should no longer
be processed). Prints the review as JSON; exits 1 if the service could not be read."""

import base64
import json
import os
import random
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

OFFSET_PAGE = 25  # blocked values per request
SCAN_PAGE = 60  # statistics per scan page


def required(name):
    value = os.environ.get(name, "").strip()
    if not value:
        print(f"review: {name} missing", file=sys.stderr)
        sys.exit(2)
    return value


BASE = required("LCKIT_BASE_URL").rstrip("/")
TOKEN_URL = required("LCKIT_TOKEN_URL")
CLIENT_ID = required("LCKIT_CLIENT_ID")
CLIENT_SECRET = required("LCKIT_CLIENT_SECRET")
TENANT = required("LCKIT_TENANT")
TYPE_NAME = required("LCKIT_LOOKUP_TYPE")


class HttpStatus(RuntimeError):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class Client:
    def __init__(self):
        self._token = None
        self.calls = 0
        self.scroll_form = 0

    def _new_token(self):
        form = urllib.parse.urlencode({"grant_type": "client_credentials"}).encode("ascii")
        basic = base64.b64encode(
            (urllib.parse.quote(CLIENT_ID, safe="") + ":" + urllib.parse.quote(CLIENT_SECRET, safe="")).encode()
        ).decode("ascii")
        req = urllib.request.Request(
            TOKEN_URL,
            data=form,
            method="POST",
            headers={
                "Authorization": "Basic " + basic,
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/json",
            },
        )
        with urllib.request.urlopen(req, timeout=15) as resp:
            body = json.load(resp)
        if str(body.get("token_type", "bearer")).lower() != "bearer":
            raise RuntimeError("token endpoint returned a non-bearer token")
        self._token = body["access_token"]

    def next_page(self, path, scroll_id):
        """Continue a scroll with the bare scroll id as a JSON string; if the deployment refuses
        that with 400, try {"scrollId": ...} and then the id as plain text, and keep what works."""
        forms = (
            ("application/json; charset=utf-8", json.dumps(scroll_id)),
            ("application/json; charset=utf-8", json.dumps({"scrollId": scroll_id})),
            ("text/plain; charset=utf-8", scroll_id),
        )
        for k in range(len(forms)):
            i = (self.scroll_form + k) % len(forms)
            try:
                page = self.call("POST", path, raw=forms[i])
            except HttpStatus as err:
                if err.code == 400 and k + 1 < len(forms):
                    continue
                raise
            self.scroll_form = i
            return page
        return None

    def call(self, method, path, raw=None):
        """One request; 429 is retried with jittered exponential back-off (Retry-After wins when
        given), and a 401 once with a new token (the old one may have expired)."""
        if self._token is None:
            self._new_token()
        renewed = False
        delay = 0.3
        for attempt in range(6):
            headers = {"Authorization": "Bearer " + self._token, "Accept": "application/json"}
            data = None
            if raw is not None:
                headers["Content-Type"] = raw[0]
                data = raw[1].encode("utf-8")
            req = urllib.request.Request(BASE + path, data=data, method=method, headers=headers)
            self.calls += 1
            try:
                with urllib.request.urlopen(req, timeout=15) as resp:
                    raw = resp.read()
                    return json.loads(raw) if raw.strip() else None
            except urllib.error.HTTPError as err:
                detail = err.read()[:300]
                if err.code == 429 and attempt < 5:
                    retry_after = err.headers.get("Retry-After")
                    if retry_after is not None and not retry_after.strip().isdigit():
                        raise RuntimeError(f"{path}: rate limited until {retry_after}") from None
                    wait = float(retry_after) if retry_after is not None else delay
                    if wait > 15:
                        raise RuntimeError(f"{path}: rate limited for {wait} s") from None
                    time.sleep(wait + random.uniform(0, 0.2))
                    delay *= 2
                    continue
                if err.code == 401 and not renewed:
                    renewed = True
                    self._new_token()
                    continue
                raise HttpStatus(err.code, f"{method} {path}: HTTP {err.code} {detail!r}") from None
        raise RuntimeError(f"{path}: gave up after retries")


def blocked_values(client):
    path = f"/configuration/{urllib.parse.quote(TENANT, safe='')}/autopilot/{urllib.parse.quote(TYPE_NAME, safe='')}/blockedValues"
    out = []
    offset = 0
    for _ in range(2000):
        page = client.call("GET", f"{path}?{urllib.parse.urlencode({'offset': offset, 'limit': OFFSET_PAGE})}")
        if not isinstance(page, list) or not page:
            return out
        out.extend(page)
        offset += len(page)
    raise RuntimeError("blocked values listing did not end")


def type_statistics(client):
    """Per-type statistics scan in ascending order (the service's own sort field)."""
    path = f"/configuration/{urllib.parse.quote(TENANT, safe='')}/autopilot/stats/{urllib.parse.quote(TYPE_NAME, safe='')}/_scan"
    query = urllib.parse.urlencode({"limit": SCAN_PAGE, "order": "asc"})
    page = client.call("POST", f"{path}?{query}")
    records = []
    for _ in range(2000):
        values = (page or {}).get("values") or []
        records.extend(values)
        scroll_id = (page or {}).get("scrollId")
        if not values or not isinstance(scroll_id, str) or not scroll_id:
            return records
        page = client.next_page(f"{path}?{query}", scroll_id)
    raise RuntimeError("statistics scan did not end")


def main():
    client = Client()
    try:
        blocked = blocked_values(client)
        stats = type_statistics(client)
    except (RuntimeError, urllib.error.URLError, ValueError, KeyError) as err:
        print(f"review: {err}", file=sys.stderr)
        sys.exit(1)
    still_seen = {}
    for record in stats:
        still_seen.setdefault(str(record.get("unmappedValue", "")).casefold(), []).append(record.get("status"))
    flagged = [
        {"value": b.get("value"), "blockedBy": b.get("createdBy"), "statuses": still_seen[str(b.get("value", "")).casefold()]}
        for b in blocked
        if str(b.get("value", "")).casefold() in still_seen
    ]
    print(
        json.dumps(
            {
                "tenant": TENANT,
                "lookupType": TYPE_NAME,
                "blocked": len(blocked),
                "statistics": len(stats),
                "flagged": flagged,
                "requests": client.calls,
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
