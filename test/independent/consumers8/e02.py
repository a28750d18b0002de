#!/usr/bin/env python3
"""Archive team: keeps the complete event journal of every object of the tenant and
rebuilds each object's state by replaying its journal in objectVersion order."""
import json, os, signal, sys, time

TENANT = os.environ.get("LCKIT_TENANT", "")
EVENTS = os.environ.get("LCKIT_EVENTS_FILE", "")
VIEW = os.environ.get("LCKIT_VIEW_FILE", "view.ndjson")
TOTAL = int(os.environ.get("LCKIT_MESSAGES", "0") or 0)

REMOVALS = {"ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE", "RELATIONSHIP_REMOVED",
            "RELATIONSHIP_REMOVED_GDPR", "RELATION_LOST_MERGE", "INTERACTION_REMOVED",
            "CHANGE_REQUEST_REMOVED", "GROUP_REMOVED"}
CREATIONS = {"ENTITY_CREATED", "RELATIONSHIP_CREATED", "INTERACTION_CREATED", "CHANGE_REQUEST_CREATED",
             "GROUP_CREATED"}
OTHERS = {"ENTITY_CHANGED", "RELATIONSHIP_CHANGED", "INTERACTION_CHANGED", "CHANGE_REQUEST_CHANGED",
          "GROUP_CHANGED", "ENTITIES_SPLITTED", "ENTITIES_MATCHES_CHANGED", "RELATIONSHIP_MERGED",
          "ENTITY_BUSINESS_PROCESS_CHANGED"}
KNOWN = REMOVALS | CREATIONS | OTHERS

journal = {}   # uri -> list of (order_key, arrival, event_type, payload)
arrivals = 0


def record(raw):
    global arrivals
    try:
        msg = json.loads(raw)
    except ValueError:
        return
    if not isinstance(msg, dict):
        return
    headers = msg.get("headers") or {}
    payload = msg.get("payload") or {}
    if not isinstance(payload, dict):
        payload = {}
    if TENANT and headers.get("tenantId") not in (None, TENANT):
        return
    etype = headers.get("eventType") or payload.get("type")
    if etype not in KNOWN:
        return
    obj = payload.get("object") if isinstance(payload.get("object"), dict) else None
    uri = headers.get("sourceObjectUri") or payload.get("uri") or (obj or {}).get("uri")
    if not uri:
        return
    version = headers.get("objectVersion")
    if isinstance(version, bool) or not isinstance(version, int):
        version = None
    arrivals += 1
    entries = journal.setdefault(uri, [])
    fingerprint = json.dumps(payload, sort_keys=True) + etype
    for e in entries:
        if version is not None and e[0] == version:
            return                          # re-send of a version already journaled
        if version is None and e[4] == fingerprint:
            return                          # re-send without a version: same content
    entries.append((version, arrivals, etype, payload, fingerprint))


def attr_name(attribute_type):
    tail = attribute_type.split("/attributes/", 1)[-1]
    return tail.split("/", 1)[0]


def delta_items(deltas):
    if not isinstance(deltas, dict):
        return []
    coll = deltas.get("deltaCollection") if isinstance(deltas.get("deltaCollection"), dict) else deltas
    items = coll.get("delta")
    return items if isinstance(items, list) else []


def apply_delta(uri, attrs, item):
    if not isinstance(item, dict) or not item.get("attributeType"):
        return
    name = attr_name(item["attributeType"])
    values = attrs.setdefault(name, [])
    old = item.get("oldValue") if isinstance(item.get("oldValue"), dict) else None
    new = item.get("newValue") if isinstance(item.get("newValue"), dict) else None
    if old is not None:
        oid = old.get("id")
        kept = [v for v in values if not (oid and str(v.get("uri", "")).endswith("/" + str(oid)))]
        if len(kept) == len(values):
            kept = [v for v in values if v.get("value") != old.get("value")] if "value" in old else kept
        values[:] = kept
    if new is not None and item.get("type") != "ATTRIBUTE_REMOVED":
        element = {"type": item["attributeType"], "ov": new.get("ov", True)}
        for k, v in new.items():
            if k not in ("id", "sources", "ov"):
                element[k] = v
        element["uri"] = "%s/attributes/%s/%s" % (uri, name, new.get("id", ""))
        values[:] = [v for v in values if v.get("uri") != element["uri"]]
        values.append(element)
    if not values:
        attrs.pop(name, None)


def replay(uri, entries):
    if all(e[0] is not None for e in entries):
        ordered = sorted(entries, key=lambda e: e[0])
    else:
        ordered = sorted(entries, key=lambda e: e[1])
    state = {"uri": uri, "removed": False}
    attrs = None
    last = None
    for version, _, etype, payload, _ in ordered:
        last = etype
        if version is not None:
            state["objectVersion"] = version
        obj = payload.get("object") if isinstance(payload.get("object"), dict) else None
        if etype in CREATIONS:
            attrs = None
        if etype == "ENTITY_REMOVED_GDPR":
            attrs = None                      # personal data goes with the entity
        elif obj is not None and isinstance(obj.get("attributes"), dict):
            attrs = json.loads(json.dumps(obj["attributes"]))
        elif "deltas" in payload:
            items = delta_items(payload.get("deltas"))
            if items:
                attrs = attrs if attrs is not None else {}
                for it in items:
                    apply_delta(uri, attrs, it)
        state["removed"] = etype in REMOVALS
    state["lastEventType"] = last
    state["journalLength"] = len(entries)
    if attrs is not None and not state["removed"]:
        state["attributes"] = attrs
    return state


def follow():
    deadline = time.time() + 40
    pos = 0
    pending = ""
    seen = 0
    while True:
        try:
            with open(EVENTS, "r", encoding="utf-8") as fh:
                fh.seek(pos)
                chunk = fh.read()
                pos = fh.tell()
        except OSError:
            chunk = ""
        pending += chunk
        *lines, pending = pending.split("\n")
        for line in lines:
            if line.strip():
                seen += 1
                record(line)
        if not TOTAL or seen >= TOTAL or time.time() > deadline:
            break
        time.sleep(0.05)
    if pending.strip():
        record(pending)


def write_view(*_):
    with open(VIEW, "w", encoding="utf-8") as out:
        for uri, entries in journal.items():
            out.write(json.dumps(replay(uri, entries)) + "\n")
    sys.exit(0)


signal.signal(signal.SIGTERM, write_view)
follow()
write_view()
