#!/usr/bin/env python3
"""Call-centre screen-pop cache: keeps a tenant's profiles current from the event stream, applying
each event as it arrives."""
import json
import os
import re
import signal
import sys
import time

TENANT = os.environ.get("LCKIT_TENANT", "")
EVENTS_FILE = os.environ.get("LCKIT_EVENTS_FILE", "")
VIEW_FILE = os.environ.get("LCKIT_VIEW_FILE", "view.ndjson")
EXPECTED = int(os.environ.get("LCKIT_MESSAGES", "0") or 0)
FOLLOW_SECONDS = 40.0

REMOVALS = {
    "ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE", "RELATIONSHIP_REMOVED",
    "RELATIONSHIP_REMOVED_GDPR", "RELATION_LOST_MERGE", "INTERACTION_REMOVED",
    "CHANGE_REQUEST_REMOVED", "GROUP_REMOVED",
}
LIVE = {
    "ENTITY_CREATED", "ENTITY_CHANGED", "RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED",
    "RELATIONSHIP_MERGED", "INTERACTION_CREATED", "INTERACTION_CHANGED", "ENTITIES_SPLITTED",
    "ENTITIES_MATCHES_CHANGED", "ENTITY_BUSINESS_PROCESS_CHANGED", "CHANGE_REQUEST_CREATED",
    "CHANGE_REQUEST_CHANGED", "GROUP_CREATED", "GROUP_CHANGED",
}
MAX_PENDING = 500


class Obj:
    __slots__ = ("uri", "version", "removed", "attributes", "pending", "events")

    def __init__(self, uri):
        self.uri = uri
        self.version = None
        self.removed = False
        self.attributes = None  # None: contents not known
        self.pending = {}  # version -> (type, payload), deltas waiting for an earlier version
        self.events = 0


objects = {}
stats = {"lines": 0, "tenant": 0, "unknown": 0, "bad": 0, "stale": 0}


def attr_name(attribute_type):
    i = attribute_type.find("/attributes/")
    return attribute_type if i < 0 else attribute_type[i + len("/attributes/"):]


def value_id(v):
    if not isinstance(v, dict):
        return None
    if v.get("id") is not None:
        return str(v["id"])
    if isinstance(v.get("uri"), str):
        return v["uri"].rsplit("/", 1)[-1]
    return None


def delta_items(deltas):
    if isinstance(deltas, list):
        return deltas
    if not isinstance(deltas, dict):
        return None
    if isinstance(deltas.get("delta"), list):
        return deltas["delta"]
    dc = deltas.get("deltaCollection")
    if isinstance(dc, dict) and isinstance(dc.get("delta"), list):
        return dc["delta"]
    return None


def as_value(uri, item, nv):
    name = attr_name(item["attributeType"])
    out = {"type": item["attributeType"], "ov": nv.get("ov"), "value": nv.get("value")}
    if nv.get("id") is not None:
        out["uri"] = "%s/attributes/%s/%s" % (uri, name, nv["id"])
    for k, v in nv.items():
        if k not in ("id", "sources", "value", "ov"):
            out[k] = v
    return out


def apply_deltas(uri, attrs, items):
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("attributeType"), str):
            continue
        kind = item.get("type")
        name = attr_name(item["attributeType"])
        values = list(attrs.get(name, []))
        old_id = value_id(item.get("oldValue"))
        at = next((i for i, x in enumerate(values) if old_id is not None and value_id(x) == old_id), -1)
        if kind == "ATTRIBUTE_REMOVED":
            if at >= 0:
                del values[at]
        elif kind in ("ATTRIBUTE_CHANGED", "ATTRIBUTE_ADDED"):
            nv = item.get("newValue")
            if not isinstance(nv, dict):
                continue
            new = as_value(uri, item, nv)
            if at >= 0:
                values[at] = new
            else:
                values.append(new)
        else:
            continue
        if values:
            attrs[name] = values
        else:
            attrs.pop(name, None)


