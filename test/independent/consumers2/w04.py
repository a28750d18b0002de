#!/usr/bin/env python3
"""Entity snapshot builder (analytics team). stdlib only.

Groups the whole stream by object and replays each object's messages sorted by objectVersion
(at equal version a removal beats a full snapshot, which beats a partial message). Objects whose messages
carry no objectVersion are folded in delivery order. Attributes are kept for entities only: the team's
warehouse has no use for relationship or interaction attributes.
"""
import itertools
import json
import os
import sys

REMOVAL_TYPES = frozenset("""ENTITY_REMOVED ENTITY_REMOVED_GDPR ENTITY_LOST_MERGE RELATIONSHIP_REMOVED
RELATIONSHIP_REMOVED_GDPR RELATION_LOST_MERGE INTERACTION_REMOVED CHANGE_REQUEST_REMOVED GROUP_REMOVED""".split())
DATA_TYPES = frozenset("""ENTITY_CREATED ENTITY_CHANGED RELATIONSHIP_CREATED RELATIONSHIP_CHANGED RELATIONSHIP_MERGED
INTERACTION_CREATED INTERACTION_CHANGED ENTITIES_SPLITTED ENTITIES_MATCHES_CHANGED ENTITY_BUSINESS_PROCESS_CHANGED
CHANGE_REQUEST_CREATED CHANGE_REQUEST_CHANGED GROUP_CREATED GROUP_CHANGED""".split())


def parse(seq, line, tenant):
    msg = json.loads(line)
    h, p = msg.get("headers") or {}, msg.get("payload") or {}
    if tenant and h.get("tenantId") not in (None, tenant):
        return None
    etype = h.get("eventType") or p.get("type")
    obj = p.get("object") if isinstance(p.get("object"), dict) and p.get("exceededQueueSizeLimit") is not True else None
    uri = h.get("sourceObjectUri") or p.get("uri") or (p.get("object") or {}).get("uri")
    if not uri or etype not in REMOVAL_TYPES | DATA_TYPES:
        return None  # unknown and unsupported event types are ignored
    ver = h.get("objectVersion")
    if isinstance(ver, str) and ver.strip().isdigit():
        ver = int(ver)  # message properties may arrive as strings
    ver = ver if isinstance(ver, (int, float)) and not isinstance(ver, bool) else None
    if etype in REMOVAL_TYPES:
        rank = 2
    elif obj is not None:
        rank = 1
    elif p.get("exceededQueueSizeLimit") is True or p.get("deltas") is not None:
        rank = 0  # partial: state unknown until fetched
    else:
        rank = 1  # payload with only the event name (change requests): no attributes to keep
    return {"seq": seq, "uri": uri, "type": etype, "ver": ver, "rank": rank, "obj": obj}


def fold(events):
    if all(e["ver"] is not None for e in events):
        # by version; at equal version partial < full snapshot < removal, so the most complete one is applied last
        return sorted(events, key=lambda e: (e["ver"], e["rank"], e["seq"]))
    return events  # delivery order


def build(events):
    state = {"removed": False, "gdpr": False, "ver": None, "attrs": None, "partial": False}
    for e in fold(sorted(events, key=lambda e: e["seq"])):
        if state["gdpr"] and (e["ver"] is None or state["ver"] is None):
            continue
        if e["ver"] is not None and state["ver"] is not None and e["ver"] < state["ver"]:
            continue
        if e["ver"] is not None:
            state["ver"] = e["ver"]
        state["removed"] = e["rank"] == 2
        state["gdpr"] = e["type"].endswith("_GDPR")
        state["partial"] = e["rank"] == 0
        if e["rank"] != 1:
            state["attrs"] = None
        elif e["obj"] is not None and "attributes" in e["obj"]:
            state["attrs"] = e["obj"]["attributes"]
    return state


def main():
    src, dst = os.environ.get("LCKIT_EVENTS_FILE"), os.environ.get("LCKIT_VIEW_FILE")
    if not (src and dst):
        sys.exit("error: set LCKIT_EVENTS_FILE (input) and LCKIT_VIEW_FILE (output)")
    tenant = os.environ.get("LCKIT_TENANT") or None
    events = []
    with open(src, encoding="utf-8") as fh:
        for seq, line in enumerate(fh):
            if line.strip():
                try:
                    e = parse(seq, line, tenant)
                except ValueError:
                    print("skipping unreadable line %d" % (seq + 1), file=sys.stderr)
                    continue
                if e:
                    events.append(e)
    events.sort(key=lambda e: e["uri"])
    with open(dst, "w", encoding="utf-8") as out:
        for uri, group in itertools.groupby(events, key=lambda e: e["uri"]):
            s = build(list(group))
            row = {"uri": uri, "removed": s["removed"]}
            if s["ver"] is not None:
                row["objectVersion"] = s["ver"]
            if uri.startswith("entities/") and not s["removed"] and not s["partial"] and s["attrs"] is not None:
                row["attributes"] = s["attrs"]
            row["kind"] = uri.split("/", 1)[0]
            out.write(json.dumps(row) + "\n")
    print("events used: %d" % len(events))


if __name__ == "__main__":
    main()
