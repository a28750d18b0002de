#!/usr/bin/env python3
"""Relationship graph mirror: keeps entities, relations, interactions and change requests;
each object is a sorted list of (version, event) folded at the end."""
import bisect, json, os, signal, sys, time

DELETES = ["ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE", "RELATIONSHIP_REMOVED",
           "RELATION_LOST_MERGE", "INTERACTION_REMOVED", "CHANGE_REQUEST_REMOVED", "GROUP_REMOVED"]
TYPES = DELETES + ["ENTITY_CREATED", "ENTITY_CHANGED", "RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED",
                   "RELATIONSHIP_REMOVED_GDPR", "GROUP_CREATED", "GROUP_CHANGED", "INTERACTION_CREATED",
                   "INTERACTION_CHANGED", "ENTITIES_SPLITTED", "ENTITIES_MATCHES_CHANGED", "RELATIONSHIP_MERGED",
                   "ENTITY_BUSINESS_PROCESS_CHANGED", "CHANGE_REQUEST_CREATED", "CHANGE_REQUEST_CHANGED"]
graph = {}
tick = 0


def add(raw):
    global tick
    try:
        m = json.loads(raw)
        h = dict(m.get("headers") or {})
    except (ValueError, AttributeError, TypeError):
        return
    p = m.get("payload") if isinstance(m.get("payload"), dict) else {}
    if os.environ.get("LCKIT_TENANT") and h.get("tenantId", os.environ["LCKIT_TENANT"]) != os.environ["LCKIT_TENANT"]:
        return
    t = h.get("eventType") or p.get("type")
    u = h.get("sourceObjectUri") or p.get("uri") or (p.get("object") or {}).get("uri")
    if t not in TYPES or not u:
        return
    tick += 1
    v = h.get("objectVersion")
    k = (0, int(v), 0) if v is not None else (1, 0, tick)
    lst = graph.setdefault(u, [])
    i = bisect.bisect_left([e[0] for e in lst], k)
    if i < len(lst) and lst[i][0] == k and k[0] == 0:
        return  # already have this version
    lst.insert(i, (k, t, p))


def mutate(attrs, deltas):
    col = deltas.get("deltaCollection", deltas) if isinstance(deltas, dict) else {}
    for d in col.get("delta", []) if isinstance(col, dict) and isinstance(col.get("delta"), list) else []:
        if not (isinstance(d, dict) and isinstance(d.get("attributeType"), str)):
            continue
        nm = d["attributeType"].split("/")[-1]
        oid = (d.get("oldValue") or {}).get("id")
        nv = d.get("newValue")
        nid = nv.get("id") if isinstance(nv, dict) else None
        vals = attrs.get(nm, [])
        at = next((i for i, x in enumerate(vals) if isinstance(x, dict) and x.get("id") is not None and x.get("id") == oid), None)
        if at is None:
            at = next((i for i, x in enumerate(vals) if isinstance(x, dict) and x.get("id") is not None and x.get("id") == nid), None)
        vals = [x for x in vals if not (isinstance(x, dict) and x.get("id") is not None and x.get("id") in (oid, nid))]
        if d.get("type") != "ATTRIBUTE_REMOVED" and nv is not None:
            vals.insert(at if at is not None and at <= len(vals) else len(vals), nv)
        if vals:
            attrs[nm] = vals
        else:
            attrs.pop(nm, None)
    return attrs


def finish(*_):
    rows = []
    for u, lst in graph.items():
        row = {"uri": u, "removed": False, "kind": u.split("/")[0]}
        attrs = None
        for k, t, p in lst:
            if k[0] == 0:
                row["objectVersion"] = k[1]
            row["removed"] = t in DELETES
            o = p.get("object")
            if isinstance(o, dict):
                attrs = o["attributes"] if isinstance(o.get("attributes"), dict) else attrs
            elif "deltas" in p and not p.get("exceededQueueSizeLimit"):
                attrs = mutate(dict(attrs or {}), p["deltas"])
            if t == "ENTITY_REMOVED_GDPR":
                attrs = None
        if attrs is not None:
            row["attributes"] = attrs
        rows.append(json.dumps(row))
    open(os.environ["LCKIT_VIEW_FILE"], "w").write("\n".join(rows) + ("\n" if rows else ""))
    sys.exit(0)


signal.signal(signal.SIGTERM, finish)
need = int(os.environ.get("LCKIT_MESSAGES") or 0)
count, cursor, buf, t0 = 0, 0, "", time.time()
while count < need and time.time() - t0 < 40:
    try:
        with open(os.environ["LCKIT_EVENTS_FILE"]) as fh:
            fh.seek(cursor)
            buf += fh.read()
            cursor = fh.tell()
    except OSError:
        pass
    lines = buf.split("\n")
    buf = lines[-1]
    for ln in lines[:-1]:
        if ln.strip():
            count += 1
            add(ln)
    if count < need:
        time.sleep(0.1)
if buf.strip():
    add(buf)
finish()
