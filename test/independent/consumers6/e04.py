#!/usr/bin/env python3
"""Reporting warehouse loader (team "Quarry").

Every event is written to an in-memory SQLite journal whose primary key is (object URI, objectVersion), so a
re-sent message is ignored by the database itself. The view is a fold over the journal ordered by version.
"""
import json
import os
import signal
import sqlite3
import sys
import time

TENANT = os.environ.get("LCKIT_TENANT")
SOURCE = os.environ.get("LCKIT_EVENTS_FILE")
TARGET = os.environ.get("LCKIT_VIEW_FILE", "view.ndjson")
try:
    EXPECTED = int(os.environ.get("LCKIT_MESSAGES") or 0)
except ValueError:
    EXPECTED = 0

GONE = {
    "ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE",
    "RELATIONSHIP_REMOVED", "RELATIONSHIP_REMOVED_GDPR", "RELATION_LOST_MERGE",
    "INTERACTION_REMOVED", "CHANGE_REQUEST_REMOVED", "GROUP_REMOVED",
}
ALIVE = {
    "ENTITY_CREATED", "ENTITY_CHANGED", "ENTITIES_SPLITTED", "ENTITIES_MATCHES_CHANGED",
    "ENTITY_BUSINESS_PROCESS_CHANGED", "RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED", "RELATIONSHIP_MERGED",
    "INTERACTION_CREATED", "INTERACTION_CHANGED", "CHANGE_REQUEST_CREATED", "CHANGE_REQUEST_CHANGED",
    "GROUP_CREATED", "GROUP_CHANGED",
}

db = sqlite3.connect(":memory:")
db.execute("CREATE TABLE journal (uri TEXT, ver INTEGER, arrival INTEGER, etype TEXT, body TEXT,"
           " PRIMARY KEY (uri, ver))")
arrival = 0
unversioned_base = 10 ** 12  # messages without objectVersion sort after every versioned one, by arrival


def to_version(raw):
    if isinstance(raw, bool) or raw is None:
        return None
    try:
        return int(str(raw).strip())
    except ValueError:
        return None


def take(line):
    global arrival
    arrival += 1
    try:
        msg = json.loads(line)
    except ValueError:
        return
    if not isinstance(msg, dict):
        return
    headers = msg.get("headers") or {}
    body = msg.get("payload") if isinstance(msg.get("payload"), dict) else {}
    if TENANT and headers.get("tenantId") not in (None, TENANT):
        return
    etype = headers.get("eventType") or body.get("type")
    if etype not in GONE and etype not in ALIVE:
        return
    uri = headers.get("sourceObjectUri") or body.get("uri") or (body.get("object") or {}).get("uri")
    if not uri:
        return
    ver = to_version(headers.get("objectVersion"))
    if ver is None:
        ver = unversioned_base + arrival
    db.execute("INSERT OR IGNORE INTO journal VALUES (?, ?, ?, ?, ?)", (uri, ver, arrival, etype, json.dumps(body)))


def short_name(attribute_type):
    tail = str(attribute_type).split("/attributes/", 1)
    return (tail[1] if len(tail) == 2 else tail[0]).split("/")[0]


def value_key(v):
    if not isinstance(v, dict):
        return ("raw", json.dumps(v, sort_keys=True))
    if v.get("id"):
        return ("id", str(v["id"]))
    if isinstance(v.get("uri"), str):
        return ("id", v["uri"].rsplit("/", 1)[-1])
    return ("raw", json.dumps(v.get("value"), sort_keys=True))


def fold_deltas(uri, attrs, deltas):
    coll = deltas.get("deltaCollection") if isinstance(deltas.get("deltaCollection"), dict) else deltas
    items = coll.get("delta") if isinstance(coll, dict) else None
    if not isinstance(items, list):
        return attrs
    for item in items:
        if not isinstance(item, dict) or not item.get("attributeType"):
            continue
        name = short_name(item["attributeType"])
        held = list(attrs.get(name, []))
        kind = item.get("type")
        new, old = item.get("newValue"), item.get("oldValue")

        def as_value(v):
            out = {k: v[k] for k in v if k != "sources"}
            out["type"] = item["attributeType"]
            out["uri"] = "%s/attributes/%s/%s" % (uri, name, v.get("id", ""))
            return out

        positions = [i for i, h in enumerate(held) if old is not None and value_key(h) == value_key(old)]
        if kind == "ATTRIBUTE_ADDED" and isinstance(new, dict):
            if not any(value_key(h) == value_key(new) for h in held):
                held.append(as_value(new))
        elif kind == "ATTRIBUTE_CHANGED" and isinstance(new, dict):
            if positions:
                held[positions[0]] = as_value(new)
            elif len(held) == 1:
                held = [as_value(new)]
            else:
                held.append(as_value(new))
        elif kind == "ATTRIBUTE_REMOVED":
            for i in reversed(positions):
                del held[i]
        else:
            continue
        if held:
            attrs[name] = held
        else:
            attrs.pop(name, None)
    return attrs


def build_view():
    view = {}
    for uri, ver, etype, body in db.execute("SELECT uri, ver, etype, body FROM journal ORDER BY uri, ver"):
        body = json.loads(body)
        row = view.setdefault(uri, {"uri": uri, "removed": False, "attributes": None, "journalRows": 0})
        row["journalRows"] += 1
        row["removed"] = etype in GONE
        obj = body.get("object")
        if isinstance(obj, dict) and isinstance(obj.get("attributes"), dict):
            row["attributes"] = obj["attributes"]
        elif isinstance(body.get("deltas"), dict):
            row["attributes"] = fold_deltas(uri, dict(row["attributes"] or {}), body["deltas"])
    return view


def write_and_leave(*_):
    view = build_view()
    with open(TARGET, "w") as fh:
        for row in view.values():
            if row["attributes"] is None:
                del row["attributes"]
            fh.write(json.dumps(row) + "\n")
    sys.exit(0)


signal.signal(signal.SIGTERM, write_and_leave)


def main():
    if not SOURCE:
        write_and_leave()
    seen = 0
    offset = 0
    pending = ""
    give_up = time.monotonic() + 40
    while True:
        try:
            with open(SOURCE, "r", encoding="utf-8") as fh:
                fh.seek(offset)
                chunk = fh.read()
                offset = fh.tell()
        except OSError:
            chunk = ""
        pending += chunk
        *complete, pending = pending.split("\n")
        for line in complete:
            if line.strip():
                seen += 1
                take(line)
        if EXPECTED <= 0 or seen >= EXPECTED or time.monotonic() > give_up:
            if pending.strip():
                take(pending)
            break
        time.sleep(0.05)
    write_and_leave()


if __name__ == "__main__":
    main()
