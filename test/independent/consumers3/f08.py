#!/usr/bin/env python3
"""Reporting mart loader (BI team). Python 3.11 stdlib only.

Replays the tenant's event stream into the latest state per object for the reporting mart.
"""

import json
import os
import sys

JOB = "f08"

IN = os.environ.get("LCKIT_EVENTS_FILE")
OUT = os.environ.get("LCKIT_VIEW_FILE")
TENANT = os.environ.get("LCKIT_TENANT")

# what each documented (and supported) event type does to the object named by sourceObjectUri
# (change requests are workflow items of the data-steward UI, not data: they are not followed)
REMOVES = {
    "ENTITY_REMOVED",
    "ENTITY_REMOVED_GDPR",
    "ENTITY_LOST_MERGE",
    "RELATIONSHIP_REMOVED",
    "RELATIONSHIP_REMOVED_GDPR",
    "RELATION_LOST_MERGE",
    "INTERACTION_REMOVED",
}
KEEPS = {
    "ENTITY_CREATED",
    "ENTITY_CHANGED",
    "ENTITIES_SPLITTED",
    "ENTITIES_MATCHES_CHANGED",
    "ENTITY_BUSINESS_PROCESS_CHANGED",
    "RELATIONSHIP_CREATED",
    "RELATIONSHIP_CHANGED",
    "RELATIONSHIP_MERGED",
    "INTERACTION_CREATED",
    "INTERACTION_CHANGED",
}


def version_of(headers):
    value = headers.get("objectVersion")
    if value is None or value == "" or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    if number != number or number in (float("inf"), float("-inf")):
        return None
    return int(number) if number.is_integer() else number


def canonical(msg):
    return json.dumps(msg, sort_keys=True, separators=(",", ":"))


def as_dict(value):
    return value if isinstance(value, dict) else {}


class View:
    def __init__(self):
        self.objects = {}  # sourceObjectUri -> {"version", "rank", "removed", "attributes"?}
        self.seen = set()  # exact re-sends

    def apply(self, msg):
        if not isinstance(msg, dict):
            return
        h, p = as_dict(msg.get("headers")), as_dict(msg.get("payload"))
        if TENANT and "tenantId" in h and h["tenantId"] != TENANT:
            return  # another tenant's stream
        obj = p.get("object") if isinstance(p.get("object"), dict) else None
        uri = h.get("sourceObjectUri") or p.get("uri") or (obj or {}).get("uri")
        if not uri:
            return
        kind = h.get("eventType") or p.get("type")
        removes = kind in REMOVES
        if not removes and kind not in KEEPS:
            return  # unsupported or unknown type: no state change we understand
        key = canonical(msg)
        if key in self.seen:
            return
        self.seen.add(key)
        version = version_of(h)
        full = not removes and obj is not None and not p.get("exceededQueueSizeLimit")
        rank = 2 if removes else 1 if full else 0  # at one version: removal > snapshot > partial message
        state = self.objects.get(uri)
        if state and version is not None and state["version"] is not None:
            if version < state["version"] or (version == state["version"] and rank < state["rank"]):
                return  # older than what we hold
        if state is None:
            state = self.objects[uri] = {"version": None}
        if version is not None:
            state["version"] = version
        state["rank"] = rank
        state["removed"] = removes
        if removes or not full:
            # removed, or a new state that came without its content (large-object fallback, deltas, change request)
            state.pop("attributes", None)
        elif "attributes" in obj:
            state["attributes"] = obj["attributes"]  # absent: filtered out, unchanged

    def rows(self):
        for uri, state in self.objects.items():
            row = {"uri": uri, "removed": state["removed"]}
            if state["version"] is not None:
                row["objectVersion"] = state["version"]
            if not state["removed"] and "attributes" in state:
                row["attributes"] = state["attributes"]
            yield row


def main():
    if not IN or not OUT:
        sys.exit(f"{JOB}: set LCKIT_EVENTS_FILE (input, one event per line) and LCKIT_VIEW_FILE (output)")
    view = View()
    with open(IN, encoding="utf-8") as source:
        for number, line in enumerate(source, 1):
            if not line.strip():
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                print(f"{JOB}: line {number} is not JSON, skipped", file=sys.stderr)
                continue
            view.apply(msg)
    with open(OUT, "w", encoding="utf-8") as sink:
        for row in view.rows():
            sink.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
