#!/usr/bin/env python3
"""Profile-service sync (web team): a generator pipeline from raw lines to view rows. stdlib only."""
import dataclasses
import json
import os
import sys
from typing import Iterator, Optional

GONE = {"ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE", "RELATIONSHIP_REMOVED", "RELATIONSHIP_REMOVED_GDPR",
        "RELATION_LOST_MERGE", "INTERACTION_REMOVED", "CHANGE_REQUEST_REMOVED", "GROUP_REMOVED"}
LIVE = {"ENTITY_CREATED", "ENTITY_CHANGED", "RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED", "RELATIONSHIP_MERGED",
        "INTERACTION_CREATED", "INTERACTION_CHANGED", "ENTITIES_SPLITTED", "ENTITIES_MATCHES_CHANGED",
        "ENTITY_BUSINESS_PROCESS_CHANGED", "CHANGE_REQUEST_CREATED", "CHANGE_REQUEST_CHANGED", "GROUP_CREATED", "GROUP_CHANGED"}


@dataclasses.dataclass
class Event:
    uri: str
    type: str
    version: Optional[int]
    action: str  # "remove" | "snapshot" | "refetch" | "touch"
    attributes: object = None
    has_attributes: bool = False


@dataclasses.dataclass
class Row:
    uri: str
    removed: bool = False
    gdpr: bool = False
    version: Optional[int] = None
    attributes: object = None
    refetch: bool = False


def read_lines(path) -> Iterator[dict]:
    with open(path, encoding="utf-8-sig") as fh:
        for no, line in enumerate(fh, 1):
            if line.strip():
                try:
                    yield json.loads(line)
                except ValueError:
                    print("line %d skipped (not JSON)" % no, file=sys.stderr)


def to_events(messages, tenant) -> Iterator[Event]:
    for m in messages:
        h, p = m.get("headers") or {}, m.get("payload") or {}
        if tenant and h.get("tenantId") and h["tenantId"] != tenant:
            continue
        etype = h.get("eventType") or p.get("type")
        uri = h.get("sourceObjectUri") or p.get("uri") or (p.get("object") or {}).get("uri")
        if not uri or etype not in GONE | LIVE:
            continue
        v = h.get("objectVersion")
        if isinstance(v, str) and v.strip().isdigit():
            v = int(v)
        v = v if isinstance(v, int) and not isinstance(v, bool) else None
        if p.get("exceededQueueSizeLimit") is True:
            # the object did not fit in the queue: refetch it later
            yield Event(uri, etype, v, "refetch")
        elif etype in GONE:
            yield Event(uri, etype, v, "remove")
        elif isinstance(p.get("object"), dict):
            obj = p["object"]
            yield Event(uri, etype, v, "snapshot", obj.get("attributes"), "attributes" in obj)
        elif p.get("deltas") is not None:
            yield Event(uri, etype, v, "refetch")
        else:
            yield Event(uri, etype, v, "touch")


def newer(row: Row, e: Event) -> bool:
    if row.gdpr and (e.version is None or row.version is None):
        return False
    if e.version is None or row.version is None:
        return True
    if e.version != row.version:
        return e.version > row.version
    return (e.action == "remove" and not row.removed) or (row.refetch and e.action == "snapshot")


def fold(events) -> dict:
    rows = {}
    for e in events:
        row = rows.get(e.uri)
        if row is not None and not newer(row, e):
            continue
        row = row or Row(e.uri)
        if e.version is not None:
            row.version = e.version
        if e.action == "remove":
            row.removed, row.gdpr, row.attributes, row.refetch = True, e.type.endswith("_GDPR"), None, False
        else:
            row.removed = row.gdpr = False
            if e.action == "refetch":
                row.refetch, row.attributes = True, None
            elif e.action == "snapshot":
                row.refetch = False
                if e.has_attributes:
                    row.attributes = e.attributes
        rows[e.uri] = row
    return rows


def main():
    src, dst = os.environ.get("LCKIT_EVENTS_FILE"), os.environ.get("LCKIT_VIEW_FILE")
    if not src or not dst:
        sys.exit("error: LCKIT_EVENTS_FILE and LCKIT_VIEW_FILE are required")
    rows = fold(to_events(read_lines(src), os.environ.get("LCKIT_TENANT")))
    with open(dst, "w", encoding="utf-8") as out:
        for r in rows.values():
            o = {"uri": r.uri, "removed": r.removed}
            if r.version is not None:
                o["objectVersion"] = r.version
            if not r.removed and not r.refetch and r.attributes is not None:
                o["attributes"] = r.attributes
            if r.refetch and not r.removed:
                o["refetch"] = True
            out.write(json.dumps(o) + "\n")
    print("objects=%d" % len(rows))


if __name__ == "__main__":
    main()
