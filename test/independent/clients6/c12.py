"""Steward review queue for one lookup type (stewardship tooling team).

Builds the list of unmapped values that autopilot has a candidate for but nobody has confirmed yet,
most frequent first, and prints the top of it for the morning stand-up.
"""
import base64
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request

SETTINGS = {
    "base": os.environ["LCKIT_BASE_URL"].rstrip("/"),
    "token_url": os.environ["LCKIT_TOKEN_URL"],
    "client": os.environ["LCKIT_CLIENT_ID"],
    "secret": os.environ["LCKIT_CLIENT_SECRET"],
    "tenant": os.environ["LCKIT_TENANT"],
    "type": os.environ["LCKIT_LOOKUP_TYPE"],
}
CONFIRMED = {"MANUALLY_MAPPED"}


class Credentials:
    """Holds the bearer token and renews it shortly before expires_in runs out."""

    def __init__(self):
        self._value, self._until = None, 0.0

    def header(self):
        if self._value is None or time.time() >= self._until:
            self.refresh()
        return "Bearer " + self._value

    def refresh(self):
        basic = base64.b64encode(f"{SETTINGS['client']}:{SETTINGS['secret']}".encode()).decode()
        req = urllib.request.Request(SETTINGS["token_url"], method="POST", data=b"grant_type=client_credentials",
                                     headers={"Authorization": f"Basic {basic}",
                                              "Content-Type": "application/x-www-form-urlencoded"})
        with urllib.request.urlopen(req, timeout=5) as resp:
            doc = json.load(resp)
        self._value = doc["access_token"]
        self._until = time.time() + 0.9 * float(doc.get("expires_in") or 60)


def scan_pages(creds, url):
    """Yields the pages of one scan; the scroll id of each answer goes into the next request."""
    scroll_id = None
    for _ in range(1000):
        body = json.dumps({"scrollId": scroll_id}).encode()
        for attempt in range(2):
            req = urllib.request.Request(url, data=body, method="POST",
                                         headers={"Authorization": creds.header(),
                                                  "Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=5) as resp:
                    page = json.load(resp)
                break
            except urllib.error.HTTPError as exc:
                msg = exc.read().decode("utf-8", "replace")
                if exc.code == 401 and attempt == 0 and "expired" in msg:
                    creds.refresh()
                    continue
                raise SystemExit(f"scan failed: HTTP {exc.code}: {msg}")
        yield page
        scroll_id = page.get("scrollId")
        if not scroll_id or not page.get("values"):
            return


def main():
    creds = Credentials()
    q = urllib.parse.urlencode({"limit": 100, "sort": "currentFrequency", "order": "desc"})
    url = (f"{SETTINGS['base']}/configuration/{urllib.parse.quote(SETTINGS['tenant'])}/autopilot/stats/"
           f"{urllib.parse.quote(SETTINGS['type'])}/_scan?{q}")
    queue = []
    for page in scan_pages(creds, url):
        for rec in page.get("values") or []:
            if rec.get("candidateLookupCode") and rec.get("status") not in CONFIRMED:
                queue.append(rec)
    queue.sort(key=lambda r: (-(r.get("currentFrequency") or 0), r.get("unmappedValue") or ""))
    print(f"{len(queue)} values of {SETTINGS['type']} await a steward")
    for rec in queue[:15]:
        print(f"  {rec.get('unmappedValue')!r:<30} -> {rec.get('candidateLookupCode'):<12}"
              f" freq {rec.get('currentFrequency')}/{rec.get('requiredFrequency')}  {rec.get('status')}")


if __name__ == "__main__":
    main()
