"""Mapping coverage audit (MDM platform team).

1. Reads every lookup of the tenant to learn which lookup types exist and how many codes each has.
2. For every lookup type, scans its autopilot statistics; the per-type scans run in worker threads
   (at most four at once), each owning its scroll.
3. Prints, per type, codes vs. unmapped values seen by autopilot.

Tokens: renewed ahead of time from expires_in (30 s margin), and also when the service reports expiry.
Plain http.client, no urllib.request.
"""
import base64
import http.client
import json
import os
import queue
import threading
import time
from urllib.parse import quote, urlencode, urlsplit

E = os.environ


class Conn:
    def __init__(self):
        self.lock = threading.Lock()
        self.token = None
        self.deadline = 0.0

    @staticmethod
    def raw(method, url, headers, body=None):
        parts = urlsplit(url)
        cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        c = cls(parts.netloc, timeout=5)
        try:
            path = parts.path + ("?" + parts.query if parts.query else "")
            c.request(method, path, body=body, headers=headers)
            r = c.getresponse()
            return r.status, dict((k.lower(), v) for k, v in r.getheaders()), r.read()
        finally:
            c.close()

    def bearer(self, force=False):
        with self.lock:
            if force or self.token is None or time.monotonic() > self.deadline:
                cred = base64.b64encode(f"{E['LCKIT_CLIENT_ID']}:{E['LCKIT_CLIENT_SECRET']}".encode()).decode()
                for _ in range(4):
                    st, hdrs, body = self.raw("POST", E["LCKIT_TOKEN_URL"],
                                              {"Authorization": f"Basic {cred}",
                                               "Content-Type": "application/x-www-form-urlencoded"},
                                              b"grant_type=client_credentials")
                    wait = float(hdrs.get("retry-after") or 0)
                    if st != 429 or not 0 < wait <= 2:
                        break
                    time.sleep(wait)  # gateway throttling, short wait
                if st != 200:
                    if self.token is not None and st == 429:
                        return self.token  # quota full: keep using what we have
                    raise SystemExit(f"token request failed: {st} {body[:200]!r}")
                doc = json.loads(body)
                self.token = doc["access_token"]
                self.deadline = time.monotonic() + max(int(doc.get("expires_in", 60)) - 30, 5)
            return self.token

    def call(self, method, url, doc=None, has_body=False):
        body = json.dumps(doc).encode() if has_body else None
        force = False
        for attempt in range(3):
            tok = self.bearer(force)
            hdr = {"Authorization": "Bearer " + tok, "Accept": "application/json"}
            if body is not None:
                hdr["Content-Type"] = "application/json"
            st, h, raw = self.raw(method, url, hdr, body)
            if st == 401 and b"expired" in raw.lower() and attempt == 0:
                force = True
                continue
            if st == 429 and attempt < 2:
                time.sleep(min(float(h.get("retry-after", "1") or 1), 2))
                continue
            if st >= 300:
                raise RuntimeError(f"{method} {url} -> {st}: {raw[:300]!r}")
            return json.loads(raw) if raw else None
        raise RuntimeError(f"{method} {url}: gave up")


def scroll_all(conn, url):
    out, sid = [], None
    for _ in range(2000):
        if sid is None:
            page = conn.call("POST", url)
        else:
            page = conn.call("POST", url, sid, has_body=True)  # bare string body
        vals = page.get("values") or []
        out += vals
        sid = page.get("scrollId")
        if not sid or not vals:
            return out
    return out


def main():
    conn = Conn()
    tenant = quote(E["LCKIT_TENANT"], safe="")
    lookups = scroll_all(conn, f"{E['LCKIT_RDM_URL']}/lookups/{tenant}/_scan?{urlencode({'sort': 'code', 'order': 'asc'})}")
    codes = {}
    for lk in lookups:
        name = (lk.get("type") or "").rsplit("/", 1)[-1]
        codes[name] = codes.get(name, 0) + 1
    types = sorted(set(codes) | {E["LCKIT_LOOKUP_TYPE"]})

    work, results = queue.Queue(), {}
    for t in types:
        work.put(t)

    def worker():
        while True:
            try:
                t = work.get_nowait()
            except queue.Empty:
                return
            try:
                results[t] = scroll_all(conn, f"{E['LCKIT_BASE_URL']}/configuration/{tenant}/autopilot/stats/{quote(t, safe='')}/_scan")
            except Exception as exc:  # report and carry on with the other types
                results[t] = exc

    threads = [threading.Thread(target=worker) for _ in range(min(4, len(types)))]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)

    failed = 0
    for t in types:
        r = results.get(t)
        if isinstance(r, Exception) or r is None:
            failed += 1
            print(f"{t:<24} ERROR {r}")
            continue
        unmapped = {x.get("unmappedValue") for x in r}
        print(f"{t:<24} codes={codes.get(t, 0):<5} statistics={len(r):<5} distinct-unmapped={len(unmapped)}")
    return 1 if failed == len(types) else 0


if __name__ == "__main__":
    raise SystemExit(main())
