#!/usr/bin/env python3
# Territory-alignment feed (sales ops). Plain procedural script, stdlib only.
import json
import os
import sys

REMOVE_EVENTS = ["ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE", "RELATIONSHIP_REMOVED",
                 "RELATIONSHIP_REMOVED_GDPR", "RELATION_LOST_MERGE", "INTERACTION_REMOVED", "CHANGE_REQUEST_REMOVED",
                 "GROUP_REMOVED"]
UPDATE_EVENTS = ["ENTITY_CREATED", "ENTITY_CHANGED", "RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED", "RELATIONSHIP_MERGED",
                 "INTERACTION_CREATED", "INTERACTION_CHANGED", "ENTITIES_SPLITTED", "ENTITIES_MATCHES_CHANGED",
                 "ENTITY_BUSINESS_PROCESS_CHANGED", "CHANGE_REQUEST_CREATED", "CHANGE_REQUEST_CHANGED", "GROUP_CREATED",
                 "GROUP_CHANGED"]

in_path = os.environ.get("LCKIT_EVENTS_FILE")
out_path = os.environ.get("LCKIT_VIEW_FILE")
tenant = os.environ.get("LCKIT_TENANT")
if not in_path or not out_path:
    print("error: LCKIT_EVENTS_FILE and LCKIT_VIEW_FILE are required", file=sys.stderr)
    sys.exit(2)

version = {}      # uri -> objectVersion
removed = {}      # uri -> bool
gdpr = {}         # uri -> bool
attributes = {}   # uri -> attributes of the latest snapshot
needs_fetch = {}  # uri -> True when only a pointer arrived
order = []

lines = 0
for raw in open(in_path, encoding="utf-8"):
    if not raw.strip():
        continue
    lines += 1
    try:
        msg = json.loads(raw)
    except ValueError:
        print("skipping line %d" % lines, file=sys.stderr)
        continue
    h = msg.get("headers") or {}
    p = msg.get("payload") or {}
    if tenant and h.get("tenantId") and h.get("tenantId") != tenant:
        continue
    ev = h.get("eventType") or p.get("type")
    uri = h.get("sourceObjectUri") or p.get("uri") or (p.get("object") or {}).get("uri")
    if not uri or (ev not in REMOVE_EVENTS and ev not in UPDATE_EVENTS):
        continue
    v = h.get("objectVersion")
    if isinstance(v, str) and v.strip().isdigit():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        v = None
    is_remove = ev in REMOVE_EVENTS
    big = p.get("exceededQueueSizeLimit") is True
    snap = p.get("object") if isinstance(p.get("object"), dict) and not big else None

    if uri in removed:
        held = version.get(uri)
        if gdpr.get(uri) and (v is None or held is None):
            continue
        if v is not None and held is not None:
            if v < held:
                continue
            if v == held and not ((is_remove and not removed[uri]) or (needs_fetch.get(uri) and snap is not None and not is_remove)):
                continue
    else:
        order.append(uri)

    if v is not None:
        version[uri] = v
    removed[uri] = is_remove
    gdpr[uri] = is_remove and ev.endswith("_GDPR")
    if is_remove:
        attributes.pop(uri, None)
        needs_fetch[uri] = False
    elif snap is not None:
        needs_fetch[uri] = False
        if "attributes" in snap:
            attributes[uri] = snap["attributes"]
    elif big:
        needs_fetch[uri] = True
        attributes.pop(uri, None)
    # a deltas message: the snapshot held stays as it is

with open(out_path, "w", encoding="utf-8") as out:
    for uri in order:
        row = {"uri": uri, "removed": removed[uri]}
        if uri in version:
            row["objectVersion"] = version[uri]
        if not removed[uri] and not needs_fetch.get(uri) and uri in attributes:
            row["attributes"] = attributes[uri]
        if needs_fetch.get(uri) and not removed[uri]:
            row["needsFetch"] = True
        out.write(json.dumps(row) + "\n")
print("lines=%d objects=%d" % (lines, len(order)))
