"""Lookup fingerprinting for change detection (integration QA team).

Computes a stable SHA-256 fingerprint of every lookup of our lookup type (code, enabled flag, source
mappings, attributes) and one fingerprint for the whole type, so that the nightly job can tell whether
anything changed since the last run without storing the data itself.
"""
import base64
import hashlib
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request

ENV = os.environ
_tok = {"value": None, "renew_at": 0.0}


def bearer(force=False):
    if force or _tok["value"] is None or time.monotonic() >= _tok["renew_at"]:
        auth = base64.b64encode(f"{ENV['LCKIT_CLIENT_ID']}:{ENV['LCKIT_CLIENT_SECRET']}".encode()).decode()
        rq = urllib.request.Request(ENV["LCKIT_TOKEN_URL"], data=b"grant_type=client_credentials", method="POST",
                                    headers={"Authorization": "Basic " + auth,
                                             "Content-Type": "application/x-www-form-urlencoded"})
        with urllib.request.urlopen(rq, timeout=5) as rs:
            doc = json.load(rs)
        _tok["value"] = doc["access_token"]
        _tok["renew_at"] = time.monotonic() + max(float(doc.get("expires_in", 60)) - 20.0, 1.0)
    return _tok["value"]


def post_json(url):
    force = False
    for attempt in range(3):
        rq = urllib.request.Request(url, method="POST", headers={"Authorization": "Bearer " + bearer(force)})
        try:
            with urllib.request.urlopen(rq, timeout=5) as rs:
                return json.load(rs)
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode("utf-8", "replace")
            if exc.code == 401 and not force and "expired" in detail:
                force = True
                continue
            if exc.code == 429 and attempt < 2:
                time.sleep(min(float(exc.headers.get("Retry-After") or 1), 2))
                continue
            raise SystemExit(f"POST {url} -> {exc.code}: {detail}")
    raise SystemExit(f"POST {url}: giving up")


def lookups_of_type():
    params = {"filter": f"equals(type,'{ENV['LCKIT_LOOKUP_TYPE']}')", "sort": "code", "order": "asc", "limit": 100}
    base = f"{ENV['LCKIT_RDM_URL'].rstrip('/')}/lookups/{urllib.parse.quote(ENV['LCKIT_TENANT'])}/_scan"
    last_code = None
    for _ in range(1000):
        page = post_json(base + "?" + urllib.parse.urlencode(params))
        values = page.get("values") or []
        for lk in values:
            code = lk.get("code") or ""
            if last_code is not None and code <= last_code:
                raise SystemExit(f"scan out of order at {code!r} after {last_code!r}; not trusting this run")
            last_code = code
            yield lk
        if not page.get("scrollId") or not values:
            return
        params["scrollId"] = page["scrollId"]  # continue where this page ended


def fingerprint(lk):
    canon = {
        "code": lk.get("code"),
        "enabled": lk.get("enabled"),
        "mappings": sorted(
            (m.get("source"), v.get("code"), v.get("value"), bool(v.get("canonicalValue")))
            for m in lk.get("sourceMappings") or [] for v in m.get("values") or []),
        "attributes": sorted((a.get("name"), a.get("value")) for a in lk.get("attributes") or []),
    }
    return hashlib.sha256(json.dumps(canon, sort_keys=True).encode()).hexdigest()


def main():
    whole = hashlib.sha256()
    n = 0
    for lk in lookups_of_type():
        fp = fingerprint(lk)
        whole.update(fp.encode())
        n += 1
        print(f"{lk.get('code')}\t{fp[:16]}")
    print(f"{ENV['LCKIT_LOOKUP_TYPE']}: {n} lookups, type fingerprint {whole.hexdigest()[:16]}")


if __name__ == "__main__":
    main()
