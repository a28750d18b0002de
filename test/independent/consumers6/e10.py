#!/usr/bin/env python3
# Team "Sentinel": existence index for an access-control service. It only needs to know which objects of
# the tenant currently exist, so it keeps, per object, nothing but the newest objectVersion seen and the
# event type that came with it. No attributes are kept.
#
# Event types that create or change an object keep it; the team maps every other event type to "gone".
import json
import os
import signal
import sys
import time

KEEPS_OBJECT = frozenset({
    "ENTITY_CREATED", "ENTITY_CHANGED", "ENTITIES_SPLITTED", "ENTITIES_MATCHES_CHANGED",
    "ENTITY_BUSINESS_PROCESS_CHANGED",
    "RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED", "RELATIONSHIP_MERGED",
    "INTERACTION_CREATED", "INTERACTION_CHANGED",
    "CHANGE_REQUEST_CREATED", "CHANGE_REQUEST_CHANGED",
    "GROUP_CREATED", "GROUP_CHANGED",
})

index = {}          # uri -> [version, event type, arrival]
arrivals = [0]


def note(msg):
    arrivals[0] += 1
    headers = msg.get("headers")
    if not isinstance(headers, dict):
        headers = {}
    payload = msg.get("payload") if isinstance(msg.get("payload"), dict) else {}
    tenant = os.environ.get("LCKIT_TENANT")
    if tenant and headers.get("tenantId", tenant) != tenant:
        return
    event = headers.get("eventType") or payload.get("type")
    if not isinstance(event, str) or not event:
        return
    uri = headers.get("sourceObjectUri") or payload.get("uri") or (payload.get("object") or {}).get("uri")
    if not uri:
        return
    try:
        version = float(headers["objectVersion"])
    except (KeyError, TypeError, ValueError):
        version = None
    held = index.get(uri)
    if held is None:
        index[uri] = [version, event, arrivals[0]]
        return
    if version is None or held[0] is None or version > held[0]:
        index[uri] = [version if version is not None else held[0], event, arrivals[0]]


def write(*_):
    target = os.environ.get("LCKIT_VIEW_FILE", "view.ndjson")
    with open(target, "w") as out:
        for uri in sorted(index):
            version, event, _arrival = index[uri]
            row = {"uri": uri, "removed": event not in KEEPS_OBJECT, "lastEventType": event}
            out.write(json.dumps(row) + "\n")
    sys.exit(0)


signal.signal(signal.SIGTERM, write)


def lines_of(path, expected):
    started = time.time()
    done = 0
    position = 0
    pending = b""
    while True:
        try:
            with open(path, "rb") as fh:
                fh.seek(position)
                data = fh.read()
        except OSError:
            data = b""
        position += len(data)
        pending += data
        while True:
            cut = pending.find(b"\n")
            if cut < 0:
                break
            line, pending = pending[:cut], pending[cut + 1:]
            if line.strip():
                done += 1
                yield line
        if expected <= 0 or done >= expected or time.time() - started > 40:
            break
        time.sleep(0.1)
    if pending.strip():
        yield pending


if __name__ == "__main__":
    path = os.environ.get("LCKIT_EVENTS_FILE")
    try:
        count = int(os.environ.get("LCKIT_MESSAGES", "0"))
    except ValueError:
        count = 0
    if path:
        for raw in lines_of(path, count):
            try:
                msg = json.loads(raw)
            except ValueError:
                continue
            if isinstance(msg, dict):
                note(msg)
    write()
