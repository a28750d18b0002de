#!/usr/bin/env python3
"""Pricing-feed consumer: keeps the current attribute values of each object of the tenant so that
price rules can read them. Works on snapshot and delta streams; the events of an object are
sorted by objectVersion (arrival order when the header is absent) and folded."""
import collections
import json
import os
import signal
import sys
import time

REMOVING = frozenset("ENTITY_REMOVED ENTITY_REMOVED_GDPR ENTITY_LOST_MERGE RELATIONSHIP_REMOVED "
                     "RELATIONSHIP_REMOVED_GDPR RELATION_LOST_MERGE INTERACTION_REMOVED "
                     "CHANGE_REQUEST_REMOVED".split())
PLAIN = frozenset("ENTITY_CREATED ENTITY_CHANGED RELATIONSHIP_CREATED RELATIONSHIP_CHANGED INTERACTION_CREATED "
                  "INTERACTION_CHANGED CHANGE_REQUEST_CREATED CHANGE_REQUEST_CHANGED ENTITIES_SPLITTED "
                  "ENTITIES_MATCHES_CHANGED RELATIONSHIP_MERGED ENTITY_BUSINESS_PROCESS_CHANGED".split())

Event = collections.namedtuple("Event", "version arrival etype payload")
store = collections.defaultdict(dict)   # uri -> {key: Event}; key is the version or a content print
tick = [0]


def parse(line):
    try:
        msg = json.loads(line)
    except ValueError:
        return None
    if not isinstance(msg, dict):
        return None
    headers = msg.get("headers") if isinstance(msg.get("headers"), dict) else {}
    payload = msg.get("payload") if isinstance(msg.get("payload"), dict) else {}
    return headers, payload


def absorb(line):
    parsed = parse(line)
    if parsed is None:
        return
    headers, payload = parsed
    want_tenant = os.environ.get("LCKIT_TENANT")
    if want_tenant and headers.get("tenantId") not in (None, want_tenant):
        return
    etype = headers.get("eventType") or payload.get("type")
    if etype not in REMOVING and etype not in PLAIN:
        return
    uri = headers.get("sourceObjectUri") or payload.get("uri") or (payload.get("object") or {}).get("uri")
    if not uri:
        return
    version = headers.get("objectVersion")
    if type(version) is int:
        key = ("v", version)
    else:
        version = None
        key = ("c", etype, json.dumps(payload, sort_keys=True))
    tick[0] += 1
    store[uri].setdefault(key, Event(version, tick[0], etype, payload))


def delta_items(payload):
    d = payload.get("deltas")
    if not isinstance(d, dict):
        return []
    holder = d.get("deltaCollection") if isinstance(d.get("deltaCollection"), dict) else d
    return [x for x in holder.get("delta") or [] if isinstance(x, dict) and isinstance(x.get("attributeType"), str)]


def short_name(attribute_type):
    return attribute_type.split("/attributes/", 1)[1].split("/", 1)[0] if "/attributes/" in attribute_type else None


def attributes_from_deltas(uri, items):
    """The attribute map that a delta message describes."""
    result = {}
    for item in items:
        name = short_name(item["attributeType"])
        if not name or item.get("type") == "ATTRIBUTE_REMOVED" or not isinstance(item.get("newValue"), dict):
            continue
        nv = item["newValue"]
        element = {"type": item["attributeType"]}
        element.update((k, v) for k, v in nv.items() if k not in ("id", "sources"))
        element["uri"] = "%s/attributes/%s/%s" % (uri, name, nv.get("id"))
        result.setdefault(name, []).append(element)
    return result


def fold(uri, events):
    if all(e.version is not None for e in events):
        events = sorted(events, key=lambda e: e.version)
    else:
        events = sorted(events, key=lambda e: e.arrival)
    view = {"uri": uri, "removed": False}
    attrs = None
    for e in events:
        if e.version is not None:
            view["objectVersion"] = e.version
        view["removed"] = e.etype in REMOVING
        if e.etype.endswith("_CREATED") or e.etype.endswith("_GDPR"):
            attrs = None
        if e.etype.endswith("_GDPR"):
            continue
        obj = e.payload.get("object")
        if isinstance(obj, dict) and isinstance(obj.get("attributes"), dict):
            attrs = json.loads(json.dumps(obj["attributes"]))
            continue
        items = delta_items(e.payload)
        if items:
            attrs = attributes_from_deltas(uri, items)
    if attrs is not None and not view["removed"]:
        view["attributes"] = attrs
        view["priceRelevant"] = sorted(attrs)
    return view


def dump(*_):
    with open(os.environ["LCKIT_VIEW_FILE"], "w", encoding="utf-8") as fh:
        for uri, events in store.items():
            fh.write(json.dumps(fold(uri, list(events.values()))) + "\n")
    sys.exit(0)


def run():
    signal.signal(signal.SIGTERM, dump)
    total = int(os.environ.get("LCKIT_MESSAGES") or 0)
    t_end = time.monotonic() + 40
    handled = 0
    while True:
        try:
            with open(os.environ["LCKIT_EVENTS_FILE"], encoding="utf-8") as fh:
                text = fh.read()
        except OSError:
            text = ""
        parts = text.split("\n")
        complete = [p for p in parts[:-1] if p.strip()]
        for line in complete[handled:]:
            absorb(line)
        handled = max(handled, len(complete))
        if not total or handled >= total or time.monotonic() > t_end:
            if parts[-1].strip():
                absorb(parts[-1])
            break
        time.sleep(0.05)
    dump()


run()
