#!/usr/bin/env python3
"""Notification service replica: a generator pipeline (read -> decode -> filter -> group -> fold)
that keeps the tenant's objects. Relationship changes are tracked on the relation itself, so the
ENTITY_CHANGED companions they raise on the related entities are filtered out as echoes."""
import json
import os
import signal
import sys
import time
from itertools import count

GONE_TYPES = ("ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE", "RELATIONSHIP_REMOVED",
              "RELATIONSHIP_REMOVED_GDPR", "RELATION_LOST_MERGE", "INTERACTION_REMOVED",
              "CHANGE_REQUEST_REMOVED")
LIVE_TYPES = ("ENTITY_CREATED", "ENTITY_CHANGED", "RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED",
              "INTERACTION_CREATED", "INTERACTION_CHANGED", "CHANGE_REQUEST_CREATED",
              "CHANGE_REQUEST_CHANGED", "ENTITIES_SPLITTED", "ENTITIES_MATCHES_CHANGED",
              "RELATIONSHIP_MERGED", "ENTITY_BUSINESS_PROCESS_CHANGED")

objects = {}
arrival = count()


def read_lines(path, expected, seconds):
    stop = time.time() + seconds
    offset, rest, n = 0, "", 0
    while True:
        try:
            with open(path, encoding="utf-8") as fh:
                fh.seek(offset)
                rest += fh.read()
                offset = fh.tell()
        except OSError:
            pass
        *lines, rest = rest.split("\n")
        for line in lines:
            if line.strip():
                n += 1
                yield line
        if not expected or n >= expected or time.time() > stop:
            break
        time.sleep(0.05)
    if rest.strip():
        yield rest


def decode(lines):
    for line in lines:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if isinstance(msg, dict):
            h = msg.get("headers") if isinstance(msg.get("headers"), dict) else {}
            p = msg.get("payload") if isinstance(msg.get("payload"), dict) else {}
            yield h, p


def ov_changed(payload):
    if "ovChanged" in payload:
        return payload.get("ovChanged") is True
    d = payload.get("deltas")
    if isinstance(d, dict):
        c = d.get("deltaCollection") if isinstance(d.get("deltaCollection"), dict) else d
        return c.get("ovChanged") is True
    return False


def relevant(messages, tenant):
    for h, p in messages:
        if tenant and h.get("tenantId", tenant) != tenant:
            continue
        etype = h.get("eventType") or p.get("type")
        if etype not in GONE_TYPES and etype not in LIVE_TYPES:
            continue
        if etype == "ENTITY_CHANGED" and ov_changed(p):
            continue  # companion of a relationship change: the relation event carries it
        uri = h.get("sourceObjectUri") or p.get("uri") or (p.get("object") or {}).get("uri")
        if uri:
            v = h.get("objectVersion")
            yield uri, etype, (v if type(v) is int else None), p


def group(events):
    for uri, etype, version, payload in events:
        slot = objects.setdefault(uri, {})
        key = version if version is not None else (etype, json.dumps(payload, sort_keys=True))
        if key not in slot:
            slot[key] = (version, next(arrival), etype, payload)


def deltas_of(payload):
    d = payload.get("deltas")
    if not isinstance(d, dict):
        return ()
    c = d.get("deltaCollection") if isinstance(d.get("deltaCollection"), dict) else d
    return [x for x in c.get("delta") or () if isinstance(x, dict) and "/attributes/" in str(x.get("attributeType", ""))]


def fold(uri, slot):
    evs = sorted(slot.values(), key=(lambda e: e[0]) if all(e[0] is not None for e in slot.values()) else (lambda e: e[1]))
    view = {"uri": uri, "removed": False}
    attrs = None
    for version, _, etype, payload in evs:
        if version is not None:
            view["objectVersion"] = version
        view["removed"] = etype in GONE_TYPES
        if etype.endswith(("_CREATED", "_GDPR")):
            attrs = None
        if etype.endswith("_GDPR"):
            continue
        obj = payload.get("object")
        if isinstance(obj, dict) and isinstance(obj.get("attributes"), dict):
            attrs = json.loads(json.dumps(obj["attributes"]))
            continue
        for d in deltas_of(payload):
            name = d["attributeType"].split("/attributes/")[1].split("/")[0]
            attrs = {} if attrs is None else attrs
            vals = attrs.get(name, [])
            old, new = d.get("oldValue"), d.get("newValue")
            if isinstance(old, dict):
                mark = "/" + str(old.get("id"))
                left = [x for x in vals if not str(x.get("uri", "")).endswith(mark)]
                if len(left) == len(vals):
                    for i, x in enumerate(vals):
                        if x.get("value") == old.get("value"):
                            left = vals[:i] + vals[i + 1:]
                            break
                vals = left
            if d.get("type") != "ATTRIBUTE_REMOVED" and isinstance(new, dict):
                el = {"type": d["attributeType"]}
                el.update({k: v for k, v in new.items() if k not in ("id", "sources")})
                el["uri"] = "%s/attributes/%s/%s" % (uri, name, new.get("id"))
                vals = [x for x in vals if x.get("uri") != el["uri"]] + [el]
            if vals:
                attrs[name] = vals
            else:
                attrs.pop(name, None)
    if attrs is not None and not view["removed"]:
        view["attributes"] = attrs
    return view


def write(*_):
    with open(os.environ["LCKIT_VIEW_FILE"], "w", encoding="utf-8") as fh:
        for uri, slot in objects.items():
            fh.write(json.dumps(fold(uri, slot)) + "\n")
    sys.exit(0)


signal.signal(signal.SIGTERM, write)
group(relevant(decode(read_lines(os.environ["LCKIT_EVENTS_FILE"],
                                 int(os.environ.get("LCKIT_MESSAGES") or 0), 40)),
               os.environ.get("LCKIT_TENANT", "")))
write()
