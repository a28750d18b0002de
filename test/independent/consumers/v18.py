#!/usr/bin/python3
"""Event consumer: folds CRUD event messages into a view of the objects (Python 3.11, standard library only)."""
import json
import math
import os
import sys

CFG = {'bodyOnly': True}

IN = os.environ.get("LCKIT_EVENTS_FILE")
OUT = os.environ.get("LCKIT_VIEW_FILE")
TENANT = os.environ.get("LCKIT_TENANT", "")
EXPECTED = os.environ.get("LCKIT_MESSAGES")

UPSERT = {
    "ENTITY_CREATED", "ENTITY_CHANGED", "RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED", "INTERACTION_CREATED",
    "INTERACTION_CHANGED", "ENTITIES_SPLITTED", "ENTITIES_MATCHES_CHANGED", "RELATIONSHIP_MERGED",
    "ENTITY_BUSINESS_PROCESS_CHANGED", "CHANGE_REQUEST_CREATED", "CHANGE_REQUEST_CHANGED", "GROUP_CREATED",
    "GROUP_CHANGED",
}
REMOVE = {
    "ENTITY_REMOVED", "RELATIONSHIP_REMOVED", "RELATIONSHIP_REMOVED_GDPR", "INTERACTION_REMOVED", "ENTITY_LOST_MERGE",
    "RELATION_LOST_MERGE", "CHANGE_REQUEST_REMOVED", "GROUP_REMOVED", "ENTITY_REMOVED_GDPR",
}
GDPR = {"ENTITY_REMOVED_GDPR", "RELATIONSHIP_REMOVED_GDPR"}
CHANGED = {"ENTITY_CHANGED", "RELATIONSHIP_CHANGED"}
NO_DATA = {"ENTITIES_MATCHES_CHANGED", "ENTITY_BUSINESS_PROCESS_CHANGED"}
if CFG.get("gdprUnknown"):
    REMOVE.discard("ENTITY_REMOVED_GDPR")


def classify(et):
    if et in REMOVE:
        return "gdpr" if et in GDPR else "remove"
    if et in UPSERT:
        return "upsert"
    return None  # unknown or unsupported: ignored


def num(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)) and math.isfinite(v):
        return v
    if isinstance(v, str):
        try:
            f = float(v)
            if math.isfinite(f):
                return int(f) if f.is_integer() else f
        except ValueError:
            pass
    return None


class State:
    __slots__ = ("uri", "ver", "removed", "gdpr", "attrs", "has_attrs", "incomplete", "last_type", "updated")

    def __init__(self, uri):
        self.uri = uri
        self.ver = None
        self.removed = self.gdpr = self.incomplete = self.has_attrs = False
        self.attrs = None
        self.last_type = None
        self.updated = None


STATE = {}
SEEN_TYPE = set()
COUNT = {"lines": 0, "applied": 0}


def parse(msg):
    """Normalises one message; returns a dict or None when the message is not for us."""
    if not isinstance(msg, dict):
        return None
    h = msg.get("headers") if isinstance(msg.get("headers"), dict) else {}
    p = msg.get("payload") if isinstance(msg.get("payload"), dict) else {}
    if TENANT and h.get("tenantId") and h.get("tenantId") != TENANT:
        return None
    obj = p.get("object") if isinstance(p.get("object"), dict) else None
    if CFG.get("bodyOnly"):
        et = p.get("type")
        uri = p.get("uri") or (obj or {}).get("uri")
    else:
        et = h.get("eventType") or p.get("type")
        uri = h.get("sourceObjectUri") or p.get("uri") or (obj or {}).get("uri")
    if not et or not uri:
        return None
    kind = classify(et)
    if not kind:
        return None
    fallback = p.get("exceededQueueSizeLimit") is True
    has_obj = obj is not None and not fallback
    is_deltas = not has_obj and p.get("deltas") is not None
    data = "snapshot" if has_obj else ("partial" if (fallback or is_deltas) else "none")
    return {"et": et, "uri": uri, "kind": kind, "ver": num(h.get("objectVersion")), "data": data,
            "fallback": fallback, "obj": obj if has_obj else None, "p": p}


