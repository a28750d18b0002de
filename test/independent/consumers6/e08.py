#!/usr/bin/env python3
"""Team "Lattice" -- golden-record lifecycle tracker for a stewardship UI.

Each object has a lifecycle status (ACTIVE, DELETED, MERGED) driven by a transition table of event types;
the view shows the status next to the data. An object that lost a merge keeps its record with status MERGED
(its data lives on in the winner) and comes back to ACTIVE when a split unmerges it. Messages are kept per
object in version order (bisect) and folded when the view is written.
"""
import bisect
import json
import os
import signal
import sys
import time

TRANSITIONS = {
    "ENTITY_CREATED": "ACTIVE", "ENTITY_CHANGED": "ACTIVE", "ENTITIES_SPLITTED": "ACTIVE",
    "ENTITIES_MATCHES_CHANGED": "ACTIVE", "ENTITY_BUSINESS_PROCESS_CHANGED": "ACTIVE",
    "ENTITY_REMOVED": "DELETED", "ENTITY_REMOVED_GDPR": "DELETED", "ENTITY_LOST_MERGE": "MERGED",
    "RELATIONSHIP_CREATED": "ACTIVE", "RELATIONSHIP_CHANGED": "ACTIVE", "RELATIONSHIP_MERGED": "ACTIVE",
    "RELATIONSHIP_REMOVED": "DELETED", "RELATIONSHIP_REMOVED_GDPR": "DELETED", "RELATION_LOST_MERGE": "MERGED",
    "INTERACTION_CREATED": "ACTIVE", "INTERACTION_CHANGED": "ACTIVE", "INTERACTION_REMOVED": "DELETED",
    "CHANGE_REQUEST_CREATED": "ACTIVE", "CHANGE_REQUEST_CHANGED": "ACTIVE", "CHANGE_REQUEST_REMOVED": "DELETED",
    "GROUP_CREATED": "ACTIVE", "GROUP_CHANGED": "ACTIVE", "GROUP_REMOVED": "DELETED",
}


class Track:
    __slots__ = ("keys", "items")

    def __init__(self):
        self.keys = []
        self.items = []

    def put(self, version, item):
        i = bisect.bisect_left(self.keys, version)
        if i < len(self.keys) and self.keys[i] == version:
            return False
        self.keys.insert(i, version)
        self.items.insert(i, item)
        return True


tracks = {}
late_no_version = [0]


def on_line(text):
    try:
        m = json.loads(text)
    except ValueError:
        return
    if not isinstance(m, dict):
        return
    h = m.get("headers") if isinstance(m.get("headers"), dict) else {}
    p = m.get("payload") if isinstance(m.get("payload"), dict) else {}
    t = os.environ.get("LCKIT_TENANT")
    if t and h.get("tenantId") is not None and h["tenantId"] != t:
        return
    etype = h.get("eventType") or p.get("type")
    if etype not in TRANSITIONS:
        return
    uri = h.get("sourceObjectUri") or p.get("uri") or (p.get("object") or {}).get("uri")
    if not uri:
        return
    raw = h.get("objectVersion")
    try:
        version = float(raw)
    except (TypeError, ValueError):
        late_no_version[0] += 1
        version = 1e15 + late_no_version[0]
    tracks.setdefault(uri, Track()).put(version, (etype, p))


def ref(v):
    if isinstance(v, dict):
        if v.get("id") is not None:
            return "i:" + str(v["id"])
        if isinstance(v.get("uri"), str):
            return "i:" + v["uri"].split("/")[-1]
        return "v:" + json.dumps(v.get("value"), sort_keys=True)
    return "?"


def apply_items(attrs, items):
    for d in items:
        if not isinstance(d, dict):
            continue
        at = d.get("attributeType")
        if not isinstance(at, str) or "/attributes/" not in at:
            continue
        name = at.partition("/attributes/")[2].partition("/")[0]
        cur = list(attrs.get(name, ()))
        typ = d.get("type")
        if typ == "ATTRIBUTE_ADDED" and isinstance(d.get("newValue"), dict):
            if all(ref(x) != ref(d["newValue"]) for x in cur):
                cur.append(d["newValue"])
        elif typ == "ATTRIBUTE_CHANGED" and isinstance(d.get("newValue"), dict):
            pos = [i for i, x in enumerate(cur) if ref(x) == ref(d.get("oldValue"))]
            if pos:
                cur[pos[0]] = d["newValue"]
            elif len(cur) == 1:
                cur = [d["newValue"]]
            else:
                cur.append(d["newValue"])
        elif typ == "ATTRIBUTE_REMOVED":
            cur = [x for x in cur if ref(x) != ref(d.get("oldValue"))]
        else:
            continue
        if cur:
            attrs[name] = cur
        else:
            attrs.pop(name, None)
    return attrs


def fold(track):
    status, attrs = None, None
    for etype, p in track.items:
        status = TRANSITIONS[etype]
        obj = p.get("object")
        if isinstance(obj, dict) and isinstance(obj.get("attributes"), dict):
            attrs = obj["attributes"]
        elif isinstance(p.get("deltas"), dict):
            dc = p["deltas"].get("deltaCollection") if isinstance(p["deltas"].get("deltaCollection"), dict) else p["deltas"]
            if isinstance(dc.get("delta"), list):
                attrs = apply_items(dict(attrs or {}), dc["delta"])
    return status, attrs


def finish(*_):
    out = []
    for uri, track in tracks.items():
        status, attrs = fold(track)
        row = {"uri": uri, "removed": status == "DELETED", "status": status}
        if attrs is not None:
            row["attributes"] = attrs
        out.append(json.dumps(row))
    with open(os.environ.get("LCKIT_VIEW_FILE", "view.ndjson"), "w") as f:
        f.write("".join(line + "\n" for line in out))
    sys.exit(0)


def run():
    signal.signal(signal.SIGTERM, finish)
    src = os.environ.get("LCKIT_EVENTS_FILE")
    need = int(os.environ.get("LCKIT_MESSAGES") or 0) if (os.environ.get("LCKIT_MESSAGES") or "0").isdigit() else 0
    stop = time.time() + 40
    off, got, rest = 0, 0, b""
    while src:
        try:
            with open(src, "rb") as f:
                f.seek(off)
                blob = f.read()
        except OSError:
            blob = b""
        off += len(blob)
        rest += blob
        parts = rest.split(b"\n")
        rest = parts.pop()
        for part in parts:
            if part.strip():
                got += 1
                on_line(part.decode("utf-8", "replace"))
        if need <= 0 or got >= need or time.time() >= stop:
            break
        time.sleep(0.08)
    if rest.strip():
        on_line(rest.decode("utf-8", "replace"))
    finish()


run()
