#!/usr/bin/env python3
"""Search-index feeder: groups messages per object and version, then folds them into
index documents in version order."""
import json, os, signal, sys, time
from collections import defaultdict

env = os.environ
removal_types = ("ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE", "RELATIONSHIP_REMOVED",
                 "RELATIONSHIP_REMOVED_GDPR", "RELATION_LOST_MERGE", "INTERACTION_REMOVED",
                 "CHANGE_REQUEST_REMOVED", "GROUP_REMOVED")
other_types = ("ENTITY_CREATED", "ENTITY_CHANGED", "RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED",
               "GROUP_CREATED", "GROUP_CHANGED", "INTERACTION_CREATED", "INTERACTION_CHANGED",
               "ENTITIES_SPLITTED", "ENTITIES_MATCHES_CHANGED", "RELATIONSHIP_MERGED",
               "ENTITY_BUSINESS_PROCESS_CHANGED", "CHANGE_REQUEST_CREATED", "CHANGE_REQUEST_CHANGED")

by_object = defaultdict(lambda: defaultdict(list))   # uri -> version -> [(etype, payload)]
arrival = 0


def on_message(raw):
    global arrival
    try:
        m = json.loads(raw)
        headers, payload = m.get("headers") or {}, m.get("payload")
    except (ValueError, AttributeError):
        return
    if not isinstance(payload, dict):
        payload = {}
    if env.get("LCKIT_TENANT") and headers.get("tenantId", env["LCKIT_TENANT"]) != env["LCKIT_TENANT"]:
        return
    et = headers.get("eventType") or payload.get("type")
    if et not in removal_types and et not in other_types:
        return
    uri = headers.get("sourceObjectUri") or payload.get("uri") or (payload.get("object") or {}).get("uri")
    if not uri:
        return
    arrival += 1
    v = headers.get("objectVersion")
    key = (0, int(v)) if v is not None else (1, arrival)
    by_object[uri][key].append((et, payload))


def fold(doc, items):
    for d in items:
        if not isinstance(d, dict) or "attributeType" not in d:
            continue
        name = str(d["attributeType"]).split("/")[-1]
        values = doc.setdefault(name, [])
        old_id = (d.get("oldValue") or {}).get("id")
        if d.get("type") == "ATTRIBUTE_REMOVED":
            values[:] = [x for x in values if x.get("id") != old_id]
        elif d.get("type") == "ATTRIBUTE_CHANGED":
            hit = [i for i, x in enumerate(values) if x.get("id") == old_id]
            if hit:
                values[hit[0]] = d.get("newValue")
            else:
                values.append(d.get("newValue"))
        elif d.get("newValue") is not None:
            values.append(d["newValue"])
        if not values:
            del doc[name]


def deltas_of(p):
    d = p.get("deltas")
    if isinstance(d, dict) and isinstance(d.get("deltaCollection"), dict):
        d = d["deltaCollection"]
    return d.get("delta") if isinstance(d, dict) and isinstance(d.get("delta"), list) else []


def write_view(*_):
    lines = []
    for uri, versions in by_object.items():
        attrs, removed, last = None, False, None
        for key in sorted(versions):
            for et, p in versions[key]:
                if key[0] == 0:
                    last = key[1]
                removed = et in removal_types
                if isinstance(p.get("object"), dict):
                    if isinstance(p["object"].get("attributes"), dict):
                        attrs = json.loads(json.dumps(p["object"]["attributes"]))
                elif "deltas" in p and not p.get("exceededQueueSizeLimit"):
                    attrs = attrs if attrs is not None else {}
                    fold(attrs, deltas_of(p))
                if et == "ENTITY_REMOVED_GDPR":
                    attrs = None
        row = {"uri": uri, "removed": removed}
        if last is not None:
            row["objectVersion"] = last
        if attrs is not None:
            row["attributes"] = attrs
        lines.append(json.dumps(row))
    with open(env["LCKIT_VIEW_FILE"], "w") as out:
        out.write("".join(l + "\n" for l in lines))
    sys.exit(0)


signal.signal(signal.SIGTERM, write_view)
limit = int(env.get("LCKIT_MESSAGES") or 0)
seen_lines = 0
t_end = time.time() + 40
while seen_lines < limit and time.time() < t_end:
    try:
        with open(env["LCKIT_EVENTS_FILE"]) as f:
            all_lines = f.read().split("\n")
    except OSError:
        all_lines = []
    complete = all_lines[:-1] if len(all_lines) > 0 else []
    if seen_lines >= limit or len([l for l in complete if l.strip()]) >= limit:
        complete = all_lines
    fresh = [l for l in complete if l.strip()][seen_lines:]
    for l in fresh:
        on_message(l)
    seen_lines += len(fresh)
    if seen_lines < limit:
        time.sleep(0.15)
write_view()
