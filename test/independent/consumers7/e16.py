#!/usr/bin/env python3
"""Event-sourced cache: sorts the whole stream by objectVersion, drops re-sends, and folds
the events into per-object documents."""
import json, os, signal, sys, time

env = os.environ
REMOVED = {"ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE", "RELATIONSHIP_REMOVED",
           "RELATIONSHIP_REMOVED_GDPR", "RELATION_LOST_MERGE", "INTERACTION_REMOVED", "CHANGE_REQUEST_REMOVED",
           "GROUP_REMOVED"}
ALL = REMOVED | {"ENTITY_CREATED", "ENTITY_CHANGED", "RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED",
                 "GROUP_CREATED", "GROUP_CHANGED", "INTERACTION_CREATED", "INTERACTION_CHANGED",
                 "ENTITIES_SPLITTED", "ENTITIES_MATCHES_CHANGED", "RELATIONSHIP_MERGED",
                 "ENTITY_BUSINESS_PROCESS_CHANGED", "CHANGE_REQUEST_CREATED", "CHANGE_REQUEST_CHANGED"}
stream = []


def parse(line):
    try:
        m = json.loads(line)
    except ValueError:
        return
    if not isinstance(m, dict) or not isinstance(m.get("headers"), dict):
        return
    h, p = m["headers"], m.get("payload") if isinstance(m.get("payload"), dict) else {}
    if env.get("LCKIT_TENANT") and h.get("tenantId") not in (None, env["LCKIT_TENANT"]):
        return
    et = h.get("eventType") or p.get("type")
    uri = h.get("sourceObjectUri") or p.get("uri") or (p.get("object") or {}).get("uri")
    if et in ALL and uri:
        v = h.get("objectVersion")
        stream.append({"seq": len(stream), "v": int(v) if v is not None else None, "et": et, "uri": uri, "p": p})


def build():
    docs = {}
    applied = set()
    order = sorted(stream, key=lambda e: (e["v"] is None, e["v"] if e["v"] is not None else 0, e["seq"]))
    for e in order:
        d = docs.setdefault(e["uri"], {"uri": e["uri"], "removed": False})
        if e["v"] is not None:
            if e["v"] in applied:
                continue  # same version already folded: a re-send
            applied.add(e["v"])
        if e["v"] is not None:
            d["objectVersion"] = e["v"]
        d["removed"] = e["et"] in REMOVED
        p = e["p"]
        if isinstance(p.get("object"), dict):
            if isinstance(p["object"].get("attributes"), dict):
                d["attributes"] = p["object"]["attributes"]
        elif "deltas" in p and not p.get("exceededQueueSizeLimit"):
            attrs = {k: list(v) for k, v in (d.get("attributes") or {}).items()}
            coll = p["deltas"]
            if isinstance(coll, dict) and isinstance(coll.get("deltaCollection"), dict):
                coll = coll["deltaCollection"]
            items = coll.get("delta") if isinstance(coll, dict) else None
            for it in items if isinstance(items, list) else []:
                if not isinstance(it, dict) or not isinstance(it.get("attributeType"), str):
                    continue
                key = it["attributeType"].split("/")[-1]
                oid = (it.get("oldValue") or {}).get("id") if isinstance(it.get("oldValue"), dict) else None
                nv = it.get("newValue")
                nid = nv.get("id") if isinstance(nv, dict) else None
                cur = attrs.get(key, [])
                idx = [i for i, x in enumerate(cur) if isinstance(x, dict) and oid is not None and x.get("id") == oid]
                if it.get("type") == "ATTRIBUTE_REMOVED":
                    cur = [x for i, x in enumerate(cur) if i not in idx]
                elif nv is not None:
                    if idx:
                        cur[idx[0]] = nv
                    else:
                        cur = [x for x in cur if not (isinstance(x, dict) and nid is not None and x.get("id") == nid)] + [nv]
                if cur:
                    attrs[key] = cur
                else:
                    attrs.pop(key, None)
            d["attributes"] = attrs
        if e["et"] == "ENTITY_REMOVED_GDPR":
            d.pop("attributes", None)
    return docs


def write(*_):
    with open(env["LCKIT_VIEW_FILE"], "w") as f:
        for d in build().values():
            f.write(json.dumps(d) + "\n")
    sys.exit(0)


signal.signal(signal.SIGTERM, write)
expect = int(env.get("LCKIT_MESSAGES") or 0)
lines_read, at, part = 0, 0, ""
end = time.time() + 40
while lines_read < expect and time.time() < end:
    try:
        with open(env["LCKIT_EVENTS_FILE"]) as f:
            f.seek(at)
            part += f.read()
            at = f.tell()
    except OSError:
        pass
    *ready, part = part.split("\n")
    for r in ready:
        if r.strip():
            lines_read += 1
            parse(r)
    if lines_read < expect:
        time.sleep(0.1)
if part.strip():
    parse(part)
write()
