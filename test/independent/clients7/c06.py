"""Nightly clean-up: removes the disabled lookups of one lookup type through a delete task."""
import base64
import http.client
import json
import os
import sys
import urllib.parse

TENANT = os.environ["LCKIT_TENANT"]
TYPE_NAME = os.environ["LCKIT_LOOKUP_TYPE"].replace("rdm/lookupTypes/", "")
URI_CAP = 1000  # conservative batch size for the uris parameter


def conn_for(url):
    u = urllib.parse.urlsplit(url)
    cls = http.client.HTTPSConnection if u.scheme == "https" else http.client.HTTPConnection
    return cls(u.netloc, timeout=5), u.path.rstrip("/")


def exchange(url, method, path_and_query, headers, body=None):
    conn, prefix = conn_for(url)
    try:
        conn.request(method, prefix + path_and_query, body=body, headers=headers)
        resp = conn.getresponse()
        raw = resp.read()
        return resp.status, (json.loads(raw) if raw else None)
    finally:
        conn.close()


def get_token():
    # grant_type in the query string, credentials by Basic, no body.
    cred = base64.b64encode(
        ("%s:%s" % (os.environ["LCKIT_CLIENT_ID"], os.environ["LCKIT_CLIENT_SECRET"])).encode()
    ).decode()
    tu = urllib.parse.urlsplit(os.environ["LCKIT_TOKEN_URL"])
    origin = "%s://%s" % (tu.scheme, tu.netloc)
    status, doc = exchange(origin, "POST", tu.path + "?grant_type=client_credentials",
                           {"Authorization": "Basic " + cred, "Content-Length": "0"})
    if status != 200:
        raise RuntimeError("token request answered %s" % status)
    return doc["access_token"]


def disabled_codes(token):
    rdm = os.environ["LCKIT_RDM_URL"]
    qs = urllib.parse.urlencode({"limit": 25, "filter": "equals(type,'%s')" % TYPE_NAME})
    path = "/lookups/%s/_scan?%s" % (urllib.parse.quote(TENANT), qs)
    found, scroll = [], None
    for _ in range(200):
        hdrs = {"Authorization": "Bearer " + token}
        body = None
        if scroll is not None:
            body = json.dumps(scroll)  # raw scroll id as a JSON string
            hdrs["Content-Type"] = "application/json"
        status, page = exchange(rdm, "POST", path, hdrs, body)
        if status != 200:
            raise RuntimeError("scan answered %s" % status)
        vals = (page or {}).get("values") or []
        found.extend(v["code"] for v in vals if v.get("enabled") is False)
        scroll = (page or {}).get("scrollId")
        if not scroll or not vals:
            break
    return found


def main():
    token = get_token()
    codes = disabled_codes(token)
    if not codes:
        print("nothing to remove for %s" % TYPE_NAME)
        return 0
    rdm = os.environ["LCKIT_RDM_URL"]
    for i in range(0, len(codes), URI_CAP):
        chunk = codes[i:i + URI_CAP]
        task = {"type": "delete",
                "parameters": {"uris": ["%s/%s/%s" % (TENANT, TYPE_NAME, c) for c in chunk]}}
        status, doc = exchange(rdm, "POST", "/tasks/%s" % urllib.parse.quote(TENANT),
                               {"Authorization": "Bearer " + token, "Content-Type": "application/json"},
                               json.dumps(task))
        if status >= 300:
            print("delete task refused: %s %s" % (status, doc), file=sys.stderr)
            return 1
        print("delete task for %d lookups accepted (%s)" % (len(chunk), (doc or {}).get("status", "?")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
