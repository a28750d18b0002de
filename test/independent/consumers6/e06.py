#!/usr/bin/env python3
# Team "Sextant": feeds a recommendation model with a tenant's current objects.
#
# Messages are flattened into (uri, version, arrival, type, payload) rows; at the end the rows are sorted and
# grouped by object with itertools.groupby, re-sends (same uri and version) are skipped, and each group is
# folded. Both payload types are read: a snapshot's object.attributes, or, for a deltas message, the
# attribute values its delta items give.
import itertools
import json
import os
import signal
import sys
import time

DEAD = ("ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE", "RELATIONSHIP_REMOVED",
        "RELATIONSHIP_REMOVED_GDPR", "RELATION_LOST_MERGE", "INTERACTION_REMOVED", "CHANGE_REQUEST_REMOVED",
        "GROUP_REMOVED")
LIVE = ("ENTITY_CREATED", "ENTITY_CHANGED", "ENTITIES_SPLITTED", "ENTITIES_MATCHES_CHANGED",
        "ENTITY_BUSINESS_PROCESS_CHANGED", "RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED", "RELATIONSHIP_MERGED",
        "INTERACTION_CREATED", "INTERACTION_CHANGED", "CHANGE_REQUEST_CREATED", "CHANGE_REQUEST_CHANGED",
        "GROUP_CREATED", "GROUP_CHANGED")

rows = []
counter = itertools.count()
WANT_TENANT = os.environ.get("LCKIT_TENANT")


def admit(msg):
    n = next(counter)
    h = msg.get("headers") or {}
    p = msg.get("payload") if isinstance(msg.get("payload"), dict) else {}
    if not isinstance(h, dict):
        return
    if WANT_TENANT and h.get("tenantId") is not None and h.get("tenantId") != WANT_TENANT:
        return
    et = h.get("eventType") or p.get("type")
    if et not in DEAD and et not in LIVE:
        return
    uri = h.get("sourceObjectUri") or p.get("uri") or (p.get("object") or {}).get("uri")
    if not uri:
        return
    try:
        v = int(h.get("objectVersion"))
    except (TypeError, ValueError):
        v = 10 ** 15 + n
    rows.append((uri, v, n, et, p))


def delta_attributes(deltas):
    """The attribute values a deltas message gives, by attribute name."""
    coll = deltas["deltaCollection"] if isinstance(deltas.get("deltaCollection"), dict) else deltas
    items = coll.get("delta") if isinstance(coll, dict) else None
    if not isinstance(items, list):
        return None
    result = {}
    for item in items:
        if not isinstance(item, dict):
            continue
        at = item.get("attributeType") or ""
        if "/attributes/" not in at:
            continue
        name = at.split("/attributes/")[1].split("/")[0]
        if item.get("type") in ("ATTRIBUTE_ADDED", "ATTRIBUTE_CHANGED") and isinstance(item.get("newValue"), dict):
            result.setdefault(name, []).append(item["newValue"])
    return result


def fold(group):
    state = {"removed": False, "attributes": None, "folded": 0}
    last_version = None
    for uri, v, n, et, p in group:
        if v == last_version:
            continue
        last_version = v
        state["folded"] += 1
        state["removed"] = et in DEAD
        obj = p.get("object")
        if isinstance(obj, dict) and isinstance(obj.get("attributes"), dict):
            state["attributes"] = obj["attributes"]
        elif isinstance(p.get("deltas"), dict):
            given = delta_attributes(p["deltas"])
            if given is not None:
                state["attributes"] = given
    return state


def write_view(*_):
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    with open(os.environ.get("LCKIT_VIEW_FILE", "view.ndjson"), "w") as out:
        for uri, group in itertools.groupby(rows, key=lambda r: r[0]):
            st = fold(group)
            line = {"uri": uri, "removed": st["removed"], "folded": st["folded"]}
            if st["attributes"] is not None:
                line["attributes"] = st["attributes"]
            out.write(json.dumps(line) + "\n")
    sys.exit(0)


signal.signal(signal.SIGTERM, write_view)

source = os.environ.get("LCKIT_EVENTS_FILE")
try:
    expected = int(os.environ.get("LCKIT_MESSAGES", "0") or 0)
except ValueError:
    expected = 0
deadline = time.monotonic() + 40
lines_seen = 0
fh = None
carry = ""
while source:
    if fh is None:
        try:
            fh = open(source, "r", encoding="utf-8")
        except OSError:
            fh = None
    if fh is not None:
        carry += fh.read()
        *ready, carry = carry.split("\n")
        for text in ready:
            if not text.strip():
                continue
            lines_seen += 1
            try:
                m = json.loads(text)
            except ValueError:
                continue
            if isinstance(m, dict):
                admit(m)
    if expected <= 0 or lines_seen >= expected or time.monotonic() > deadline:
        break
    time.sleep(0.05)
if carry.strip():
    try:
        m = json.loads(carry)
        if isinstance(m, dict):
            admit(m)
    except ValueError:
        pass
write_view()
