#!/usr/bin/python3
"""Self test of server.py: the correct server and every choice pass every scenario;
every fault fails the scenario that its faults.json entry names.  Standard library only."""
import base64
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
MAIN, OTHER, RDBMS = "harbor-prod", "quarry-main", "ledger-legacy"
MAIN_CUST, RDBMS_CUST = "harbor-logistics", "ledger-finance"
CRED = {
    "admin": ("harbor-admin", "hA-7f3c91e2d4b8a605"),
    "editor": ("harbor-editor", "hE-2b6d0a94c7e13f58"),
    "viewer": ("harbor-viewer", "hV-91c4e7a03f5d2b86"),
    "quota": ("harbor-batch", "hB-5e08d3f17a9c64b2"),
    "otherAdmin": ("quarry-admin", "qA-c3a71f596e02d84b"),
    "rdbmsAdmin": ("ledger-admin", "lA-84f2b6c09d1e7a35"),
}
MAIN_TOTAL = 124 + 32 + 57 + 5 + 14


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


class Api:
    def __init__(self, base):
        self.base = base
        self.tokens = {}

    def req(self, method, path, body=None, token=None, raw=None, headers=None):
        h = dict(headers or {})
        data = None
        if raw is not None:
            data = raw if isinstance(raw, bytes) else raw.encode()
        elif body is not None:
            data = json.dumps(body).encode()
            h["Content-Type"] = "application/json"
        if token:
            h["Authorization"] = "Bearer " + token
        r = urllib.request.Request(self.base + path, data=data, method=method, headers=h)
        try:
            with urllib.request.urlopen(r, timeout=10) as resp:
                txt = resp.read().decode()
                return resp.status, (json.loads(txt) if txt else None)
        except urllib.error.HTTPError as e:
            txt = e.read().decode()
            try:
                return e.code, json.loads(txt)
            except ValueError:
                return e.code, txt

    def token_raw(self, who):
        cid, sec = CRED[who]
        basic = base64.b64encode(("%s:%s" % (cid, sec)).encode()).decode()
        return self.req("POST", "/oauth/token", raw="grant_type=client_credentials",
                        headers={"Authorization": "Basic " + basic,
                                 "Content-Type": "application/x-www-form-urlencoded"})

    def token(self, who):
        st, b = self.token_raw(who)
        check(st == 200, "token for %s: %s %s" % (who, st, b))
        return b["access_token"]

    def tok(self, who):
        if who not in self.tokens:
            self.tokens[who] = self.token(who)
        return self.tokens[who]

    def scan(self, path, who="admin", style="object", max_pages=60):
        pages, sid = [], None
        for _ in range(max_pages):
            if sid is None:
                st, b = self.req("POST", path, token=self.tok(who))
            elif style == "object":
                st, b = self.req("POST", path, body={"scrollId": sid}, token=self.tok(who))
            else:
                st, b = self.req("POST", path, raw=json.dumps(sid), token=self.tok(who),
                                 headers={"Content-Type": "application/json"})
            check(st == 200, "scan %s: %s %s" % (path, st, b))
            pages.append(b["values"])
            if not b["values"] or not b.get("scrollId"):
                return pages
            sid = b["scrollId"]
        raise Fail("scan did not end")

    def put_customer(self, cust, body, who="admin"):
        b = dict(body)
        b.setdefault("id", cust)
        return self.req("PUT", "/oauth/customers/" + cust, body=b, token=self.tok(who))

    def set_quota(self, n):
        st, b = self.put_customer(MAIN_CUST, {"tenants": [MAIN], "multitokenConfig": {
            "clientCredentialsMultiTokenConfig": {"maxActiveTokensAllowed": n}}})
        check(st == 200, "set quota %s: %s %s" % (n, st, b))

    def set_validity(self, client, seconds):
        st, b = self.req("PUT", "/oauth/customers/%s/clients" % MAIN_CUST,
                         body=[{"clientId": CRED[client][0], "accessTokenValidity": seconds}], token=self.tok("admin"))
        check(st == 200, "set validity: %s %s" % (st, b))


def flat(pages):
    return [v for p in pages for v in p]


def codes_of(pages):
    return [v["code"] for v in flat(pages)]


def count_main(api, who="admin"):
    return len(flat(api.scan("/lookups/%s/_scan?limit=100" % MAIN, who)))