def newer(s, e):
    if s.gdpr and (e["ver"] is None or s.ver is None):
        return False  # GDPR removal is final
    if CFG.get("order") == "updatedTime":
        t = num(e["obj"].get("updatedTime")) if e["obj"] else None
        if t is None or s.updated is None:
            return True
        return t >= s.updated
    ev, sv = e["ver"], s.ver
    if CFG.get("missingVersionZero"):
        ev = 0 if ev is None else ev
        sv = 0 if sv is None else sv
    if ev is None or sv is None:
        return True  # no objectVersion: delivery order
    if ev != sv:
        return ev > sv
    # same version: duplicate or re-send; take it only if it completes what we hold
    if s.incomplete and e["data"] == "snapshot":
        return True
    if e["kind"] in ("remove", "gdpr") and not s.removed:
        return True
    if e["kind"] == "gdpr" and not s.gdpr:
        return True
    return False


def handle(e):
    if e is None:
        return
    if CFG.get("skipNoData") and e["et"] in NO_DATA:
        return
    if e["fallback"] and CFG.get("dropFallback"):
        return
    if CFG.get("dedupByType"):
        k = (e["uri"], e["et"])
        if k in SEEN_TYPE:
            return
        SEEN_TYPE.add(k)
    s = STATE.get(e["uri"])
    if s is not None and not newer(s, e):
        return
    COUNT["applied"] += 1
    if s is None:
        s = STATE[e["uri"]] = State(e["uri"])
    if e["ver"] is not None:
        s.ver = e["ver"]
    s.last_type = e["et"]
    s.updated = num(e["obj"].get("updatedTime")) if e["obj"] else None
    if e["kind"] in ("remove", "gdpr"):
        s.removed = True
        s.gdpr = e["kind"] == "gdpr"
        s.incomplete = False
        if s.gdpr:
            s.attrs, s.has_attrs = None, False
    else:
        s.removed = s.gdpr = False
        if e["data"] == "snapshot":
            if "attributes" in e["obj"]:
                s.attrs, s.has_attrs = e["obj"]["attributes"], True
            s.incomplete = False
        elif e["data"] == "partial":
            s.attrs, s.has_attrs = None, False
            s.incomplete = True


def view(s):
    o = {"uri": s.uri, "removed": s.removed}
    if CFG.get("emitVersion", True) and s.ver is not None:
        o["objectVersion"] = s.ver
    if CFG.get("emitAttributes", True) and not s.removed and not s.incomplete and s.has_attrs:
        o["attributes"] = s.attrs
    if CFG.get("markIncomplete") and s.incomplete and not s.removed:
        o["dataIncomplete"] = True
    if CFG.get("emitLastType"):
        o["lastEventType"] = s.last_type
    return o


def messages(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            COUNT["lines"] += 1
            try:
                yield json.loads(line)
            except ValueError:
                print(f"skipping malformed line {COUNT['lines']}", file=sys.stderr)


def main():
    if not IN or not OUT:
        print("error: LCKIT_EVENTS_FILE and LCKIT_VIEW_FILE are required", file=sys.stderr)
        return 1
    if CFG.get("loadAll"):
        # load everything, then fold each object's events in objectVersion order (stable: ties keep delivery order)
        events = [e for e in (parse(m) for m in messages(IN)) if e is not None]
        by_uri = {}
        for e in events:
            by_uri.setdefault(e["uri"], []).append(e)
        for uri, evs in by_uri.items():
            if all(e["ver"] is not None for e in evs):
                evs = sorted(evs, key=lambda e: e["ver"])
            for e in evs:
                handle(e)
    else:
        for m in messages(IN):
            handle(parse(m))
    with open(OUT, "w", encoding="utf-8") as f:
        for s in STATE.values():
            f.write(json.dumps(view(s)) + "\n")
    if EXPECTED and EXPECTED.isdigit() and int(EXPECTED) != COUNT["lines"]:
        print(f"warning: expected {EXPECTED} messages, read {COUNT['lines']}", file=sys.stderr)
    removed = sum(1 for s in STATE.values() if s.removed)
    print(f"messages={COUNT['lines']} applied={COUNT['applied']} objects={len(STATE)} removed={removed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
