"""Release gate run before the import pipeline: the lookup-data service must be healthy, at a minimum
version, and the tenant's first lookup type must hold lookups."""
import base64
import json
import os
import sys
import urllib.error
import urllib.request

MIN_VERSION = (2016, 3)

base_url = os.environ["LCKIT_BASE_URL"].rstrip("/")
rdm_url = os.environ["LCKIT_RDM_URL"].rstrip("/")
# health, status and version are platform endpoints served by the gateway
meta_url = base_url


def http(method, url, token=None, data=None, headers=None):
    h = dict(headers or {})
    if token:
        h["Authorization"] = "Bearer %s" % token
    req = urllib.request.Request(url, data=data, method=method, headers=h)
    with urllib.request.urlopen(req, timeout=5) as resp:
        return json.loads(resp.read().decode("utf-8") or "null")


def parse_version(text):
    out = []
    for part in str(text).split("."):
        try:
            out.append(int(part))
        except ValueError:
            break
    return tuple(out)


def gate():
    cred = base64.b64encode(("%s:%s" % (os.environ["LCKIT_CLIENT_ID"], os.environ["LCKIT_CLIENT_SECRET"])).encode())
    tok = http("POST", os.environ["LCKIT_TOKEN_URL"], data=b"grant_type=client_credentials",
               headers={"Authorization": "Basic " + cred.decode(),
                        "Content-Type": "application/x-www-form-urlencoded"})["access_token"]
    problems = []
    for probe in ("healthcheck", "status"):
        st = (http("GET", "%s/%s" % (meta_url, probe), token=tok) or {}).get("status")
        if st != "OK":
            problems.append("%s is %r" % (probe, st))
    ver = (http("GET", meta_url + "/version", token=tok) or {}).get("rdm-service")
    if parse_version(ver) < MIN_VERSION:
        problems.append("rdm-service %s is older than %s" % (ver, ".".join(map(str, MIN_VERSION))))

    ltype = os.environ["LCKIT_LOOKUP_TYPE"].split("/")[-1]
    url = "%s/lookups/%s/_scan?limit=100&filter=equals(type,'%s')" % (rdm_url, os.environ["LCKIT_TENANT"], ltype)
    total, scroll = 0, None
    for _ in range(50):
        body = None if scroll is None else json.dumps(scroll).encode()
        page = http("POST", url, token=tok, data=body,
                    headers={"Content-Type": "application/json"} if body else None) or {}
        vals = page.get("values") or []
        total += len(vals)
        scroll = page.get("scrollId")
        if not scroll or not vals:
            break
    if total == 0:
        problems.append("no lookups of type %s" % ltype)
    return ver, total, problems


if __name__ == "__main__":
    try:
        version, count, problems = gate()
    except (urllib.error.URLError, OSError, KeyError, ValueError) as exc:
        print("gate could not run: %s" % exc, file=sys.stderr)
        sys.exit(1)
    print("rdm-service %s, %d lookups" % (version, count))
    for p in problems:
        print("BLOCKER:", p)
    sys.exit(1 if problems else 0)