# ---------------------------------------------------------------- scenarios
def two_scrolls_interleaved(api):
    pa = "/lookups/%s/_scan?limit=10&sort=code&filter=equals(type,'countries')" % MAIN
    pb = "/lookups/%s/_scan?limit=10&sort=code&filter=equals(type,'currencies')" % MAIN
    t = api.tok("admin")
    st, a = api.req("POST", pa, token=t)
    st2, b = api.req("POST", pb, token=t)
    check(st == 200 and st2 == 200, "first pages")
    got_a, got_b = [v["code"] for v in a["values"]], [v["code"] for v in b["values"]]
    sa, sb = a["scrollId"], b["scrollId"]
    for _ in range(30):
        done = 0
        for which in ("a", "b"):
            sid = sa if which == "a" else sb
            if sid is None:
                done += 1
                continue
            st, r = api.req("POST", pa if which == "a" else pb, body={"scrollId": sid}, token=t)
            check(st == 200, "continuation %s" % st)
            cs = [v["code"] for v in r["values"]]
            (got_a if which == "a" else got_b).extend(cs)
            nxt = r.get("scrollId") if r["values"] else None
            if which == "a":
                sa = nxt
            else:
                sb = nxt
        if done == 2:
            break
    check(got_a == sorted("C%03d" % i for i in range(124)), "scroll A mixed up: %d codes" % len(got_a))
    check(got_b == sorted("CUR%02d" % i for i in range(32)), "scroll B mixed up: %d codes" % len(got_b))


def stats_type_continuation(api):
    recs = flat(api.scan("/configuration/%s/autopilot/stats/countries/_scan?limit=20" % MAIN, style="raw"))
    check(len(recs) == 90, "countries stats: %d" % len(recs))
    check(all(r["lookupType"] == "countries" for r in recs), "other lookup types in the per-type scan")
    allrecs = flat(api.scan("/configuration/%s/autopilot/stats/_scan" % MAIN))
    check(len(allrecs) == 250, "all stats: %d" % len(allrecs))


def lookup_sort_across_pages(api):
    codes = codes_of(api.scan("/lookups/%s/_scan?limit=25&sort=code&order=desc&filter=equals(type,'countries')" % MAIN))
    check(len(codes) == 124, "count %d" % len(codes))
    check(codes == sorted(codes, reverse=True), "not sorted desc across pages")
    recs = flat(api.scan("/configuration/%s/autopilot/stats/_scan?limit=30&sort=createdAt&order=asc" % MAIN))
    ts = [r["createdAt"] for r in recs]
    check(ts == sorted(ts), "stats not sorted across pages")


def pages_disjoint(api):
    recs = flat(api.scan("/lookups/%s/_scan?limit=40" % MAIN, style="raw"))
    keys = [(r["type"], r["code"]) for r in recs]
    check(len(keys) == MAIN_TOTAL and len(set(keys)) == MAIN_TOTAL, "lookups %d, unique %d" % (len(keys), len(set(keys))))
    st = flat(api.scan("/configuration/%s/autopilot/stats/_scan?limit=35" % MAIN))
    ids = [(r["lookupType"], r["unmappedValue"], r["createdAt"]) for r in st]
    check(len(ids) == 250 and len(set(ids)) == 250, "stats %d unique %d" % (len(ids), len(set(ids))))


def delete_then_scan(api):
    before = codes_of(api.scan("/lookups/%s/_scan?filter=equals(type,'genders')" % MAIN))
    check(len(before) == 5, "genders before %d" % len(before))
    st, b = api.req("POST", "/tasks/" + MAIN, body={"type": "delete", "parameters": {"type": "rdm/lookupTypes/genders"}},
                    token=api.tok("editor"))
    check(st in (200, 201, 202), "delete task %s %s" % (st, b))
    after = codes_of(api.scan("/lookups/%s/_scan?filter=equals(type,'genders')" % MAIN))
    check(after == [], "genders still listed after delete: %s" % after)
    check(count_main(api) == MAIN_TOTAL - 5, "total after delete")


def delete_by_type_scoped(api):
    st, b = api.req("POST", "/tasks/" + MAIN, body={"type": "delete", "parameters": {"type": "rdm/lookupTypes/industries"}},
                    token=api.tok("editor"))
    check(st in (200, 201, 202), "delete task %s %s" % (st, b))
    check(codes_of(api.scan("/lookups/%s/_scan?filter=equals(type,'industries')" % MAIN)) == [], "industries left")
    check(len(codes_of(api.scan("/lookups/%s/_scan?filter=equals(type,'countries')" % MAIN))) == 124, "countries touched")
    check(count_main(api) == MAIN_TOTAL - 14, "other types touched")
    check(len(flat(api.scan("/lookups/%s/_scan" % OTHER, "otherAdmin"))) == 52, "other tenant touched")


