#!/usr/bin/env python3
"""Compliance archive consumer: stores every message in an in-memory SQLite journal,
then materialises each object's state by replaying its journal in objectVersion order."""
import json, os, signal, sqlite3, sys, time

TENANT = os.environ.get("LCKIT_TENANT")
SRC = os.environ["LCKIT_EVENTS_FILE"]
DST = os.environ["LCKIT_VIEW_FILE"]
WANT = int(os.environ.get("LCKIT_MESSAGES", "0") or 0)

GONE = {"ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE", "RELATIONSHIP_REMOVED",
        "RELATIONSHIP_REMOVED_GDPR", "RELATION_LOST_MERGE", "INTERACTION_REMOVED",
        "CHANGE_REQUEST_REMOVED", "GROUP_REMOVED"}
LIVE = {"ENTITY_CREATED", "ENTITY_CHANGED", "RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED", "GROUP_CREATED",
        "GROUP_CHANGED", "INTERACTION_CREATED", "INTERACTION_CHANGED", "ENTITIES_SPLITTED",
        "ENTITIES_MATCHES_CHANGED", "RELATIONSHIP_MERGED", "ENTITY_BUSINESS_PROCESS_CHANGED",
        "CHANGE_REQUEST_CREATED", "CHANGE_REQUEST_CHANGED"}

db = sqlite3.connect(":memory:")
db.execute("create table journal (n integer primary key, uri text, ver integer, etype text, body text)")
finished = False


def ingest(n, line):
    try:
        msg = json.loads(line)
    except ValueError:
        return
    if not isinstance(msg, dict):
        return
    hdr = msg.get("headers") or {}
    body = msg.get("payload") if isinstance(msg.get("payload"), dict) else {}
    if TENANT and hdr.get("tenantId") not in (None, TENANT):
        return
    etype = hdr.get("eventType") or body.get("type")
    if etype not in GONE and etype not in LIVE:
        return
    obj = body.get("object") if isinstance(body.get("object"), dict) else {}
    uri = hdr.get("sourceObjectUri") or body.get("uri") or obj.get("uri")
    if not uri:
        return
    ver = hdr.get("objectVersion")
    try:
        ver = int(ver) if ver is not None else None
    except (TypeError, ValueError):
        ver = None
    db.execute("insert into journal values (?,?,?,?,?)", (n, uri, ver, etype, json.dumps(body)))


def delta_list(d):
    if not isinstance(d, dict):
        return []
    if isinstance(d.get("deltaCollection"), dict):
        d = d["deltaCollection"]
    items = d.get("delta")
    return items if isinstance(items, list) else []


def apply(attrs, items):
    for it in items:
        if not isinstance(it, dict) or not isinstance(it.get("attributeType"), str):
            continue
        key = it["attributeType"].rsplit("/", 1)[-1]
        vals = list(attrs.get(key, []))
        old = (it.get("oldValue") or {}).get("id") if isinstance(it.get("oldValue"), dict) else None
        pos = next((i for i, v in enumerate(vals) if isinstance(v, dict) and old is not None and v.get("id") == old), None)
        if it.get("type") == "ATTRIBUTE_REMOVED":
            if pos is not None:
                del vals[pos]
        elif "newValue" in it:
            new = it["newValue"]
            nid = new.get("id") if isinstance(new, dict) else None
            same = next((i for i, v in enumerate(vals) if isinstance(v, dict) and nid is not None and v.get("id") == nid), None)
            if pos is not None:
                vals[pos] = new
            elif same is not None:
                vals[same] = new
            else:
                vals.append(new)
        if vals:
            attrs[key] = vals
        else:
            attrs.pop(key, None)


def materialise():
    rows = db.execute("select uri, ver, etype, body, n from journal order by uri, ver is null, ver, n").fetchall()
    # unversioned rows (no objectVersion header) keep arrival order
    views = {}
    for uri, ver, etype, body, n in rows:
        st = views.setdefault(uri, {"uri": uri, "removed": False, "_vers": set(), "_attrs": None, "_ver": None})
        if ver is not None:
            if ver in st["_vers"]:
                continue
            st["_vers"].add(ver)
            st["_ver"] = ver
        body = json.loads(body)
        st["removed"] = etype in GONE
        if isinstance(body.get("object"), dict):
            if isinstance(body["object"].get("attributes"), dict):
                st["_attrs"] = body["object"]["attributes"]
        elif "deltas" in body and not body.get("exceededQueueSizeLimit"):
            a = dict(st["_attrs"] or {})
            apply(a, delta_list(body["deltas"]))
            st["_attrs"] = a
        if etype == "ENTITY_REMOVED_GDPR":
            st["_attrs"] = None
    return views


def flush(*_):
    global finished
    if finished:
        return
    finished = True
    with open(DST, "w") as f:
        for uri, st in materialise().items():
            out = {"uri": uri, "removed": st["removed"]}
            if st["_ver"] is not None:
                out["objectVersion"] = st["_ver"]
            if st["_attrs"] is not None:
                out["attributes"] = st["_attrs"]
            f.write(json.dumps(out, sort_keys=True) + "\n")
    sys.exit(0)


signal.signal(signal.SIGTERM, flush)
deadline = time.monotonic() + 40
count = 0
pos = 0
pending = b""
while True:
    try:
        with open(SRC, "rb") as fh:
            fh.seek(pos)
            chunk = fh.read()
            pos += len(chunk)
    except OSError:
        chunk = b""
    pending += chunk
    *complete, pending = pending.split(b"\n")
    for line in complete:
        if line.strip():
            count += 1
            ingest(count, line.decode("utf-8", "replace"))
    if count >= WANT or time.monotonic() > deadline:
        if pending.strip():
            count += 1
            ingest(count, pending.decode("utf-8", "replace"))
        break
    time.sleep(0.1)
flush()
