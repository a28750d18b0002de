#!/usr/bin/env python3
# Team "Cascade": change-feed materialiser for a marketing data mart.
#
# The pipeline is a chain of small generator stages: read lines -> decode -> keep this tenant's known
# event types -> append to the object's change log. When the view is needed each object's change log is
# sorted by objectVersion and played back: snapshots set the attributes, delta items are played onto them.
import json
import os
import signal
import sys
import time
from collections import defaultdict

GONE_TYPES = ["ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE", "RELATIONSHIP_REMOVED",
              "RELATIONSHIP_REMOVED_GDPR", "RELATION_LOST_MERGE", "INTERACTION_REMOVED",
              "CHANGE_REQUEST_REMOVED", "GROUP_REMOVED"]
PRESENT_TYPES = ["ENTITY_CREATED", "ENTITY_CHANGED", "ENTITIES_SPLITTED", "ENTITIES_MATCHES_CHANGED",
                 "ENTITY_BUSINESS_PROCESS_CHANGED", "RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED",
                 "RELATIONSHIP_MERGED", "INTERACTION_CREATED", "INTERACTION_CHANGED", "CHANGE_REQUEST_CREATED",
                 "CHANGE_REQUEST_CHANGED", "GROUP_CREATED", "GROUP_CHANGED"]

change_log = defaultdict(list)


def read_lines(path, expected, budget=40.0):
    t0 = time.monotonic()
    n, at, held = 0, 0, ""
    while True:
        try:
            with open(path, encoding="utf-8") as fh:
                fh.seek(at)
                held += fh.read()
                at = fh.tell()
        except OSError:
            pass
        *whole, held = held.split("\n")
        for w in whole:
            if w.strip():
                n += 1
                yield w
        if expected <= 0 or n >= expected or time.monotonic() - t0 > budget:
            break
        time.sleep(0.05)
    if held.strip():
        yield held


def decode(lines):
    for line in lines:
        try:
            m = json.loads(line)
        except ValueError:
            continue
        if isinstance(m, dict):
            yield m


def relevant(messages, tenant):
    for m in messages:
        h = m.get("headers") if isinstance(m.get("headers"), dict) else {}
        p = m.get("payload") if isinstance(m.get("payload"), dict) else {}
        if tenant and h.get("tenantId") not in (None, tenant):
            continue
        t = h.get("eventType") or p.get("type")
        if t in GONE_TYPES or t in PRESENT_TYPES:
            uri = h.get("sourceObjectUri") or p.get("uri") or (p.get("object") or {}).get("uri")
            if uri:
                yield uri, h.get("objectVersion"), t, p


def version_key(v):
    try:
        return (0, float(v))
    except (TypeError, ValueError):
        return (1, 0.0)  # no objectVersion: after the numbered ones, in delivery order


def attr_name(attribute_type):
    s = str(attribute_type or "")
    if "/attributes/" not in s:
        return None
    return s.split("/attributes/", 1)[1].split("/", 1)[0]


def same(a, b):
    if not isinstance(a, dict) or not isinstance(b, dict):
        return False
    ia = a.get("id") if a.get("id") is not None else (a["uri"].split("/")[-1] if isinstance(a.get("uri"), str) else None)
    ib = b.get("id") if b.get("id") is not None else (b["uri"].split("/")[-1] if isinstance(b.get("uri"), str) else None)
    if ia is not None and ib is not None:
        return str(ia) == str(ib)
    return a.get("value") == b.get("value")


def play(attrs, delta_items):
    attrs = {k: list(v) for k, v in (attrs or {}).items()}
    for d in delta_items:
        if not isinstance(d, dict):
            continue
        name = attr_name(d.get("attributeType"))
        if name is None:
            continue
        values = attrs.get(name, [])
        kind = d.get("type")
        if kind == "ATTRIBUTE_ADDED" and isinstance(d.get("newValue"), dict):
            values.append(d["newValue"])
        elif kind == "ATTRIBUTE_CHANGED" and isinstance(d.get("newValue"), dict):
            hit = next((i for i, v in enumerate(values) if same(v, d.get("oldValue"))), -1)
            if hit >= 0:
                values[hit] = d["newValue"]
            elif len(values) == 1:
                values = [d["newValue"]]
            else:
                values.append(d["newValue"])
        elif kind == "ATTRIBUTE_REMOVED":
            values = [v for v in values if not same(v, d.get("oldValue"))]
        else:
            continue
        if values:
            attrs[name] = values
        else:
            attrs.pop(name, None)
    return attrs


def materialise(log):
    removed, attrs = False, None
    for _version, etype, p in sorted(log, key=lambda e: version_key(e[0])):
        removed = etype in GONE_TYPES
        obj = p.get("object")
        if isinstance(obj, dict) and isinstance(obj.get("attributes"), dict):
            attrs = obj["attributes"]
            continue
        deltas = p.get("deltas")
        if isinstance(deltas, dict):
            holder = deltas.get("deltaCollection") if isinstance(deltas.get("deltaCollection"), dict) else deltas
            if isinstance(holder.get("delta"), list):
                attrs = play(attrs, holder["delta"])
    return removed, attrs


def publish_view(*_):
    path = os.environ.get("LCKIT_VIEW_FILE", "view.ndjson")
    with open(path, "w") as out:
        for uri, log in change_log.items():
            removed, attrs = materialise(log)
            line = {"uri": uri, "removed": removed, "changes": len(log)}
            if attrs is not None:
                line["attributes"] = attrs
            out.write(json.dumps(line) + "\n")
    sys.exit(0)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, publish_view)
    src = os.environ.get("LCKIT_EVENTS_FILE")
    try:
        n_expected = int(os.environ.get("LCKIT_MESSAGES") or 0)
    except ValueError:
        n_expected = 0
    if src:
        for uri, version, etype, payload in relevant(decode(read_lines(src, n_expected)), os.environ.get("LCKIT_TENANT")):
            change_log[uri].append((version, etype, payload))
    publish_view()