def delete_by_uris(api):
    uris = ["%s/countries/C007" % MAIN, "%s/countries/C050" % MAIN, "%s/currencies/CUR03" % MAIN]
    st, b = api.req("POST", "/tasks/" + MAIN, body={"type": "delete", "parameters": {"uris": uris}}, token=api.tok("admin"))
    check(st in (200, 201, 202), "delete task %s %s" % (st, b))
    codes = codes_of(api.scan("/lookups/%s/_scan?limit=100" % MAIN))
    check(len(codes) == MAIN_TOTAL - 3, "remaining %d" % len(codes))
    check(not {"C007", "C050", "CUR03"} & set(codes), "listed lookups still present")
    st, b = api.req("POST", "/tasks/" + MAIN, body={"type": "delete"}, token=api.tok("admin"))
    check(st in (200, 201, 202), "delete all %s" % st)
    check(count_main(api) == 0, "delete all left lookups")
    check(len(flat(api.scan("/lookups/%s/_scan" % OTHER, "otherAdmin"))) == 52, "other tenant touched")


def refused(st, b):
    return 400 <= st < 500 and "limit" in json.dumps(b).lower()


def multitoken_new_each_time(api):
    api.tok("admin")
    api.set_quota(3)
    t = [api.token("quota") for _ in range(3)]
    check(len(set(t)) == 3, "multi-token on: tokens not new")
    st, b = api.token_raw("quota")
    check(refused(st, b), "fourth token not refused: %s %s" % (st, b))
    for x in t:
        st, _ = api.req("GET", "/status", token=x)
        check(st == 200, "issued token unusable")


def quota_after_expiry(api):
    api.set_validity("quota", 1)
    api.set_quota(2)
    a, b2 = api.token("quota"), api.token("quota")
    st, b = api.token_raw("quota")
    check(refused(st, b), "third token not refused: %s %s" % (st, b))
    time.sleep(1.3)
    st, b = api.req("GET", "/version", token=a)
    check(st == 401 and "expired" in json.dumps(b).lower(), "expired token use: %s %s" % (st, b))
    st, b = api.token_raw("quota")
    check(st == 200, "token after expiry refused: %s %s" % (st, b))


def quota_per_client(api):
    api.tok("admin")
    api.set_quota(2)
    api.token("quota")
    api.token("quota")
    st, b = api.token_raw("quota")
    check(refused(st, b), "third batch token not refused")
    v1, v2 = api.token("viewer"), api.token("viewer")
    check(v1 != v2, "viewer tokens")
    e1 = api.token("editor")
    check(e1, "editor token")


def validity_update(api):
    api.set_quota(5)
    st, b = api.token_raw("quota")
    check(st == 200 and b["expires_in"] > 1000, "first token %s" % b)
    api.set_validity("quota", 2)
    st, b = api.token_raw("quota")
    check(st == 200 and b["expires_in"] <= 2, "new validity not applied: %s" % b.get("expires_in"))
    time.sleep(2.2)
    st, _ = api.req("GET", "/status", token=b["access_token"])
    check(st == 401, "token alive after its validity")


def rdbms_refused(api):
    t1 = api.token("rdbmsAdmin")
    st, b = api.put_customer(RDBMS_CUST, {"tenants": [RDBMS], "description": "changed", "multitokenConfig": {
        "clientCredentialsMultiTokenConfig": {"maxActiveTokensAllowed": 10}}}, "rdbmsAdmin")
    check(st == 400, "rdbms multitoken write not refused: %s" % st)
    t2, t3 = api.token("rdbmsAdmin"), api.token("rdbmsAdmin")
    check(t1 == t2 == t3, "refused multitokenConfig took effect")
    st, b = api.req("GET", "/oauth/customers/" + RDBMS_CUST, token=api.tok("rdbmsAdmin"))
    check(st == 200 and "multitokenConfig" not in b and b.get("description") != "changed", "refused write stored: %s" % b)
    st, b = api.put_customer(RDBMS_CUST, {"tenants": [RDBMS], "description": "plain"}, "rdbmsAdmin")
    check(st == 200, "plain rdbms write refused")


