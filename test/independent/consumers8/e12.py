#!/usr/bin/env python3
# Reporting team: lands every event of the tenant in an in-memory SQLite table and derives the
# view with SQL (latest objectVersion per object), then folds attribute changes in Python.
import json
import os
import signal
import sqlite3
import sys
import time

db = sqlite3.connect(":memory:")
db.execute("""CREATE TABLE ev (uri TEXT NOT NULL, ver INTEGER, seq INTEGER NOT NULL,
              etype TEXT NOT NULL, body TEXT NOT NULL, digest TEXT NOT NULL)""")
db.execute("CREATE UNIQUE INDEX ev_ver ON ev(uri, ver) WHERE ver IS NOT NULL")
db.execute("CREATE UNIQUE INDEX ev_dig ON ev(uri, digest) WHERE ver IS NULL")

TOMBSTONES = ("ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE", "RELATIONSHIP_REMOVED",
              "RELATIONSHIP_REMOVED_GDPR", "RELATION_LOST_MERGE", "INTERACTION_REMOVED",
              "CHANGE_REQUEST_REMOVED")
HANDLED = set(TOMBSTONES) | {
    "ENTITY_CREATED", "ENTITY_CHANGED", "RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED",
    "INTERACTION_CREATED", "INTERACTION_CHANGED", "CHANGE_REQUEST_CREATED", "CHANGE_REQUEST_CHANGED",
    "ENTITIES_SPLITTED", "ENTITIES_MATCHES_CHANGED", "RELATIONSHIP_MERGED",
    "ENTITY_BUSINESS_PROCESS_CHANGED"}
seq = 0


def land(line):
    global seq
    try:
        m = json.loads(line)
        hdr = m.get("headers") or {}
        body = m.get("payload") or {}
    except (ValueError, AttributeError):
        return
    if not isinstance(hdr, dict) or not isinstance(body, dict):
        return
    if os.environ.get("LCKIT_TENANT") and hdr.get("tenantId", os.environ["LCKIT_TENANT"]) != os.environ["LCKIT_TENANT"]:
        return
    etype = hdr.get("eventType") or body.get("type")
    if etype not in HANDLED:
        return
    uri = hdr.get("sourceObjectUri") or body.get("uri") or (body.get("object") or {}).get("uri")
    if not isinstance(uri, str) or not uri:
        return
    ver = hdr.get("objectVersion")
    if type(ver) is not int:
        ver = None
    seq += 1
    text = json.dumps(body, sort_keys=True)
    db.execute("INSERT OR IGNORE INTO ev VALUES (?,?,?,?,?,?)", (uri, ver, seq, etype, text, etype + text))


def name_of(attribute_type):
    parts = attribute_type.split("/attributes/")
    return parts[1].split("/")[0] if len(parts) > 1 else None


def fold(uri, rows):
    attrs = None
    for etype, text in rows:
        body = json.loads(text)
        if etype.endswith("_CREATED") or etype.endswith("_GDPR"):
            attrs = None
        if etype.endswith("_GDPR"):
            continue
        obj = body.get("object")
        if isinstance(obj, dict) and isinstance(obj.get("attributes"), dict):
            attrs = {k: list(v) for k, v in obj["attributes"].items() if isinstance(v, list)}
            continue
        deltas = body.get("deltas")
        if not isinstance(deltas, dict):
            continue
        holder = deltas.get("deltaCollection") if isinstance(deltas.get("deltaCollection"), dict) else deltas
        for d in holder.get("delta") or []:
            if not isinstance(d, dict) or not isinstance(d.get("attributeType"), str):
                continue
            nm = name_of(d["attributeType"])
            if not nm:
                continue
            attrs = attrs if attrs is not None else {}
            cur = attrs.get(nm, [])
            old = d.get("oldValue")
            if isinstance(old, dict):
                tag = "/" + str(old.get("id"))
                trimmed = [x for x in cur if not str(x.get("uri", "")).endswith(tag)]
                if len(trimmed) == len(cur):
                    for i, x in enumerate(cur):
                        if x.get("value") == old.get("value"):
                            trimmed = cur[:i] + cur[i + 1:]
                            break
                cur = trimmed
            new = d.get("newValue")
            if d.get("type") != "ATTRIBUTE_REMOVED" and isinstance(new, dict):
                el = {"type": d["attributeType"]}
                el.update({k: v for k, v in new.items() if k not in ("id", "sources")})
                el["uri"] = "%s/attributes/%s/%s" % (uri, nm, new.get("id"))
                cur = [x for x in cur if x.get("uri") != el["uri"]] + [el]
            if cur:
                attrs[nm] = cur
            else:
                attrs.pop(nm, None)
    return attrs


def dump(*_):
    out = []
    uris = [r[0] for r in db.execute("SELECT DISTINCT uri FROM ev ORDER BY uri")]
    for uri in uris:
        rows = db.execute("""SELECT ver, etype, body FROM ev WHERE uri=?
                             ORDER BY CASE WHEN ver IS NULL THEN seq ELSE ver END, seq""", (uri,)).fetchall()
        top_ver, top_type = rows[-1][0], rows[-1][1]
        rec = {"uri": uri, "removed": top_type in TOMBSTONES, "events": len(rows), "latestEventType": top_type}
        if top_ver is not None:
            rec["objectVersion"] = top_ver
        attrs = fold(uri, [(r[1], r[2]) for r in rows])
        if attrs is not None and not rec["removed"]:
            rec["attributes"] = attrs
        out.append(json.dumps(rec, separators=(",", ":")))
    with open(os.environ["LCKIT_VIEW_FILE"], "w") as f:
        f.write("".join(line + "\n" for line in out))
    sys.exit(0)


signal.signal(signal.SIGTERM, dump)
expected = int(os.environ.get("LCKIT_MESSAGES") or 0)
stop_at = time.monotonic() + 40
lines_read, leftover, where = 0, b"", 0
while True:
    try:
        with open(os.environ["LCKIT_EVENTS_FILE"], "rb") as f:
            f.seek(where)
            data = f.read()
            where += len(data)
    except OSError:
        data = b""
    leftover += data
    while b"\n" in leftover:
        raw, leftover = leftover.split(b"\n", 1)
        if raw.strip():
            lines_read += 1
            land(raw.decode("utf-8", "replace"))
    if expected == 0 or lines_read >= expected or time.monotonic() > stop_at:
        break
    time.sleep(0.04)
if leftover.strip():
    land(leftover.decode("utf-8", "replace"))
dump()
