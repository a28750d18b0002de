# Reverse code list for the label printer: the lookups of one type, highest code first.
import base64, json, os, sys, urllib.parse, urllib.request

env = os.environ
rdm = env["LCKIT_RDM_URL"].rstrip("/")
ltype = env["LCKIT_LOOKUP_TYPE"].rsplit("/", 1)[-1]


def token():
    raw = ("%s:%s" % (env["LCKIT_CLIENT_ID"], env["LCKIT_CLIENT_SECRET"])).encode()
    rq = urllib.request.Request(env["LCKIT_TOKEN_URL"], data=b"grant_type=client_credentials", method="POST")
    rq.add_header("Authorization", "Basic " + base64.b64encode(raw).decode())
    rq.add_header("Content-Type", "application/x-www-form-urlencoded")
    with urllib.request.urlopen(rq, timeout=5) as r:
        return json.loads(r.read())["access_token"]


def scan(tok):
    query = urllib.parse.urlencode({
        "limit": 100,
        "filter": "equals(type,'%s')" % ltype,
        "sort": "code",
        "order": "DESC",
    })
    url = "%s/lookups/%s/_scan?%s" % (rdm, urllib.parse.quote(env["LCKIT_TENANT"]), query)
    sid, pages = None, 0
    while pages < 60:
        pages += 1
        body = None if sid is None else json.dumps({"scrollId": sid}).encode()
        rq = urllib.request.Request(url, data=body, method="POST")
        rq.add_header("Authorization", "Bearer " + tok)
        if body is not None:
            rq.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(rq, timeout=5) as r:
            doc = json.loads(r.read())
        vals = doc.get("values") or []
        for v in vals:
            yield v
        sid = doc.get("scrollId")
        if not sid or not vals:
            break


try:
    codes = [lk["code"] for lk in scan(token()) if lk.get("enabled", True)]
except Exception as e:  # noqa: BLE001
    print("label list failed: %s" % e, file=sys.stderr)
    sys.exit(1)
for c in codes:
    print(c)
print("%d labels" % len(codes), file=sys.stderr)
