#!/usr/bin/python3
"""Nightly lookup-data / autopilot sync client (Python 3.11, standard library only)."""
import base64
import json
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

CFG = {'tokenAuth': 'basic-form', 'scrollEncoding': 'json', 'firstBody': 'empty-object', 'lookupLimit': 100, 'statsLimit': 100, 'blockedLimit': 100}

env = os.environ
BASE = (env.get("LCKIT_BASE_URL") or "").rstrip("/")
RDM = (env.get("LCKIT_RDM_URL") or "").rstrip("/")
TOKEN_URL = env.get("LCKIT_TOKEN_URL") or BASE + "/oauth/token"
CID = env.get("LCKIT_CLIENT_ID", "")
CSEC = env.get("LCKIT_CLIENT_SECRET", "")
TENANT = env.get("LCKIT_TENANT", "")
LTYPE = env.get("LCKIT_LOOKUP_TYPE", "")
T0 = time.monotonic()
BUDGET = 50.0
STATS = {"tokenRequests": 0, "apiCalls": 0}


class Fail(Exception):
    def __init__(self, msg, status=None):
        super().__init__(msg)
        self.status = status


def enc(s):
    return urllib.parse.quote(str(s), safe="")


def out_of_time():
    return time.monotonic() - T0 > BUDGET


def http(method, url, headers, body=None):
    """Returns (status, headers, text). Never raises on HTTP status."""
    req = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, r.headers, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode("utf-8", "replace")


# ------------------------------------------------------------------ tokens
TOK = None  # dict(value, exp, ttl)
SHAPE = {"mode": CFG.get("tokenAuth", "basic-form")}


def fetch_token():
    global TOK
    attempt = 0
    while True:
        url = TOKEN_URL
        headers = {"Accept": "application/json"}
        body = None
        basic = "Basic " + base64.b64encode(f"{CID}:{CSEC}".encode()).decode()
        gt = CFG.get("grantType", "client_credentials")
        mode = SHAPE["mode"]
        if mode == "basic-query":
            url += ("&" if "?" in url else "?") + "grant_type=" + enc(gt)
            headers["Authorization"] = basic
        elif mode == "form-fields":
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            body = urllib.parse.urlencode({"grant_type": gt, "client_id": CID, "client_secret": CSEC}).encode()
        else:
            headers["Authorization"] = basic
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            body = urllib.parse.urlencode({"grant_type": gt}).encode()
        STATS["tokenRequests"] += 1
        st, hd, text = http("POST", url, headers, body)
        if 200 <= st < 300:
            try:
                j = json.loads(text)
            except ValueError:
                raise Fail("token response is not JSON")
            if not isinstance(j, dict) or not j.get("access_token"):
                raise Fail("token response without access_token")
            try:
                ttl = float(j.get("expires_in"))
                if ttl <= 0:
                    raise ValueError
            except (TypeError, ValueError):
                ttl = 3600.0
            return {"value": j["access_token"], "exp": time.monotonic() + ttl, "ttl": ttl}
        if st in (429, 503):
            if TOK and TOK["exp"] > time.monotonic() + 0.5:
                return TOK
            if out_of_time():
                raise Fail(f"token request refused ({st}) and out of time")
            try:
                ra = float(hd.get("Retry-After") or "")
            except ValueError:
                ra = 0
            time.sleep(min(ra, 5) if ra > 0 else min(0.5 * (attempt + 1), 3))
            attempt += 1
            continue
        if SHAPE["mode"] != "basic-form" and st in (400, 401, 405, 415):
            # this deployment may not take our request shape: fall back to Basic + form body (RFC 6749 4.4)
            print(f"note: token request shape {SHAPE['mode']} refused ({st}), using Basic + form body", file=sys.stderr)
            SHAPE["mode"] = "basic-form"
            continue
        raise Fail(f"token request failed: HTTP {st} {text[:200]}")


def access_token(force=False):
    global TOK
    if CFG.get("tokenPerCall"):
        TOK = fetch_token()
        return TOK["value"]
    if force:
        TOK = None
    margin = min(30.0, TOK["ttl"] * 0.2) if TOK else 0
    if not TOK or time.monotonic() > TOK["exp"] - margin:
        TOK = fetch_token()
    return TOK["value"]