def multitoken_off_again(api):
    api.set_quota(5)
    check(api.token("quota") != api.token("quota"), "multi-token on")
    st, b = api.put_customer(MAIN_CUST, {"tenants": [MAIN], "description": "off again"})
    check(st == 200, "turn off %s" % st)
    a, b2 = api.token("quota"), api.token("quota")
    check(a == b2, "multi-token off, still new tokens")


def quota_bound(api):
    for n, ok in ((201, False), (200, True), (0, False), (500, False), (1, True)):
        st, b = api.put_customer(MAIN_CUST, {"tenants": [MAIN], "multitokenConfig": {
            "clientCredentialsMultiTokenConfig": {"maxActiveTokensAllowed": n}}})
        check((st == 200) == ok and (ok or 400 <= st < 500), "maxActiveTokensAllowed %d -> %s" % (n, st))


def stats_limit(api):
    t = api.tok("admin")
    st, b = api.req("POST", "/configuration/%s/autopilot/stats/_scan?limit=500" % MAIN, token=t)
    check(st == 400 or (st == 200 and len(b["values"]) <= 100), "limit 500 gave %s/%s" % (st, len(b["values"]) if st == 200 else ""))
    st, b = api.req("POST", "/configuration/%s/autopilot/stats/_scan" % MAIN, token=t)
    check(st == 200 and len(b["values"]) == 100, "default page size")
    st, b = api.req("POST", "/configuration/%s/autopilot/stats/countries/_scan?limit=7" % MAIN, token=t)
    check(st == 200 and len(b["values"]) == 7, "limit 7")


def blocked_paging(api):
    t = api.tok("viewer")
    p = "/configuration/%s/autopilot/countries/blockedValues" % MAIN
    st, full = api.req("GET", p, token=t)
    check(st == 200 and len(full) == 100, "default page")
    st, rest = api.req("GET", p + "?offset=100", token=t)
    check(st == 200 and len(rest) == 37, "rest %s" % len(rest))
    allv = [b["value"] for b in full + rest]
    check(len(set(allv)) == 137, "paged values overlap")
    st, mid = api.req("GET", p + "?offset=5&limit=3", token=t)
    check([b["value"] for b in mid] == allv[5:8], "offset 5 limit 3")
    check(all(b["lookupType"] == "rdm/lookupTypes/countries" for b in full), "lookupType form")


def health(api):
    t = api.tok("viewer")
    for path in ("/healthcheck", "/status"):
        st, b = api.req("GET", path, token=t)
        check(st == 200 and b.get("status") == "OK", "%s: %s %s" % (path, st, b))
    st, b = api.req("GET", "/version", token=t)
    v = str(b.get("rdm-service"))
    check(st == 200 and all(x.isdigit() for x in v.split(".")) and "." in v, "version %s" % b)
    st, _ = api.req("GET", "/healthcheck")
    check(st == 401, "no Authorization accepted")


def viewer_readonly(api):
    st, b = api.req("POST", "/tasks/" + MAIN, body={"type": "delete", "parameters": {"type": "rdm/lookupTypes/states"}},
                    token=api.tok("viewer"))
    check(st == 403, "viewer delete gave %s" % st)
    check(count_main(api, "viewer") == MAIN_TOTAL, "viewer delete removed lookups")
    st, b = api.req("POST", "/tasks/" + MAIN, body={"type": "delete", "parameters": {"type": "rdm/lookupTypes/states"}},
                    token=api.tok("quota"))
    check(st == 403, "batch delete gave %s" % st)


def tenant_isolation(api):
    for who in ("admin", "editor", "viewer", "quota"):
        st, _ = api.req("POST", "/lookups/%s/_scan" % OTHER, token=api.tok(who))
        check(st == 403, "%s scanned other tenant: %s" % (who, st))
        st, _ = api.req("GET", "/configuration/%s/autopilot/minerals/blockedValues" % OTHER, token=api.tok(who))
        check(st == 403, "%s read other tenant's blocked values: %s" % (who, st))
    st, _ = api.req("POST", "/lookups/%s/_scan" % MAIN, token=api.tok("otherAdmin"))
    check(st == 403, "other admin scanned main")
    st, _ = api.put_customer(MAIN_CUST, {"tenants": [MAIN]}, "editor")
    check(st == 403, "editor configured customer")


