#!/usr/bin/env python3
"""Team "Tempo" -- consent-management mirror.

Events are collected per object as they arrive (re-sent copies are recognised and skipped) and folded in
order when the view is written.
"""
import collections
import json
import os
import signal
import sys
import time

Event = collections.namedtuple("Event", "stamp version kind body")

REMOVE = set("ENTITY_REMOVED ENTITY_REMOVED_GDPR ENTITY_LOST_MERGE RELATIONSHIP_REMOVED "
             "RELATIONSHIP_REMOVED_GDPR RELATION_LOST_MERGE INTERACTION_REMOVED CHANGE_REQUEST_REMOVED "
             "GROUP_REMOVED".split())
UPSERT = set("ENTITY_CREATED ENTITY_CHANGED ENTITIES_SPLITTED ENTITIES_MATCHES_CHANGED "
             "ENTITY_BUSINESS_PROCESS_CHANGED RELATIONSHIP_CREATED RELATIONSHIP_CHANGED RELATIONSHIP_MERGED "
             "INTERACTION_CREATED INTERACTION_CHANGED CHANGE_REQUEST_CREATED CHANGE_REQUEST_CHANGED "
             "GROUP_CREATED GROUP_CHANGED".split())


class Mirror:
    def __init__(self, tenant):
        self.tenant = tenant
        self.events = collections.defaultdict(list)
        self.versions = collections.defaultdict(set)

    @staticmethod
    def stamp_of(body):
        obj = body.get("object")
        if isinstance(obj, dict) and isinstance(obj.get("updatedTime"), (int, float)):
            return obj["updatedTime"]
        deltas = body.get("deltas")
        if isinstance(deltas, dict) and isinstance(deltas.get("timestamp"), (int, float)):
            return deltas["timestamp"]
        return time.time() * 1000.0

    def offer(self, message):
        headers = message.get("headers") if isinstance(message.get("headers"), dict) else {}
        body = message.get("payload") if isinstance(message.get("payload"), dict) else {}
        if self.tenant and headers.get("tenantId") not in (None, self.tenant):
            return
        kind = headers.get("eventType") or body.get("type")
        if kind not in REMOVE and kind not in UPSERT:
            return
        uri = headers.get("sourceObjectUri") or body.get("uri") or (body.get("object") or {}).get("uri")
        if not uri:
            return
        version = headers.get("objectVersion")
        if version is not None:
            if str(version) in self.versions[uri]:
                return
            self.versions[uri].add(str(version))
        self.events[uri].append(Event(self.stamp_of(body), version, kind, body))

    @staticmethod
    def name_of(attribute_type):
        parts = str(attribute_type).split("/")
        if "attributes" in parts and parts.index("attributes") + 1 < len(parts):
            return parts[parts.index("attributes") + 1]
        return None

    @staticmethod
    def key(v):
        if isinstance(v, dict):
            if v.get("id") is not None:
                return "id", str(v["id"])
            if isinstance(v.get("uri"), str):
                return "id", v["uri"].rsplit("/", 1)[-1]
            return "value", json.dumps(v.get("value"), sort_keys=True)
        return "raw", json.dumps(v, sort_keys=True)

    def patched(self, attrs, deltas):
        coll = deltas.get("deltaCollection") if isinstance(deltas.get("deltaCollection"), dict) else deltas
        items = coll.get("delta")
        if not isinstance(items, list):
            return attrs
        attrs = dict(attrs or {})
        for it in items:
            if not isinstance(it, dict):
                continue
            name = self.name_of(it.get("attributeType", ""))
            if not name:
                continue
            vals = list(attrs.get(name, []))
            old = self.key(it["oldValue"]) if "oldValue" in it else None
            if it.get("type") == "ATTRIBUTE_ADDED" and isinstance(it.get("newValue"), dict):
                if self.key(it["newValue"]) not in [self.key(v) for v in vals]:
                    vals.append(it["newValue"])
            elif it.get("type") == "ATTRIBUTE_CHANGED" and isinstance(it.get("newValue"), dict):
                idx = next((i for i, v in enumerate(vals) if self.key(v) == old), None)
                if idx is not None:
                    vals[idx] = it["newValue"]
                elif len(vals) == 1:
                    vals = [it["newValue"]]
                else:
                    vals.append(it["newValue"])
            elif it.get("type") == "ATTRIBUTE_REMOVED":
                vals = [v for v in vals if self.key(v) != old]
            else:
                continue
            if vals:
                attrs[name] = vals
            else:
                attrs.pop(name, None)
        return attrs

    def rows(self):
        for uri, evs in self.events.items():
            removed, attrs = False, None
            for ev in sorted(evs, key=lambda e: e.stamp):
                removed = ev.kind in REMOVE
                obj = ev.body.get("object")
                if isinstance(obj, dict) and isinstance(obj.get("attributes"), dict):
                    attrs = obj["attributes"]
                elif isinstance(ev.body.get("deltas"), dict):
                    attrs = self.patched(attrs, ev.body["deltas"])
            row = {"uri": uri, "removed": removed, "lastChangeAt": max(e.stamp for e in evs)}
            if attrs is not None:
                row["attributes"] = attrs
            yield row


mirror = Mirror(os.environ.get("LCKIT_TENANT"))


def save(*_):
    with open(os.environ.get("LCKIT_VIEW_FILE", "view.ndjson"), "w") as f:
        for row in mirror.rows():
            f.write(json.dumps(row) + "\n")
    sys.exit(0)


def main():
    signal.signal(signal.SIGTERM, save)
    path = os.environ.get("LCKIT_EVENTS_FILE")
    try:
        expected = int(os.environ.get("LCKIT_MESSAGES") or 0)
    except ValueError:
        expected = 0
    handled, pos, partial = 0, 0, ""
    limit = time.time() + 40
    while path:
        try:
            with open(path, encoding="utf-8") as f:
                f.seek(pos)
                data = f.read()
                pos = f.tell()
        except OSError:
            data = ""
        partial += data
        lines = partial.split("\n")
        partial = lines.pop()
        for line in lines:
            if not line.strip():
                continue
            handled += 1
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if isinstance(msg, dict):
                mirror.offer(msg)
        if expected <= 0 or handled >= expected or time.time() > limit:
            break
        time.sleep(0.05)
    if partial.strip():
        try:
            mirror.offer(json.loads(partial))
        except (ValueError, AttributeError):
            pass
    save()


main()
