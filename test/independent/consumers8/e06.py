#!/usr/bin/env python3
# Graph-store sync: keeps node and edge existence for a tenant's graph (entities are nodes,
# relations are edges; interactions and change requests are tracked as side objects).
# Each object's events go into a heap keyed by objectVersion and are popped in order at the end.
import heapq
import json
import os
import signal
import sys
import time

tenant = os.environ.get("LCKIT_TENANT") or None
events_path = os.environ.get("LCKIT_EVENTS_FILE")
view_path = os.environ.get("LCKIT_VIEW_FILE")
want = int(os.environ.get("LCKIT_MESSAGES") or "0")

NODE_EVENTS = {
    "ENTITY_CREATED": "up", "ENTITY_CHANGED": "up", "ENTITIES_SPLITTED": "up",
    "ENTITIES_MATCHES_CHANGED": "up", "ENTITY_BUSINESS_PROCESS_CHANGED": "up",
    "ENTITY_REMOVED": "down", "ENTITY_REMOVED_GDPR": "down", "ENTITY_LOST_MERGE": "down",
}
EDGE_EVENTS = {
    "RELATIONSHIP_CREATED": "up", "RELATIONSHIP_CHANGED": "up", "RELATIONSHIP_MERGED": "up",
    # a GDPR request scrubs the personal data carried on the edge; the edge itself stays
    "RELATIONSHIP_REMOVED_GDPR": "up",
    "RELATIONSHIP_REMOVED": "down", "RELATION_LOST_MERGE": "down",
}
SIDE_EVENTS = {
    "INTERACTION_CREATED": "up", "INTERACTION_CHANGED": "up", "INTERACTION_REMOVED": "down",
    "CHANGE_REQUEST_CREATED": "up", "CHANGE_REQUEST_CHANGED": "up", "CHANGE_REQUEST_REMOVED": "down",
}
EFFECT = dict(NODE_EVENTS, **EDGE_EVENTS, **SIDE_EVENTS)

heaps = {}         # uri -> heap of (version, arrival, type)
plain = {}         # uri -> list of types in arrival order (no objectVersion header)
versions_seen = {}  # uri -> set of versions
prints = {}        # uri -> set of content prints
counter = [0]


def classify(uri):
    if uri.startswith("entities/"):
        return "node"
    if uri.startswith("relations/"):
        return "edge"
    return "side"


def take(line):
    try:
        msg = json.loads(line)
    except ValueError:
        return
    if not isinstance(msg, dict):
        return
    h = msg.get("headers") if isinstance(msg.get("headers"), dict) else {}
    p = msg.get("payload") if isinstance(msg.get("payload"), dict) else {}
    if tenant is not None and h.get("tenantId", tenant) != tenant:
        return
    etype = h.get("eventType") or p.get("type")
    if etype not in EFFECT:
        return
    obj = p.get("object") if isinstance(p.get("object"), dict) else {}
    uri = h.get("sourceObjectUri") or p.get("uri") or obj.get("uri")
    if not uri:
        return
    counter[0] += 1
    v = h.get("objectVersion")
    if isinstance(v, int) and not isinstance(v, bool):
        seen = versions_seen.setdefault(uri, set())
        if v in seen:
            return
        seen.add(v)
        heapq.heappush(heaps.setdefault(uri, []), (v, counter[0], etype))
    else:
        pr = etype + json.dumps(p, sort_keys=True)
        if pr in prints.setdefault(uri, set()):
            return
        prints[uri].add(pr)
        plain.setdefault(uri, []).append(etype)


def build():
    rows = []
    for uri in set(heaps) | set(plain):
        row = {"uri": uri, "removed": False, "kind": classify(uri)}
        h = list(heaps.get(uri, []))
        state = None
        n = 0
        while h:
            v, _, etype = heapq.heappop(h)
            state = EFFECT[etype]
            row["objectVersion"] = v
            n += 1
        for etype in plain.get(uri, []):
            state = EFFECT[etype]
            n += 1
        row["removed"] = state == "down"
        row["applied"] = n
        rows.append(row)
    return rows


def flush(*_):
    with open(view_path, "w") as out:
        for row in build():
            out.write(json.dumps(row) + "\n")
    sys.exit(0)


signal.signal(signal.SIGTERM, flush)
limit = time.time() + 40
consumed = 0
position = 0
buffer = ""
while True:
    try:
        with open(events_path, "r") as fh:
            fh.seek(position)
            buffer += fh.read()
            position = fh.tell()
    except (OSError, TypeError):
        pass
    while "\n" in buffer:
        line, buffer = buffer.split("\n", 1)
        if line.strip():
            consumed += 1
            take(line)
    if want <= 0 or consumed >= want or time.time() > limit:
        break
    time.sleep(0.05)
if buffer.strip():
    take(buffer)
flush()