# ------------------------------------------------------------------ API
def parse(text):
    if not text or not text.strip():
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def api(method, url, body=None, ctype=None, auth=True):
    refreshed = False
    throttled = 0
    while True:
        if out_of_time():
            raise Fail("out of time")
        headers = {"Accept": "application/json"}
        if auth:
            t = access_token(refreshed)
            headers["Authorization"] = t if CFG.get("bearerPrefix") is False else "Bearer " + t
        data = None
        if body is not None:
            data = body.encode() if isinstance(body, str) else body
            headers["Content-Type"] = ctype or "application/json"
        STATS["apiCalls"] += 1
        st, hd, text = http(method, url, headers, data)
        if st == 401 and auth and not refreshed:
            refreshed = True
            continue
        if st == 429 and throttled < 3:
            throttled += 1
            time.sleep(1)
            continue
        if not 200 <= st < 300:
            raise Fail(f"{method} {url} -> HTTP {st} {text[:200]}", st)
        return parse(text)


def with_query(url, params):
    q = [f"{k}={enc(v)}" for k, v in params.items() if v is not None]
    if not q:
        return url
    return url + ("&" if "?" in url else "?") + "&".join(q)


ENC = {"mode": CFG.get("scrollEncoding", "json"), "switched": False}


class Scan:
    def __init__(self, name, url, keep=False):
        self.name, self.url, self.keep = name, url, keep
        self.sid = self.first_sid = None
        self.started = self.done = False
        self.count = self.pages = 0
        self.items = []
        self.last_sig = ""

    def step(self):
        if self.done:
            return
        url, body, ctype = self.url, None, None
        if not self.started:
            fb = CFG.get("firstBody", "none")
            if fb == "null":
                body, ctype = "null", "application/json"
            elif fb == "empty-object":
                body, ctype = "{}", "application/json"
        else:
            sid = self.first_sid if CFG.get("reuseFirstScroll") else self.sid
            if CFG.get("nextScrollInQuery"):
                url = with_query(url, {"scrollId": sid})
            elif ENC["mode"] == "raw":
                body, ctype = sid, "text/plain"
            else:
                body, ctype = json.dumps({"scrollId": sid}), "application/json"
        try:
            res = api(CFG.get("scanMethod", "POST"), url, body, ctype)
        except Fail as e:
            # The body encoding of the scroll id is not specified: if the service rejects ours, switch once.
            if not self.started or CFG.get("nextScrollInQuery") or ENC["switched"] or e.status not in (400, 415, 422):
                raise
            ENC["switched"] = True
            ENC["mode"] = "json" if ENC["mode"] == "raw" else "raw"
            print(f"note: scroll id encoding switched to {ENC['mode']}", file=sys.stderr)
            return self.step()
        if not isinstance(res, dict):
            raise Fail(f"{self.name}: unexpected scan response")
        vals = res.get("values") if isinstance(res.get("values"), list) else []
        sig = json.dumps(vals, sort_keys=True) if vals else ""
        if self.started and sig and sig == self.last_sig:
            # the same page again: the service did not understand our continuation
            if CFG.get("nextScrollInQuery") or ENC["switched"]:
                raise Fail(f"{self.name}: scan makes no progress")
            ENC["switched"] = True
            ENC["mode"] = "json" if ENC["mode"] == "raw" else "raw"
            print(f"note: no progress, scroll id encoding switched to {ENC['mode']}", file=sys.stderr)
            return self.step()
        self.last_sig = sig
        self.started = True
        self.pages += 1
        self.count += len(vals)
        if self.keep:
            self.items.extend(vals)
        sid = res.get("scrollId")
        sid = None if sid is None or sid == "" else str(sid)
        if self.first_sid is None:
            self.first_sid = sid
        self.sid = sid
        if not sid or not vals:
            self.done = True
        if self.pages > 5000:
            raise Fail(f"{self.name}: too many pages")

    def all(self):
        while not self.done:
            self.step()
        return self


def lookup_scan(name, by_type, keep=False):
    url = with_query(f"{RDM}/lookups/{enc(TENANT)}/_scan", {
        "filter": f"equals(type,'{LTYPE}')" if by_type else None,
        "limit": CFG.get("lookupLimit"),
        "sort": CFG.get("lookupSort"),
        "order": CFG.get("lookupOrder"),
    })
    return Scan(name, url, keep)


def type_seg():
    return enc(f"rdm/lookupTypes/{LTYPE}") if CFG.get("typePathAsUri") else enc(LTYPE)


