#!/usr/bin/env python3
"""Team "Keystone" -- idempotent consumer in front of a CRM sync job.

Like the team's other queue consumers, it remembers the keys of the messages it already processed (an LRU
of 50 000 keys), because the queues deliver at least once. Accepted messages are kept per object by
objectVersion and replayed in version order when the view is written.
"""
import collections
import json
import os
import signal
import sys
import time

REMOVAL = {"ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE", "RELATIONSHIP_REMOVED",
           "RELATIONSHIP_REMOVED_GDPR", "RELATION_LOST_MERGE", "INTERACTION_REMOVED",
           "CHANGE_REQUEST_REMOVED", "GROUP_REMOVED"}
NON_REMOVAL = {"ENTITY_CREATED", "ENTITY_CHANGED", "ENTITIES_SPLITTED", "ENTITIES_MATCHES_CHANGED",
               "ENTITY_BUSINESS_PROCESS_CHANGED", "RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED",
               "RELATIONSHIP_MERGED", "INTERACTION_CREATED", "INTERACTION_CHANGED", "CHANGE_REQUEST_CREATED",
               "CHANGE_REQUEST_CHANGED", "GROUP_CREATED", "GROUP_CHANGED"}


class ProcessedKeys:
    def __init__(self, capacity=50000):
        self.capacity = capacity
        self.keys = collections.OrderedDict()

    def seen_before(self, key):
        if key in self.keys:
            self.keys.move_to_end(key)
            return True
        self.keys[key] = True
        if len(self.keys) > self.capacity:
            self.keys.popitem(last=False)
        return False


processed = ProcessedKeys()
store = collections.defaultdict(dict)   # uri -> {version: (type, payload)}
tail_seq = [0]


def message_key(headers):
    if headers.get("objectVersion") is None:
        return None
    return "%s|%s|%s" % (headers.get("tenantId"), headers.get("eventType"), headers.get("objectVersion"))


def accept(msg):
    headers = msg.get("headers") if isinstance(msg.get("headers"), dict) else {}
    body = msg.get("payload") if isinstance(msg.get("payload"), dict) else {}
    want = os.environ.get("LCKIT_TENANT")
    if want and headers.get("tenantId") is not None and headers.get("tenantId") != want:
        return
    kind = headers.get("eventType") or body.get("type")
    if kind not in REMOVAL and kind not in NON_REMOVAL:
        return
    uri = headers.get("sourceObjectUri") or body.get("uri") or (body.get("object") or {}).get("uri")
    if not uri:
        return
    key = message_key(headers)
    if key is not None and processed.seen_before(key):
        return
    try:
        version = int(headers.get("objectVersion"))
    except (TypeError, ValueError):
        tail_seq[0] += 1
        version = 10 ** 12 + tail_seq[0]
    store[uri].setdefault(version, (kind, body))


def vkey(v):
    if not isinstance(v, dict):
        return None
    if "id" in v:
        return ("id", str(v["id"]))
    if isinstance(v.get("uri"), str):
        return ("id", v["uri"].rsplit("/", 1)[1] if "/" in v["uri"] else v["uri"])
    return ("value", json.dumps(v.get("value"), sort_keys=True))


def with_deltas(attrs, deltas):
    collection = deltas.get("deltaCollection", deltas)
    entries = collection.get("delta") if isinstance(collection, dict) else None
    if not isinstance(entries, list):
        return attrs
    attrs = dict(attrs or {})
    for e in entries:
        if not isinstance(e, dict) or "/attributes/" not in str(e.get("attributeType", "")):
            continue
        name = str(e["attributeType"]).split("/attributes/")[1].split("/")[0]
        vals = list(attrs.get(name, []))
        old_key = vkey(e.get("oldValue"))
        new = e.get("newValue")
        if e.get("type") == "ATTRIBUTE_ADDED" and isinstance(new, dict):
            if vkey(new) not in {vkey(x) for x in vals}:
                vals.append(new)
        elif e.get("type") == "ATTRIBUTE_CHANGED" and isinstance(new, dict):
            where = [i for i, x in enumerate(vals) if vkey(x) == old_key]
            if where:
                vals[where[0]] = new
            elif len(vals) == 1:
                vals = [new]
            else:
                vals.append(new)
        elif e.get("type") == "ATTRIBUTE_REMOVED":
            vals = [x for x in vals if vkey(x) != old_key]
        else:
            continue
        if vals:
            attrs[name] = vals
        else:
            attrs.pop(name, None)
    return attrs


def emit(*_):
    with open(os.environ.get("LCKIT_VIEW_FILE", "view.ndjson"), "w") as out:
        for uri, versions in store.items():
            removed, attrs = False, None
            for v in sorted(versions):
                kind, body = versions[v]
                removed = kind in REMOVAL
                obj = body.get("object")
                if isinstance(obj, dict) and isinstance(obj.get("attributes"), dict):
                    attrs = obj["attributes"]
                elif isinstance(body.get("deltas"), dict):
                    attrs = with_deltas(attrs, body["deltas"])
            row = {"uri": uri, "removed": removed}
            if attrs is not None:
                row["attributes"] = attrs
            out.write(json.dumps(row) + "\n")
    sys.exit(0)


signal.signal(signal.SIGTERM, emit)

if __name__ == "__main__":
    path = os.environ.get("LCKIT_EVENTS_FILE")
    try:
        total = int(os.environ.get("LCKIT_MESSAGES") or "0")
    except ValueError:
        total = 0
    t_end = time.monotonic() + 40
    count, where, buf = 0, 0, ""
    while path:
        try:
            with open(path, encoding="utf-8") as f:
                f.seek(where)
                buf += f.read()
                where = f.tell()
        except OSError:
            pass
        while "\n" in buf:
            line, buf = buf.split("\n", 1)
            if not line.strip():
                continue
            count += 1
            try:
                parsed = json.loads(line)
            except ValueError:
                continue
            if isinstance(parsed, dict):
                accept(parsed)
        if total <= 0 or count >= total or time.monotonic() > t_end:
            break
        time.sleep(0.05)
    if buf.strip():
        try:
            accept(json.loads(buf))
        except (ValueError, AttributeError):
            pass
    emit()
