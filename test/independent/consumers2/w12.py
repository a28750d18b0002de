#!/usr/bin/env python3
"""Event journal compactor (platform SRE). stdlib only.

Reads the input as bytes (tolerates a BOM and CRLF line ends), compacts the journal to one row per object and
writes rows in the order objects last changed. Removed objects are written as tombstones: uri, removed and the
event that removed them (removedBy); their objectVersion is not repeated.
"""
import collections
import json
import os
import sys

REMOVING = frozenset(["ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE", "RELATIONSHIP_REMOVED",
                      "RELATIONSHIP_REMOVED_GDPR", "RELATION_LOST_MERGE", "INTERACTION_REMOVED",
                      "CHANGE_REQUEST_REMOVED", "GROUP_REMOVED"])
UPDATING = frozenset(["ENTITY_CREATED", "ENTITY_CHANGED", "RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED",
                      "RELATIONSHIP_MERGED", "INTERACTION_CREATED", "INTERACTION_CHANGED", "ENTITIES_SPLITTED",
                      "ENTITIES_MATCHES_CHANGED", "ENTITY_BUSINESS_PROCESS_CHANGED", "CHANGE_REQUEST_CREATED",
                      "CHANGE_REQUEST_CHANGED", "GROUP_CREATED", "GROUP_CHANGED"])


def version_of(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, (str, bytes)) and v.strip().isdigit():
        return int(v)
    return None


def supersedes(cur, ver, removing, full):
    if cur is None:
        return True
    if cur["gdpr"] and (ver is None or cur["ver"] is None):
        return False  # a GDPR removal stays final unless a newer version proves otherwise
    if ver is None or cur["ver"] is None:
        return True
    if ver != cur["ver"]:
        return ver > cur["ver"]
    return (removing and not cur["removed"]) or (cur["pending"] and full and not removing)


def main():
    src, dst = os.environ.get("LCKIT_EVENTS_FILE"), os.environ.get("LCKIT_VIEW_FILE")
    if not src or not dst:
        sys.exit("error: LCKIT_EVENTS_FILE (input) and LCKIT_VIEW_FILE (output) are required")
    tenant = os.environ.get("LCKIT_TENANT") or None
    journal = collections.OrderedDict()
    with open(src, "rb") as fh:
        data = fh.read()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    for no, raw in enumerate(data.split(b"\n"), 1):
        raw = raw.strip(b"\r \t")
        if not raw:
            continue
        try:
            msg = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            print("line %d ignored: not UTF-8 JSON" % no, file=sys.stderr)
            continue
        h, p = msg.get("headers") or {}, msg.get("payload") or {}
        if tenant and h.get("tenantId") and h["tenantId"] != tenant:
            continue
        etype = h.get("eventType") or p.get("type")
        uri = h.get("sourceObjectUri") or p.get("uri") or (p.get("object") or {}).get("uri")
        if not uri or not (etype in REMOVING or etype in UPDATING):
            continue
        ver = version_of(h.get("objectVersion"))
        removing = etype in REMOVING
        full = p.get("exceededQueueSizeLimit") is not True and isinstance(p.get("object"), dict)
        cur = journal.get(uri)
        if not supersedes(cur, ver, removing, full):
            continue
        row = dict(cur) if cur else {"ver": None, "removed": False, "gdpr": False, "attrs": None, "pending": False}
        if ver is not None:
            row["ver"] = ver
        row["removed"], row["gdpr"], row["by"] = removing, removing and etype.endswith("_GDPR"), etype
        if removing:
            row["attrs"], row["pending"] = None, False
        elif full:
            row["pending"] = False
            if "attributes" in p["object"]:
                row["attrs"] = p["object"]["attributes"]
        elif p.get("exceededQueueSizeLimit") is True or p.get("deltas") is not None:
            row["attrs"], row["pending"] = None, True
        journal.pop(uri, None)
        journal[uri] = row  # moves the object to the end: last changed last
    with open(dst, "w", encoding="utf-8", newline="\n") as out:
        for uri, r in journal.items():
            if r["removed"]:
                out.write(json.dumps({"uri": uri, "removed": True, "removedBy": r["by"]}) + "\n")
                continue
            row = {"uri": uri, "removed": False}
            if r["ver"] is not None:
                row["objectVersion"] = r["ver"]
            if r["pending"]:
                row["refresh"] = "pending"
            elif r["attrs"] is not None:
                row["attributes"] = r["attrs"]
            out.write(json.dumps(row) + "\n")
    print("objects=%d" % len(journal))


if __name__ == "__main__":
    main()
