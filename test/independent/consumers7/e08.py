#!/usr/bin/env python3
"""Workflow dashboard feed: tracks objects and their lifecycle, using a heap per object
to replay events in objectVersion order at shutdown."""
import heapq, json, os, signal, sys, time
from collections import defaultdict

ENDS = {"ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE", "RELATIONSHIP_REMOVED",
        "RELATIONSHIP_REMOVED_GDPR", "RELATION_LOST_MERGE", "INTERACTION_REMOVED", "CHANGE_REQUEST_REMOVED",
        "GROUP_REMOVED",
        # a business process event covers creation or deletion: the workflow closed the record
        "ENTITY_BUSINESS_PROCESS_CHANGED"}
OTHERS = {"ENTITY_CREATED", "ENTITY_CHANGED", "RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED", "GROUP_CREATED",
          "GROUP_CHANGED", "INTERACTION_CREATED", "INTERACTION_CHANGED", "ENTITIES_SPLITTED",
          "ENTITIES_MATCHES_CHANGED", "RELATIONSHIP_MERGED", "CHANGE_REQUEST_CREATED", "CHANGE_REQUEST_CHANGED"}

heaps = defaultdict(list)
n = 0


def handle(text):
    global n
    try:
        m = json.loads(text)
        hd = m["headers"]
    except (ValueError, KeyError, TypeError):
        return
    pl = m.get("payload") if isinstance(m.get("payload"), dict) else {}
    if hd.get("tenantId") not in (None, os.environ.get("LCKIT_TENANT") or hd.get("tenantId")):
        return
    et = hd.get("eventType") or pl.get("type")
    if et not in ENDS and et not in OTHERS:
        return
    uri = hd.get("sourceObjectUri") or pl.get("uri") or (pl.get("object") or {}).get("uri")
    if not uri:
        return
    n += 1
    ov = hd.get("objectVersion")
    ov = int(ov) if isinstance(ov, (int, str)) and str(ov).lstrip("-").isdigit() else None
    heapq.heappush(heaps[uri], (0 if ov is not None else 1, ov or 0, n, et, pl))


def changes(pl):
    d = pl.get("deltas")
    if isinstance(d, dict) and "deltaCollection" in d:
        d = d["deltaCollection"]
    return d["delta"] if isinstance(d, dict) and isinstance(d.get("delta"), list) else []


def emit(*_):
    with open(os.environ["LCKIT_VIEW_FILE"], "w") as fo:
        for uri, h in heaps.items():
            attrs, gone, ver, done = None, False, None, set()
            while h:
                kind, ov, _, et, pl = heapq.heappop(h)
                if kind == 0:
                    if ov in done:
                        continue
                    done.add(ov)
                    ver = ov
                gone = et in ENDS
                if isinstance(pl.get("object"), dict):
                    attrs = pl["object"].get("attributes", attrs) if isinstance(pl["object"].get("attributes", {}), dict) else attrs
                elif "deltas" in pl and not pl.get("exceededQueueSizeLimit"):
                    attrs = dict(attrs or {})
                    for c in changes(pl):
                        if not isinstance(c, dict) or not isinstance(c.get("attributeType"), str):
                            continue
                        a = c["attributeType"].split("/")[-1]
                        ids = ((c.get("oldValue") or {}).get("id"), (c.get("newValue") or {}).get("id"))
                        hit = lambda v: isinstance(v, dict) and v.get("id") is not None and v.get("id") in ids
                        prev = attrs.get(a, [])
                        where = next((i for i, v in enumerate(prev) if hit(v)), len(prev))
                        vals = [v for v in prev if not hit(v)]
                        if c.get("type") != "ATTRIBUTE_REMOVED" and c.get("newValue") is not None:
                            vals.insert(min(where, len(vals)), c["newValue"])
                        if vals:
                            attrs[a] = vals
                        else:
                            attrs.pop(a, None)
                if et == "ENTITY_REMOVED_GDPR":
                    attrs = None
            rec = {"uri": uri, "removed": gone}
            if ver is not None:
                rec["objectVersion"] = ver
            if attrs is not None and not gone:
                rec["attributes"] = attrs
            fo.write(json.dumps(rec) + "\n")
    sys.exit(0)


signal.signal(signal.SIGTERM, emit)
want = int(os.environ.get("LCKIT_MESSAGES") or 0)
have, pos, rest = 0, 0, ""
until = time.time() + 40
while have < want and time.time() < until:
    try:
        with open(os.environ["LCKIT_EVENTS_FILE"], encoding="utf-8") as f:
            f.seek(pos)
            rest += f.read()
            pos = f.tell()
    except OSError:
        pass
    parts = rest.split("\n")
    rest = parts.pop()
    for p in parts:
        if p.strip():
            have += 1
            handle(p)
    if have < want:
        time.sleep(0.1)
if rest.strip():
    handle(rest)
emit()