def apply(o, version, etype, payload):
    """Apply one event that is the next state of o."""
    o.version = version
    o.events += 1
    if etype in REMOVALS:
        o.removed = True
        o.attributes = None
        return
    o.removed = False
    obj = payload.get("object")
    if isinstance(obj, dict):
        a = obj.get("attributes")
        o.attributes = json.loads(json.dumps(a)) if isinstance(a, dict) else {}
    elif "deltas" in payload:
        items = delta_items(payload.get("deltas"))
        if items is None:
            return
        if o.attributes is None and etype.endswith("_CREATED"):
            o.attributes = {}
        if o.attributes is not None:
            apply_deltas(o.uri, o.attributes, items)
    else:
        # large-object fallback or a change request: newer state, contents not sent
        o.attributes = None


def is_delta(etype, payload):
    return etype not in REMOVALS and "deltas" in payload and not isinstance(payload.get("object"), dict)


def drain(o):
    for _ in range(MAX_PENDING):
        if o.version is None or (o.version + 1) not in o.pending:
            break
        v = o.version + 1
        etype, payload = o.pending.pop(v)
        apply(o, v, etype, payload)
    for v in [v for v in o.pending if o.version is not None and v <= o.version]:
        del o.pending[v]


def accept(line):
    try:
        msg = json.loads(line)
    except ValueError:
        stats["bad"] += 1
        return
    if not isinstance(msg, dict):
        stats["bad"] += 1
        return
    headers = msg.get("headers") if isinstance(msg.get("headers"), dict) else {}
    payload = msg.get("payload") if isinstance(msg.get("payload"), dict) else {}
    if TENANT and headers.get("tenantId") not in (None, TENANT):
        stats["tenant"] += 1
        return
    etype = headers.get("eventType") or payload.get("type")
    obj = payload.get("object") if isinstance(payload.get("object"), dict) else {}
    uri = headers.get("sourceObjectUri") or payload.get("uri") or obj.get("uri")
    if not uri or not etype:
        stats["bad"] += 1
        return
    if etype not in REMOVALS and etype not in LIVE:
        stats["unknown"] += 1
        return
    raw = headers.get("objectVersion")
    try:
        version = int(raw) if raw not in (None, "") else None
    except (TypeError, ValueError):
        version = None
    o = objects.get(uri)
    if o is None:
        o = objects[uri] = Obj(uri)
    if version is None:
        apply(o, o.version, etype, payload)  # no ordering information: delivery order
        return
    if o.version is not None and version < o.version:
        stats["stale"] += 1
        return
    if is_delta(etype, payload) and (
        (o.version is not None and version > o.version + 1)
        or (o.version is None and version > 1 and not etype.endswith("_CREATED"))
    ):
        if len(o.pending) < MAX_PENDING:
            o.pending[version] = (etype, payload)
        return
    apply(o, version, etype, payload)
    drain(o)


def flush_pending():
    # at the end, deltas still waiting for a version that never came are applied in order
    for o in objects.values():
        for v in sorted(o.pending):
            if o.version is None or v > o.version:
                etype, payload = o.pending[v]
                apply(o, v, etype, payload)
        o.pending.clear()


done = False


def finish(*_):
    global done
    if done:
        return
    done = True
    flush_pending()
    with open(VIEW_FILE, "w") as f:
        for uri, o in objects.items():
            row = {"uri": uri, "removed": o.removed}
            if o.version is not None:
                row["objectVersion"] = o.version
            if not o.removed and o.attributes is not None:
                row["attributes"] = o.attributes
            row["eventsApplied"] = o.events
            f.write(json.dumps(row) + "\n")
    sys.stderr.write("e06: %(lines)d lines, %(unknown)d unknown types, %(stale)d stale, %(bad)d unreadable\n" % stats)
    sys.stderr.flush()
    os._exit(0)


signal.signal(signal.SIGTERM, finish)


def main():
    started = time.monotonic()
    offset = 0
    partial = b""
    while True:
        try:
            with open(EVENTS_FILE, "rb") as f:
                f.seek(offset)
                chunk = f.read()
                offset += len(chunk)
        except OSError:
            chunk = b""
        if chunk:
            partial += chunk
            *lines, partial = partial.split(b"\n")
            for line in lines:
                if line.strip():
                    stats["lines"] += 1
                    accept(line.decode("utf-8", "replace"))
        if stats["lines"] >= EXPECTED or time.monotonic() - started >= FOLLOW_SECONDS:
            break
        time.sleep(0.1)
    if partial.strip():
        stats["lines"] += 1
        accept(partial.decode("utf-8", "replace"))
    finish()


if __name__ == "__main__":
    main()