def null_body_first(api):
    t = api.tok("admin")
    for path in ("/lookups/%s/_scan?limit=5" % MAIN, "/configuration/%s/autopilot/stats/_scan?limit=5" % MAIN):
        st, b = api.req("POST", path, raw="null", token=t, headers={"Content-Type": "application/json"})
        check(st == 200 and len(b["values"]) == 5 and b.get("scrollId"), "null body: %s" % st)


SCENARIOS = [two_scrolls_interleaved, stats_type_continuation, lookup_sort_across_pages, pages_disjoint,
             delete_then_scan, delete_by_type_scoped, delete_by_uris, multitoken_new_each_time, quota_after_expiry,
             quota_per_client, validity_update, rdbms_refused, multitoken_off_again, quota_bound, stats_limit,
             blocked_paging, health, viewer_readonly, tenant_isolation, null_body_first]
BY_NAME = {f.__name__: f for f in SCENARIOS}
FAULT_SCENARIO = {
    "scroll_shared_cursor": "two_scrolls_interleaved",
    "stats_type_leak_continuation": "stats_type_continuation",
    "scan_sort_per_page": "lookup_sort_across_pages",
    "scan_page_overlap": "pages_disjoint",
    "delete_stale_scan_cache": "delete_then_scan",
    "delete_type_removes_all": "delete_by_type_scoped",
    "delete_uris_first_only": "delete_by_uris",
    "token_multi_reuse": "multitoken_new_each_time",
    "token_quota_counts_expired": "quota_after_expiry",
    "token_quota_per_customer": "quota_per_client",
    "token_validity_stale": "validity_update",
    "rdbms_refused_write_applied": "rdbms_refused",
    "multitoken_off_still_new": "multitoken_off_again",
    "quota_over_200_accepted": "quota_bound",
    "stats_limit_over_max": "stats_limit",
    "blocked_offset_one_based": "blocked_paging",
    "healthcheck_status_up": "health",
    "viewer_can_delete": "viewer_readonly",
    "editor_cross_tenant": "tenant_isolation",
    "scan_null_body_rejected": "null_body_first",
}


def start(env_extra):
    env = dict(os.environ)
    env.pop("FAULT", None)
    env.pop("CHOICES", None)
    env.update(env_extra)
    p = subprocess.Popen([sys.executable, os.path.join(HERE, "server.py"), "--port", "0"], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if not line.startswith("listening "):
        p.kill()
        raise RuntimeError("server did not start: %r %s" % (line, p.stderr.read()))
    return p, "http://127.0.0.1:%d" % int(line.split()[1])


def run(env_extra, scen):
    p, base = start(env_extra)
    try:
        scen(Api(base))
        return None
    except Fail as e:
        return str(e)
    finally:
        p.terminate()
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            p.kill()


def main():
    t0 = time.time()
    faults = json.load(open(os.path.join(HERE, "faults.json")))
    choices = json.load(open(os.path.join(HERE, "choices.json")))
    problems = 0
    configs = [("correct", {})] + [("choice " + c["name"], {"CHOICES": c["name"]}) for c in choices]
    for label, env in configs:
        bad = []
        for s in SCENARIOS:
            r = run(env, s)
            if r:
                bad.append("%s: %s" % (s.__name__, r))
        print("%-36s %s" % (label, "PASS" if not bad else "FAIL " + "; ".join(bad)))
        problems += len(bad)
    for f in faults:
        scen = BY_NAME.get(FAULT_SCENARIO.get(f["name"], ""))
        if scen is None or scen.__name__ not in f["shows"]:
            print("fault %-30s no scenario named in shows" % f["name"])
            problems += 1
            continue
        r = run({"FAULT": f["name"]}, scen)
        print("fault %-30s %s" % (f["name"], ("caught by %s: %s" % (scen.__name__, r)) if r else "NOT CAUGHT"))
        problems += 0 if r else 1
    # unknown names exit 2
    for env in ({"FAULT": "no_such_fault"}, {"CHOICES": "no_such_choice"}):
        e = dict(os.environ)
        e.update(env)
        rc = subprocess.run([sys.executable, os.path.join(HERE, "server.py"), "--port", "0"], env=e,
                            capture_output=True, timeout=10).returncode
        print("unknown %-28s exit %d" % (list(env.values())[0], rc))
        problems += 0 if rc == 2 else 1
    print("selftest %s in %.1fs" % ("OK" if problems == 0 else "FAILED (%d problems)" % problems, time.time() - t0))
    sys.exit(0 if problems == 0 else 1)


if __name__ == "__main__":
    main()
