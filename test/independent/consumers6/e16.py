#!/usr/bin/env python3
# Team "Harbor": master-data cache for a pricing engine.
#
# Storage per object is deliberately small: the newest full attribute snapshot seen (with its version),
# the deltas newer than that snapshot (keyed by version, so re-sends collapse), and the newest event
# type/version. Attributes are materialised only when the view is written.
import json, os, signal, sys, time
from dataclasses import dataclass, field

REMOVAL_EVENTS = frozenset("""
ENTITY_REMOVED ENTITY_REMOVED_GDPR ENTITY_LOST_MERGE RELATIONSHIP_REMOVED RELATIONSHIP_REMOVED_GDPR
RELATION_LOST_MERGE INTERACTION_REMOVED CHANGE_REQUEST_REMOVED GROUP_REMOVED""".split())
OTHER_EVENTS = frozenset("""
ENTITY_CREATED ENTITY_CHANGED ENTITIES_SPLITTED ENTITIES_MATCHES_CHANGED ENTITY_BUSINESS_PROCESS_CHANGED
RELATIONSHIP_CREATED RELATIONSHIP_CHANGED RELATIONSHIP_MERGED INTERACTION_CREATED INTERACTION_CHANGED
CHANGE_REQUEST_CREATED CHANGE_REQUEST_CHANGED GROUP_CREATED GROUP_CHANGED""".split())


@dataclass
class Cached:
    base_version: float = float("-inf")
    base: dict = None
    deltas: dict = field(default_factory=dict)   # version -> list of delta items
    head_version: float = float("-inf")
    head_event: str = ""


cache = {}
sequence = [0]


def parse_version(value):
    if value is None or isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def delta_items(deltas):
    if not isinstance(deltas, dict):
        return None
    holder = deltas["deltaCollection"] if isinstance(deltas.get("deltaCollection"), dict) else deltas
    items = holder.get("delta")
    return items if isinstance(items, list) else None


def on_message(msg):
    sequence[0] += 1
    hdr = msg.get("headers") if isinstance(msg.get("headers"), dict) else {}
    pl = msg.get("payload") if isinstance(msg.get("payload"), dict) else {}
    tenant = os.environ.get("LCKIT_TENANT")
    if tenant and "tenantId" in hdr and hdr["tenantId"] != tenant:
        return
    event = hdr.get("eventType") or pl.get("type")
    if event not in REMOVAL_EVENTS and event not in OTHER_EVENTS:
        return
    uri = hdr.get("sourceObjectUri") or pl.get("uri") or (pl.get("object") or {}).get("uri")
    if not uri:
        return
    version = parse_version(hdr.get("objectVersion"))
    entry = cache.setdefault(uri, Cached())
    if version is None:
        version = max(entry.head_version, 0) + sequence[0] * 1e-6 + 1e6
    if version > entry.head_version:
        entry.head_version, entry.head_event = version, event
    obj = pl.get("object")
    if isinstance(obj, dict) and isinstance(obj.get("attributes"), dict):
        if version > entry.base_version:
            entry.base_version, entry.base = version, obj["attributes"]
            entry.deltas = {v: d for v, d in entry.deltas.items() if v > version}
        return
    items = delta_items(pl.get("deltas"))
    if items is not None and version > entry.base_version:
        entry.deltas.setdefault(version, items)


def ident(value):
    if not isinstance(value, dict):
        return None
    if "id" in value:
        return "#" + str(value["id"])
    if isinstance(value.get("uri"), str):
        return "#" + value["uri"].rsplit("/", 1)[-1]
    return "=" + json.dumps(value.get("value"), sort_keys=True)


def materialise(entry):
    if entry.base is None and not entry.deltas:
        return None
    attrs = {k: list(v) for k, v in (entry.base or {}).items()}
    for version in sorted(entry.deltas):
        for item in entry.deltas[version]:
            if not isinstance(item, dict):
                continue
            at = str(item.get("attributeType") or "")
            if "/attributes/" not in at:
                continue
            name = at.split("/attributes/", 1)[1].split("/", 1)[0]
            values = attrs.get(name, [])
            old_id, new = ident(item.get("oldValue")), item.get("newValue")
            kind = item.get("type")
            if kind == "ATTRIBUTE_ADDED" and isinstance(new, dict):
                if ident(new) not in [ident(v) for v in values]:
                    values = values + [dict(new)]
            elif kind == "ATTRIBUTE_CHANGED" and isinstance(new, dict):
                hits = [i for i, v in enumerate(values) if ident(v) == old_id]
                if hits:
                    values = values[:hits[0]] + [dict(new)] + values[hits[0] + 1:]
                elif len(values) == 1:
                    values = [dict(new)]
                else:
                    values = values + [dict(new)]
            elif kind == "ATTRIBUTE_REMOVED":
                values = [v for v in values if ident(v) != old_id]
            else:
                continue
            if values:
                attrs[name] = values
            else:
                attrs.pop(name, None)
    return attrs


def dump(*_ignored):
    with open(os.environ.get("LCKIT_VIEW_FILE", "view.ndjson"), "w") as out:
        for uri, entry in cache.items():
            line = {"uri": uri, "removed": entry.head_event in REMOVAL_EVENTS, "lastEvent": entry.head_event}
            attrs = materialise(entry)
            if attrs is not None:
                line["attributes"] = attrs
            out.write(json.dumps(line) + "\n")
    sys.exit(0)


def follow(path, expected):
    stop_at = time.time() + 40.0
    consumed, count, buf = 0, 0, b""
    while True:
        try:
            with open(path, "rb") as fh:
                fh.seek(consumed)
                fresh = fh.read()
        except OSError:
            fresh = b""
        consumed += len(fresh)
        buf += fresh
        while b"\n" in buf:
            raw, buf = buf.split(b"\n", 1)
            if raw.strip():
                count += 1
                yield raw
        if expected <= 0 or count >= expected or time.time() >= stop_at:
            if buf.strip():
                yield buf
            return
        time.sleep(0.1)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, dump)
    src = os.environ.get("LCKIT_EVENTS_FILE")
    try:
        want = int(os.environ.get("LCKIT_MESSAGES", "0"))
    except ValueError:
        want = 0
    if src:
        for raw in follow(src, want):
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            if isinstance(message, dict):
                on_message(message)
    dump()
