#!/usr/bin/env python3
"""Customer-support lookup store (support tooling team). Python 3.11 stdlib only.

Loads the tenant's event stream into an in-memory SQLite store (one row per object, upserted under a
version guard) and writes the latest state of every object as the view file.

Choices where the interface leaves room: the state lives in SQLite and the guard is one SQL upsert;
exact re-sends are recognised by a SHA-1 primary key over the message in canonical form; messages
without objectVersion are applied in arrival order; the view is written by uri and carries the input
line of the message that set the state (seq).
"""

import hashlib
import sqlite3

import json
import os
import sys

JOB = "f12"

IN = os.environ.get("LCKIT_EVENTS_FILE")
OUT = os.environ.get("LCKIT_VIEW_FILE")
TENANT = os.environ.get("LCKIT_TENANT")

# what each documented (and supported) event type does to the object named by sourceObjectUri
REMOVES = {
    "ENTITY_REMOVED",
    "ENTITY_REMOVED_GDPR",
    "ENTITY_LOST_MERGE",
    "RELATIONSHIP_REMOVED",
    "RELATIONSHIP_REMOVED_GDPR",
    "RELATION_LOST_MERGE",
    "INTERACTION_REMOVED",
    "CHANGE_REQUEST_REMOVED",
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
    "CHANGE_REQUEST_CREATED",
    "CHANGE_REQUEST_CHANGED",
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


SCHEMA = """
CREATE TABLE seen (digest TEXT PRIMARY KEY);
CREATE TABLE object (
  uri TEXT PRIMARY KEY,
  version REAL,
  rank INTEGER NOT NULL,
  removed INTEGER NOT NULL,
  attributes TEXT,
  seq INTEGER NOT NULL
);
"""

# a message replaces the held state unless both carry a version and the held one is later
# (or the same version with a message that says more: removal > snapshot > partial message);
# attributes: NULL when removed or when the new state came without content, unchanged when the
# snapshot's object left them out (filtered), else the new ones
UPSERT = """
INSERT INTO object (uri, version, rank, removed, attributes, seq)
VALUES (:uri, :version, :rank, :removed, :attributes, :seq)
ON CONFLICT (uri) DO UPDATE SET
  version = COALESCE(excluded.version, object.version),
  rank = excluded.rank,
  removed = excluded.removed,
  attributes = CASE
    WHEN excluded.removed = 1 OR excluded.rank = 0 THEN NULL
    WHEN :keep = 1 THEN object.attributes
    ELSE excluded.attributes END,
  seq = excluded.seq
WHERE excluded.version IS NULL OR object.version IS NULL
  OR excluded.version > object.version
  OR (excluded.version = object.version AND excluded.rank >= object.rank)
"""


def load(db, msg, seq):
    if not isinstance(msg, dict):
        return
    h, p = as_dict(msg.get("headers")), as_dict(msg.get("payload"))
    if TENANT and "tenantId" in h and h["tenantId"] != TENANT:
        return  # another tenant's stream
    obj = p.get("object") if isinstance(p.get("object"), dict) else None
    uri = h.get("sourceObjectUri") or p.get("uri") or (obj or {}).get("uri")
    kind = h.get("eventType") or p.get("type")
    removes = kind in REMOVES
    if not uri or (not removes and kind not in KEEPS):
        return  # no object named, or an unsupported/unknown type
    digest = hashlib.sha1(canonical(msg).encode()).hexdigest()
    if db.execute("INSERT OR IGNORE INTO seen VALUES (?)", (digest,)).rowcount == 0:
        return  # exact re-send
    full = not removes and obj is not None and not p.get("exceededQueueSizeLimit")
    keep = full and "attributes" not in obj
    db.execute(
        UPSERT,
        {
            "uri": uri,
            "version": version_of(h),
            "rank": 2 if removes else 1 if full else 0,
            "removed": 1 if removes else 0,
            "attributes": json.dumps(obj["attributes"]) if full and not keep else None,
            "keep": 1 if keep else 0,
            "seq": seq,
        },
    )


def main():
    if not IN or not OUT:
        sys.exit(f"{JOB}: set LCKIT_EVENTS_FILE (input, one event per line) and LCKIT_VIEW_FILE (output)")
    db = sqlite3.connect(":memory:")
    db.executescript(SCHEMA)
    with open(IN, encoding="utf-8") as source:
        for number, line in enumerate(source, 1):
            if not line.strip():
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                print(f"{JOB}: line {number} is not JSON, skipped", file=sys.stderr)
                continue
            load(db, msg, number)
    with open(OUT, "w", encoding="utf-8") as sink:
        for uri, version, removed, attributes, seq in db.execute("SELECT uri, version, removed, attributes, seq FROM object ORDER BY uri"):
            row = {"uri": uri, "removed": bool(removed), "seq": seq}
            if version is not None:
                row["objectVersion"] = int(version) if float(version).is_integer() else version
            if not removed and attributes is not None:
                row["attributes"] = json.loads(attributes)
            sink.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
