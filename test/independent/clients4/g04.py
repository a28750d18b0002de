#!/usr/bin/env python3
"""Export the lookups of one lookup type as CSV for the finance team's spreadsheet
(code, enabled, canonical value per source). Writes the CSV to stdout."""

import base64
import csv
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request


class RdmSession:
    def __init__(self):
        e = os.environ
        missing = [k for k in ("LCKIT_RDM_URL", "LCKIT_TOKEN_URL", "LCKIT_CLIENT_ID", "LCKIT_CLIENT_SECRET", "LCKIT_TENANT", "LCKIT_LOOKUP_TYPE") if not e.get(k)]
        if missing:
            raise SystemExit(f"export: missing {', '.join(missing)}")
        self.rdm = e["LCKIT_RDM_URL"].rstrip("/")
        self.token_url = e["LCKIT_TOKEN_URL"]
        self.client = (e["LCKIT_CLIENT_ID"], e["LCKIT_CLIENT_SECRET"])
        self.tenant = e["LCKIT_TENANT"]
        self.lookup_type = e["LCKIT_LOOKUP_TYPE"]
        self._token = None

    def token(self):
        if self._token is None:
            creds = base64.b64encode(":".join(self.client).encode()).decode()
            req = urllib.request.Request(
                self.token_url,
                data=urllib.parse.urlencode({"grant_type": "client_credentials"}).encode(),
                headers={"Authorization": "Basic " + creds},
            )
            with urllib.request.urlopen(req, timeout=15) as resp:
                self._token = json.load(resp)["access_token"]
        return self._token

    def post_json(self, path, payload, query=None):
        url = self.rdm + path + ("?" + urllib.parse.urlencode(query) if query else "")
        req = urllib.request.Request(
            url,
            data=json.dumps(payload).encode("utf-8"),
            headers={
                "Authorization": "Bearer " + self.token(),
                "Content-Type": "application/json",
                "Accept": "application/json",
            },
            method="POST",
        )
        with urllib.request.urlopen(req, timeout=15) as resp:
            return json.load(resp)

    def scan_type(self):
        """Yield every lookup of the configured type; follows the scroll until it ends."""
        query = {"filter": f"equals(type,'{self.lookup_type}')", "sort": "code", "order": "asc", "limit": 100}
        path = f"/lookups/{urllib.parse.quote(self.tenant, safe='')}/_scan"
        scroll_id = None
        for _ in range(500):
            page = self.post_json(path, {"scrollId": scroll_id}, query)
            values = page.get("values") or []
            yield from values
            scroll_id = page.get("scrollId")
            if not scroll_id or not values:
                return
        raise RuntimeError("scan did not finish")


def canonical(lookup):
    out = {}
    for mapping in lookup.get("sourceMappings") or []:
        for value in mapping.get("values") or []:
            if value.get("canonicalValue"):
                out[mapping.get("source", "")] = value.get("value", "")
    return out


def main():
    session = RdmSession()
    rows = []
    sources = set()
    try:
        for lookup in session.scan_type():
            mapped = canonical(lookup)
            sources.update(mapped)
            rows.append((lookup.get("code"), lookup.get("enabled"), mapped))
    except urllib.error.HTTPError as err:
        raise SystemExit(f"export: HTTP {err.code}: {err.read()[:200]!r}")
    except urllib.error.URLError as err:
        raise SystemExit(f"export: {err.reason}")
    columns = sorted(sources)
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(["code", "enabled", *columns])
    for code, enabled, mapped in rows:
        writer.writerow([code, "yes" if enabled else "no", *(mapped.get(c, "") for c in columns)])
    print(f"export: {len(rows)} lookups of {session.lookup_type}", file=sys.stderr)
    if not rows:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
