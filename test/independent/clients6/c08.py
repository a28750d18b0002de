"""Local lookup mirror (order-service team).

Copies every lookup of the tenant into a SQLite file (lookup table + source mapping table), then prints
row counts per type. The mirror is rebuilt on each run; pages of 25 keep memory flat.
"""
import base64
import json
import os
import sqlite3
import time
import urllib.error
import urllib.parse
import urllib.request

CFG = {k: os.environ[k] for k in (
    "LCKIT_RDM_URL", "LCKIT_TOKEN_URL", "LCKIT_CLIENT_ID", "LCKIT_CLIENT_SECRET", "LCKIT_TENANT")}


class Api:
    def __init__(self):
        self.last_token = None

    def fresh_token(self):
        """A freshly issued token for each call, so a call never goes out with a stale one."""
        basic = base64.b64encode(f"{CFG['LCKIT_CLIENT_ID']}:{CFG['LCKIT_CLIENT_SECRET']}".encode()).decode()
        rq = urllib.request.Request(CFG["LCKIT_TOKEN_URL"], data=b"grant_type=client_credentials", method="POST",
                                    headers={"Authorization": "Basic " + basic,
                                             "Content-Type": "application/x-www-form-urlencoded"})
        try:
            with urllib.request.urlopen(rq, timeout=5) as rs:
                self.last_token = json.load(rs)["access_token"]
        except urllib.error.HTTPError as e:
            if e.code == 429 and self.last_token:
                return self.last_token  # the token service is busy: the previous token is still good
            raise
        return self.last_token

    def post(self, url, body=None):
        for attempt in range(3):
            token = self.fresh_token()
            data = None if body is None else json.dumps(body).encode()
            hdr = {"Authorization": "Bearer " + token}
            if data is not None:
                hdr["Content-Type"] = "application/json"
            try:
                with urllib.request.urlopen(urllib.request.Request(url, data=data, headers=hdr, method="POST"),
                                            timeout=5) as rs:
                    return json.load(rs)
            except urllib.error.HTTPError as e:
                if e.code in (401, 429) and attempt < 2:
                    e.read()
                    time.sleep(0.2 if e.code == 401 else min(float(e.headers.get("Retry-After") or 1), 2))
                    continue
                raise


def main():
    api = Api()
    path = os.environ.get("MIRROR_DB", ":memory:")  # production points this at the shared mirror file
    db = sqlite3.connect(path)
    db.executescript("""
        DROP TABLE IF EXISTS lookup;
        DROP TABLE IF EXISTS mapping;
        CREATE TABLE lookup (type TEXT, code TEXT, enabled INTEGER, version INTEGER, updated INTEGER,
                             PRIMARY KEY (type, code));
        CREATE TABLE mapping (type TEXT, code TEXT, source TEXT, value_code TEXT, value TEXT, canonical INTEGER);
    """)
    url = f"{CFG['LCKIT_RDM_URL']}/lookups/{urllib.parse.quote(CFG['LCKIT_TENANT'])}/_scan?limit=25&sort=code&order=asc"
    scroll, pages = None, 0
    while pages < 1000:
        page = api.post(url, None if scroll is None else {"scrollId": scroll})
        pages += 1
        for lk in page.get("values", []):
            t = lk.get("type", "").split("/")[-1]
            db.execute("INSERT OR REPLACE INTO lookup VALUES (?,?,?,?,?)",
                       (t, lk.get("code"), int(bool(lk.get("enabled"))), lk.get("version"), lk.get("updateDate")))
            for sm in lk.get("sourceMappings") or []:
                for v in sm.get("values") or []:
                    db.execute("INSERT INTO mapping VALUES (?,?,?,?,?,?)",
                               (t, lk.get("code"), sm.get("source"), v.get("code"), v.get("value"),
                                int(bool(v.get("canonicalValue")))))
        scroll = page.get("scrollId")
        if not scroll or not page.get("values"):
            break
    db.commit()
    for t, n in db.execute("SELECT type, COUNT(*) FROM lookup GROUP BY type ORDER BY type"):
        print(f"{t}: {n}")
    print(f"mirror written to {path} from {pages} pages")
    db.close()


if __name__ == "__main__":
    main()
