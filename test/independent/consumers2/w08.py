#!/usr/bin/env python3
"""Reporting mart loader (finance IT): applies events to a SQLite table with a version guard. stdlib only."""
import json
import os
import sqlite3
import sys

REMOVED = ("ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE", "RELATIONSHIP_REMOVED", "RELATIONSHIP_REMOVED_GDPR",
           "RELATION_LOST_MERGE", "INTERACTION_REMOVED", "CHANGE_REQUEST_REMOVED", "GROUP_REMOVED")
KEPT = ("ENTITY_CREATED", "ENTITY_CHANGED", "RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED", "RELATIONSHIP_MERGED",
        "INTERACTION_CREATED", "INTERACTION_CHANGED", "ENTITIES_SPLITTED", "ENTITIES_MATCHES_CHANGED",
        "ENTITY_BUSINESS_PROCESS_CHANGED", "CHANGE_REQUEST_CREATED", "CHANGE_REQUEST_CHANGED", "GROUP_CREATED", "GROUP_CHANGED")

SCHEMA = """
CREATE TABLE obj (
  uri TEXT PRIMARY KEY, seq INTEGER, version INTEGER NOT NULL, removed INTEGER NOT NULL,
  partial INTEGER NOT NULL, attrs TEXT
)"""

UPSERT = """
INSERT INTO obj (uri, seq, version, removed, partial, attrs) VALUES (:uri, :seq, :version, :removed, :partial, :attrs)
ON CONFLICT(uri) DO UPDATE SET
  version = excluded.version, removed = excluded.removed, partial = excluded.partial,
  attrs = CASE WHEN :keep_attrs THEN obj.attrs ELSE excluded.attrs END
WHERE excluded.version > obj.version
   OR (excluded.version = obj.version AND (
        (excluded.removed = 1 AND obj.removed = 0)
     OR (obj.partial = 1 AND excluded.partial = 0 AND excluded.removed = 0)))
"""


def main():
    src, dst = os.environ.get("LCKIT_EVENTS_FILE"), os.environ.get("LCKIT_VIEW_FILE")
    if not src or not dst:
        sys.exit("error: LCKIT_EVENTS_FILE and LCKIT_VIEW_FILE must be set")
    tenant = os.environ.get("LCKIT_TENANT")
    db = sqlite3.connect(":memory:")
    db.execute(SCHEMA)
    skipped = 0
    with open(src, encoding="utf-8") as fh:
        for seq, line in enumerate(fh):
            if not line.strip():
                continue
            try:
                m = json.loads(line)
            except ValueError:
                print("bad line %d" % (seq + 1), file=sys.stderr)
                continue
            h, p = m.get("headers") or {}, m.get("payload") or {}
            if tenant and h.get("tenantId") and h["tenantId"] != tenant:
                continue
            etype = h.get("eventType") or p.get("type")
            obj = p.get("object") if isinstance(p.get("object"), dict) else None
            uri = h.get("sourceObjectUri") or p.get("uri") or (obj or {}).get("uri")
            if not uri or etype not in REMOVED + KEPT:
                continue
            version = h.get("objectVersion")
            if isinstance(version, str) and version.strip().isdigit():
                version = int(version)
            if not isinstance(version, int) or isinstance(version, bool):
                skipped += 1  # cannot be ordered without a version: not loaded
                continue
            removed = etype in REMOVED
            fallback = p.get("exceededQueueSizeLimit") is True
            partial = not removed and (fallback or (obj is None and p.get("deltas") is not None))
            full = not removed and not fallback and obj is not None
            db.execute(UPSERT, {
                "uri": uri, "seq": seq, "version": version, "removed": int(removed), "partial": int(partial),
                "attrs": json.dumps(obj["attributes"]) if full and "attributes" in obj else None,
                "keep_attrs": int(full and "attributes" not in obj),
            })
    with open(dst, "w", encoding="utf-8") as out:
        for uri, version, removed, partial, attrs in db.execute("SELECT uri, version, removed, partial, attrs FROM obj ORDER BY seq"):
            row = {"uri": uri, "removed": bool(removed), "objectVersion": version}
            if not removed and not partial and attrs is not None:
                row["attributes"] = json.loads(attrs)
            out.write(json.dumps(row) + "\n")
    print("loaded=%d skipped_without_version=%d" % (db.execute("SELECT COUNT(*) FROM obj").fetchone()[0], skipped))


if __name__ == "__main__":
    main()