def stats_scan(name, by_type):
    if by_type:
        p = f"{BASE}/configuration/{enc(TENANT)}/autopilot/stats/{type_seg()}/_scan"
    else:
        p = f"{BASE}/configuration/{enc(TENANT)}/autopilot/stats/_scan"
    return Scan(name, with_query(p, {"limit": CFG.get("statsLimit"), "sort": CFG.get("statsSort"),
                                     "order": CFG.get("statsOrder")}))


def blocked_values():
    url = f"{BASE}/configuration/{enc(TENANT)}/autopilot/{type_seg()}/blockedValues"
    limit = CFG.get("blockedLimit")
    offset = page = total = 0
    while True:
        q = {"offset": page if CFG.get("blockedOffsetAsPage") else offset, "limit": limit}
        res = api("GET", with_query(url, q))
        arr = res if isinstance(res, list) else (res.get("values") if isinstance(res, dict) else None)
        if not isinstance(arr, list):
            raise Fail("blockedValues: response is not an array")
        total += len(arr)
        offset += len(arr)
        page += 1
        if not arr:
            break
        if limit and len(arr) < limit:
            break
        if page > 2000:
            raise Fail("blockedValues: too many pages")
    return total


def health():
    out = {}
    auth = CFG.get("healthAuth", True)
    for p in ("healthcheck", "status"):
        r = api("GET", f"{RDM}/{p}", auth=auth)
        st = r.get("status") if isinstance(r, dict) else r
        out[p] = st
        if str(st).upper() != "OK":
            print(f"warning: {p} status is {st!r}", file=sys.stderr)
    v = api("GET", f"{RDM}/version", auth=auth)
    if isinstance(v, dict):
        out["version"] = v.get("rdm-service")
    else:
        m = re.search(r'"rdm-service"\s*:\s*"?([0-9][0-9.]*)', str(v))
        out["version"] = m.group(1) if m else None
    return out


def delete_task(codes):
    if CFG["del"] == "uris":
        if CFG.get("deleteUriShape") == "rdm":
            uris = [f"rdm/lookupTypes/{LTYPE}/{c}" for c in codes]
        else:
            uris = [f"{TENANT}/{LTYPE}/{c}" for c in codes]
        body = {"parameters": {"uris": uris}} if CFG.get("deleteOmitType") else {"type": "delete", "parameters": {"uris": uris}}
    else:
        body = {"type": "delete", "parameters": {"type": LTYPE if CFG.get("deleteTypeAsName") else f"rdm/lookupTypes/{LTYPE}"}}
    return api("POST", f"{RDM}/tasks/{enc(TENANT)}", json.dumps(body), "application/json")


def main():
    if not (BASE and RDM and TENANT and LTYPE):
        raise Fail("missing LCKIT_* environment")
    summary = {"health": health()}
    type_scan = lookup_scan("lookupsOfType", True, keep=bool(CFG.get("del")))
    scans = [type_scan, lookup_scan("lookupsOfTenant", False), stats_scan("statsAll", False),
             stats_scan("statsOfType", True)]
    if CFG.get("interleave"):
        while any(not s.done for s in scans):
            for s in scans:
                s.step()
    else:
        for s in scans:
            s.all()
    for s in scans:
        summary[s.name] = s.count
    summary["blockedValues"] = blocked_values()
    if CFG.get("del"):
        codes = [l.get("code") for l in type_scan.items if isinstance(l, dict) and isinstance(l.get("code"), str) and l.get("code")]
        codes = codes[: CFG.get("delCount", 3)]
        if CFG["del"] == "uris" and not codes:
            raise Fail("nothing to delete")
        task = delete_task(codes)
        summary["deleteTask"] = (task.get("status") or task.get("id") or "accepted") if isinstance(task, dict) else "accepted"
        expected = type_scan.count - len(codes) if CFG["del"] == "uris" else 0
        after = None
        for _ in range(10):
            after = lookup_scan("after", True).all().count
            if after <= expected or out_of_time():
                break
            time.sleep(0.5)
        summary["deleted"] = len(codes) if CFG["del"] == "uris" else "type"
        summary["lookupsOfTypeAfterDelete"] = after
    summary.update(STATS)
    print(json.dumps(summary))


if __name__ == "__main__":
    try:
        main()
    except Fail as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)
    except Exception as e:  # network errors, bad JSON, ...
        print(f"error: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(2)
    sys.exit(0)
