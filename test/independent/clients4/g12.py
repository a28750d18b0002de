"""Retire a lookup type: the watched lookup type was replaced in the new data model, so this
one-off job (run from the release pipeline) records how many lookups it holds and then removes
all lookups of that type with one delete task. Needs a client allowed to delete lookups."""

import base64
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

ENV = ("LCKIT_RDM_URL", "LCKIT_TOKEN_URL", "LCKIT_CLIENT_ID", "LCKIT_CLIENT_SECRET", "LCKIT_TENANT", "LCKIT_LOOKUP_TYPE")


def log(msg):
    print(f"retire-type: {msg}", file=sys.stderr)


def request(url, token=None, payload=None, form=None, basic=None):
    headers = {"Accept": "application/json"}
    data = None
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if basic:
        headers["Authorization"] = "Basic " + base64.b64encode(f"{basic[0]}:{basic[1]}".encode()).decode()
    if form is not None:
        data = urllib.parse.urlencode(form).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    elif payload is not None:
        data = json.dumps(payload).encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(url, data=data, headers=headers, method="POST")
    with urllib.request.urlopen(req, timeout=20) as resp:
        raw = resp.read()
        return resp.status, (json.loads(raw) if raw.strip() else None)


def count_lookups(rdm, tenant, type_name, token):
    query = urllib.parse.urlencode({"filter": f"equals(type,'{type_name}')", "limit": 100})
    url = f"{rdm}/lookups/{urllib.parse.quote(tenant, safe='')}/_scan?{query}"
    total = 0
    _, page = request(url, token)
    for _ in range(1000):
        values = (page or {}).get("values") or []
        total += len(values)
        scroll_id = (page or {}).get("scrollId")
        if not scroll_id or not values:
            break
        _, page = request(url, token, payload={"scrollId": scroll_id})
    return total


def main():
    missing = [k for k in ENV if not os.environ.get(k)]
    if missing:
        log("missing " + ", ".join(missing))
        return 2
    rdm = os.environ["LCKIT_RDM_URL"].rstrip("/")
    tenant = os.environ["LCKIT_TENANT"]
    type_name = os.environ["LCKIT_LOOKUP_TYPE"]
    try:
        _, tok = request(
            os.environ["LCKIT_TOKEN_URL"],
            form={"grant_type": "client_credentials"},
            basic=(os.environ["LCKIT_CLIENT_ID"], os.environ["LCKIT_CLIENT_SECRET"]),
        )
        token = tok["access_token"]
        before = count_lookups(rdm, tenant, type_name, token)
        log(f"{before} lookups of {type_name} in tenant {tenant} will be removed")
        status, task = request(
            f"{rdm}/tasks/{urllib.parse.quote(tenant, safe='')}",
            token,
            payload={"type": "delete", "parameters": {"type": type_name}},
        )
    except urllib.error.HTTPError as err:
        log(f"HTTP {err.code} from {err.url}: {err.read()[:300]!r}")
        return 1
    except urllib.error.URLError as err:
        log(f"service unreachable: {err.reason}")
        return 1
    print(json.dumps({"tenant": tenant, "type": type_name, "lookups": before, "status": status, "task": task}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
