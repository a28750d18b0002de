#!/usr/bin/env python3
"""Privacy-aware CRM mirror: keeps a typed record per object, honours GDPR erasure,
and rebuilds state from the version-ordered event history."""
import json, os, signal, sys, time
from dataclasses import dataclass, field

REMOVING = frozenset(["ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE", "RELATIONSHIP_REMOVED",
                      "RELATIONSHIP_REMOVED_GDPR", "RELATION_LOST_MERGE", "INTERACTION_REMOVED",
                      "CHANGE_REQUEST_REMOVED", "GROUP_REMOVED"])
KEEPING = frozenset(["ENTITY_CREATED", "ENTITY_CHANGED", "RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED",
                     "GROUP_CREATED", "GROUP_CHANGED", "INTERACTION_CREATED", "INTERACTION_CHANGED",
                     "ENTITIES_SPLITTED", "ENTITIES_MATCHES_CHANGED", "RELATIONSHIP_MERGED",
                     "ENTITY_BUSINESS_PROCESS_CHANGED", "CHANGE_REQUEST_CREATED", "CHANGE_REQUEST_CHANGED"])


@dataclass
class Event:
    order: tuple
    kind: str
    body: dict


@dataclass
class Record:
    uri: str
    history: dict = field(default_factory=dict)   # order key -> Event (re-sends collapse)
    removed: bool = False
    version: int = None
    attributes: dict = None
    erased: bool = False

    def replay(self):
        for key in sorted(self.history):
            ev = self.history[key]
            if self.erased:
                continue  # GDPR erasure: nothing about this subject is kept any more
            if key[0] == 0:
                self.version = key[1]
            self.removed = ev.kind in REMOVING
            obj = ev.body.get("object")
            if isinstance(obj, dict):
                if isinstance(obj.get("attributes"), dict):
                    self.attributes = obj["attributes"]
            elif "deltas" in ev.body and not ev.body.get("exceededQueueSizeLimit"):
                self.attributes = patch(dict(self.attributes or {}), ev.body["deltas"])
            if ev.kind == "ENTITY_REMOVED_GDPR":
                self.attributes = None
                self.erased = True


def patch(attrs, deltas):
    if isinstance(deltas, dict) and isinstance(deltas.get("deltaCollection"), dict):
        deltas = deltas["deltaCollection"]
    items = deltas.get("delta") if isinstance(deltas, dict) else None
    for it in items if isinstance(items, list) else []:
        if not isinstance(it, dict) or not isinstance(it.get("attributeType"), str):
            continue
        name = it["attributeType"].split("/")[-1]
        cur = list(attrs.get(name, []))
        old_id = it["oldValue"].get("id") if isinstance(it.get("oldValue"), dict) else None
        new = it.get("newValue")
        new_id = new.get("id") if isinstance(new, dict) else None
        kept = [v for v in cur if not (isinstance(v, dict) and v.get("id") in (old_id, new_id) and v.get("id") is not None)]
        if it.get("type") != "ATTRIBUTE_REMOVED" and new is not None:
            idx = next((i for i, v in enumerate(cur) if isinstance(v, dict) and v.get("id") is not None
                        and v.get("id") in (old_id, new_id)), len(kept))
            kept.insert(min(idx, len(kept)), new)
        if kept:
            attrs[name] = kept
        else:
            attrs.pop(name, None)
    return attrs


records = {}
counter = [0]


def consume(line):
    try:
        msg = json.loads(line)
    except ValueError:
        return
    if not isinstance(msg, dict):
        return
    h = msg.get("headers") if isinstance(msg.get("headers"), dict) else {}
    b = msg.get("payload") if isinstance(msg.get("payload"), dict) else {}
    t = os.environ.get("LCKIT_TENANT")
    if t and "tenantId" in h and h["tenantId"] != t:
        return
    kind = h.get("eventType") or b.get("type")
    if kind not in REMOVING and kind not in KEEPING:
        return
    uri = h.get("sourceObjectUri") or b.get("uri") or (b.get("object") or {}).get("uri")
    if not uri:
        return
    counter[0] += 1
    try:
        key = (0, int(h["objectVersion"]))
    except (KeyError, TypeError, ValueError):
        key = (1, counter[0])
    rec = records.setdefault(uri, Record(uri))
    rec.history.setdefault(key, Event(key, kind, b))


def dump(*_):
    with open(os.environ["LCKIT_VIEW_FILE"], "w") as out:
        for rec in records.values():
            rec.replay()
            line = {"uri": rec.uri, "removed": rec.removed, "gdprErased": rec.erased}
            if rec.version is not None:
                line["objectVersion"] = rec.version
            if rec.attributes is not None:
                line["attributes"] = rec.attributes
            out.write(json.dumps(line) + "\n")
    sys.exit(0)


signal.signal(signal.SIGTERM, dump)
total = int(os.environ.get("LCKIT_MESSAGES") or 0)
got, offset, tail = 0, 0, b""
stop_at = time.time() + 40
while True:
    try:
        with open(os.environ["LCKIT_EVENTS_FILE"], "rb") as fh:
            fh.seek(offset)
            data = fh.read()
            offset += len(data)
    except OSError:
        data = b""
    tail += data
    while b"\n" in tail:
        one, tail = tail.split(b"\n", 1)
        if one.strip():
            got += 1
            consume(one.decode("utf-8", "replace"))
    if got >= total or time.time() > stop_at:
        if tail.strip():
            consume(tail.decode("utf-8", "replace"))
        break
    time.sleep(0.1)
dump()
