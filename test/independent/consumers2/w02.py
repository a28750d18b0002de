#!/usr/bin/env python3
"""Search-index feeder (search team): keeps one document per object from the event stream. stdlib only."""
import json
import os
import sys

DELETES = {
    "ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "RELATIONSHIP_REMOVED", "RELATIONSHIP_REMOVED_GDPR",
    "RELATION_LOST_MERGE", "INTERACTION_REMOVED", "CHANGE_REQUEST_REMOVED", "GROUP_REMOVED",
}
UPDATES = {
    "ENTITY_CREATED", "ENTITY_CHANGED", "ENTITY_LOST_MERGE", "RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED",
    "RELATIONSHIP_MERGED", "INTERACTION_CREATED", "INTERACTION_CHANGED", "ENTITIES_SPLITTED", "ENTITIES_MATCHES_CHANGED",
    "ENTITY_BUSINESS_PROCESS_CHANGED", "CHANGE_REQUEST_CREATED", "CHANGE_REQUEST_CHANGED", "GROUP_CREATED", "GROUP_CHANGED",
}


def as_version(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


class IndexStore:
    def __init__(self, tenant):
        self.tenant = tenant
        self.docs = {}
        self.order = []

    def offer(self, msg):
        hdr = msg.get("headers") or {}
        body = msg.get("payload") or {}
        if self.tenant and hdr.get("tenantId") and hdr["tenantId"] != self.tenant:
            return
        event = hdr.get("eventType") or body.get("type")
        obj = body.get("object") if isinstance(body.get("object"), dict) else None
        uri = hdr.get("sourceObjectUri") or body.get("uri") or (obj or {}).get("uri")
        if not event or not uri or (event not in DELETES and event not in UPDATES):
            return
        ver = as_version(hdr.get("objectVersion"))
        is_delete = event in DELETES
        pointer_only = body.get("exceededQueueSizeLimit") is True or obj is None
        doc = self.docs.get(uri)
        if doc is not None:
            if doc["gdpr"] and (ver is None or doc["ver"] is None):
                return
            if ver is not None and doc["ver"] is not None:
                if ver < doc["ver"]:
                    return
                if ver == doc["ver"] and not ((is_delete and not doc["deleted"]) or (doc["partial"] and not pointer_only and not is_delete)):
                    return
        else:
            doc = {"ver": None, "deleted": False, "gdpr": False, "attrs": None, "partial": False}
            self.docs[uri] = doc
            self.order.append(uri)
        if ver is not None:
            doc["ver"] = ver
        if is_delete:
            doc.update(deleted=True, gdpr=event.endswith("_GDPR"), attrs=None, partial=False)
            return
        doc["deleted"] = False
        doc["gdpr"] = False
        if not pointer_only:
            doc["partial"] = False
            if "attributes" in obj:
                doc["attrs"] = obj["attributes"]
        elif body.get("exceededQueueSizeLimit") is True or body.get("deltas") is not None:
            doc["partial"] = True
            doc["attrs"] = None

    def lines(self):
        for uri in self.order:
            d = self.docs[uri]
            row = {"uri": uri, "removed": d["deleted"]}
            if d["ver"] is not None:
                row["objectVersion"] = d["ver"]
            if not d["deleted"] and not d["partial"] and d["attrs"] is not None:
                row["attributes"] = d["attrs"]
            if d["partial"] and not d["deleted"]:
                row["reindex"] = True
            yield json.dumps(row, separators=(",", ":"))


def main():
    src, dst = os.environ.get("LCKIT_EVENTS_FILE"), os.environ.get("LCKIT_VIEW_FILE")
    if not src or not dst:
        sys.exit("error: LCKIT_EVENTS_FILE and LCKIT_VIEW_FILE must name the input and output files")
    store = IndexStore(os.environ.get("LCKIT_TENANT"))
    count = 0
    with open(src, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            count += 1
            try:
                store.offer(json.loads(line))
            except ValueError:
                print("warning: line %d is not JSON" % n, file=sys.stderr)
    with open(dst, "w", encoding="utf-8") as out:
        for row in store.lines():
            out.write(row + "\n")
    print("read=%d documents=%d" % (count, len(store.docs)))


if __name__ == "__main__":
    main()
