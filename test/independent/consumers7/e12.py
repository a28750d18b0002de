#!/usr/bin/env python3
"""Loyalty-platform profile store: applies events as they arrive when they are next in line
(or are full snapshots newer than what is held), parks the rest, and drains parked events in
version order when the stream ends."""
import json, os, signal, sys, time

GONE = {"ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE", "RELATIONSHIP_REMOVED",
        "RELATIONSHIP_REMOVED_GDPR", "RELATION_LOST_MERGE", "INTERACTION_REMOVED",
        "CHANGE_REQUEST_REMOVED", "GROUP_REMOVED"}
KNOWN = GONE | {"ENTITY_CREATED", "ENTITY_CHANGED", "RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED",
                "GROUP_CREATED", "GROUP_CHANGED", "INTERACTION_CREATED", "INTERACTION_CHANGED",
                "ENTITIES_SPLITTED", "ENTITIES_MATCHES_CHANGED", "RELATIONSHIP_MERGED",
                "ENTITY_BUSINESS_PROCESS_CHANGED", "CHANGE_REQUEST_CREATED", "CHANGE_REQUEST_CHANGED"}


class Profile:
    __slots__ = ("uri", "ver", "removed", "attrs", "parked", "applied", "last_type")

    def __init__(self, uri):
        self.uri, self.ver, self.removed, self.attrs = uri, 0, False, None
        self.parked, self.applied, self.last_type = {}, 0, None

    def full(self, ev):
        o = ev[1].get("object")
        return isinstance(o, dict) and isinstance(o.get("attributes"), dict)

    def offer(self, ver, ev):
        if ver is None:               # no objectVersion header: arrival order is all we have
            self.step(None, ev)
            return
        if ver <= self.ver or ver in self.parked:
            return                    # stale or re-sent
        if ver == self.ver + 1 or self.full(ev):
            self.step(ver, ev)
            self.release()
        else:
            self.parked[ver] = ev

    def release(self):
        for v in sorted(self.parked):
            if v <= self.ver:
                del self.parked[v]
            elif v == self.ver + 1 or self.full(self.parked[v]):
                self.step(v, self.parked.pop(v))
            else:
                break

    def drain(self):
        for v in sorted(self.parked):
            if v > self.ver:
                self.step(v, self.parked[v])
        self.parked.clear()

    def step(self, ver, ev):
        etype, body = ev
        if ver is not None:
            self.ver = ver
        self.applied += 1
        self.last_type = etype
        self.removed = etype in GONE
        obj = body.get("object")
        if isinstance(obj, dict):
            if isinstance(obj.get("attributes"), dict):
                self.attrs = obj["attributes"]
        elif "deltas" in body and not body.get("exceededQueueSizeLimit"):
            self.attrs = edit(dict(self.attrs or {}), body["deltas"])
        if etype == "ENTITY_REMOVED_GDPR":
            self.attrs = None


def edit(attrs, deltas):
    if isinstance(deltas, dict) and isinstance(deltas.get("deltaCollection"), dict):
        deltas = deltas["deltaCollection"]
    for ch in (deltas.get("delta") if isinstance(deltas, dict) and isinstance(deltas.get("delta"), list) else []):
        if not isinstance(ch, dict) or not isinstance(ch.get("attributeType"), str):
            continue
        a = ch["attributeType"].split("/")[-1]
        old = ch.get("oldValue") if isinstance(ch.get("oldValue"), dict) else {}
        new = ch.get("newValue")
        ids = {x for x in (old.get("id"), new.get("id") if isinstance(new, dict) else None) if x is not None}
        before = attrs.get(a, [])
        slot = next((i for i, x in enumerate(before) if isinstance(x, dict) and x.get("id") == old.get("id") and old.get("id") is not None), None)
        if slot is None and isinstance(new, dict) and new.get("id") is not None:
            slot = next((i for i, x in enumerate(before) if isinstance(x, dict) and x.get("id") == new["id"]), None)
        after = [x for x in before if not (isinstance(x, dict) and x.get("id") in ids)]
        if ch.get("type") != "ATTRIBUTE_REMOVED" and new is not None:
            after.insert(slot if slot is not None and slot <= len(after) else len(after), new)
        if after:
            attrs[a] = after
        else:
            attrs.pop(a, None)
    return attrs


profiles = {}


def on_line(text):
    try:
        m = json.loads(text)
    except ValueError:
        return
    if not isinstance(m, dict):
        return
    h = m.get("headers") if isinstance(m.get("headers"), dict) else {}
    b = m.get("payload") if isinstance(m.get("payload"), dict) else {}
    tenant = os.environ.get("LCKIT_TENANT")
    if tenant and h.get("tenantId") is not None and h["tenantId"] != tenant:
        return
    et = h.get("eventType") or b.get("type")
    uri = h.get("sourceObjectUri") or b.get("uri") or (b.get("object") or {}).get("uri")
    if et not in KNOWN or not uri:
        return
    v = h.get("objectVersion")
    try:
        v = int(v) if v is not None else None
    except (TypeError, ValueError):
        v = None
    profiles.setdefault(uri, Profile(uri)).offer(v, (et, b))


def shutdown(*_):
    with open(os.environ["LCKIT_VIEW_FILE"], "w") as f:
        for p in profiles.values():
            p.drain()
            rec = {"uri": p.uri, "removed": p.removed, "lastEventType": p.last_type, "eventsApplied": p.applied}
            if p.ver:
                rec["objectVersion"] = p.ver
            if p.attrs is not None and not p.removed:
                rec["attributes"] = p.attrs
            f.write(json.dumps(rec) + "\n")
    sys.exit(0)


signal.signal(signal.SIGTERM, shutdown)
target = int(os.environ.get("LCKIT_MESSAGES") or 0)
lines, off, frag, limit = 0, 0, b"", time.time() + 40
while lines < target and time.time() < limit:
    try:
        with open(os.environ["LCKIT_EVENTS_FILE"], "rb") as fh:
            fh.seek(off)
            got = fh.read()
            off += len(got)
            frag += got
    except OSError:
        pass
    *whole, frag = frag.split(b"\n")
    for w in whole:
        if w.strip():
            lines += 1
            on_line(w.decode("utf-8", "replace"))
    if lines < target:
        time.sleep(0.1)
if frag.strip():
    on_line(frag.decode("utf-8", "replace"))
shutdown()
