#!/usr/bin/env python3
# Privacy-aware customer-360 cache. Keeps every object's timeline (bisect-sorted by objectVersion)
# and honours GDPR erasure: once an entity is erased, nothing more of it is kept.
import bisect
import json
import os
import signal
import sys
import time

CFG = {
    "tenant": os.environ.get("LCKIT_TENANT", ""),
    "events": os.environ.get("LCKIT_EVENTS_FILE", ""),
    "view": os.environ.get("LCKIT_VIEW_FILE", ""),
    "count": int(os.environ.get("LCKIT_MESSAGES", "0") or "0"),
}
DELETES = ["ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE", "RELATIONSHIP_REMOVED",
           "RELATIONSHIP_REMOVED_GDPR", "RELATION_LOST_MERGE", "INTERACTION_REMOVED", "CHANGE_REQUEST_REMOVED"]
UPSERTS = ["ENTITY_CREATED", "ENTITY_CHANGED", "RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED",
           "INTERACTION_CREATED", "INTERACTION_CHANGED", "CHANGE_REQUEST_CREATED", "CHANGE_REQUEST_CHANGED",
           "ENTITIES_SPLITTED", "ENTITIES_MATCHES_CHANGED", "RELATIONSHIP_MERGED", "ENTITY_BUSINESS_PROCESS_CHANGED"]
ERASURES = ("ENTITY_REMOVED_GDPR", "RELATIONSHIP_REMOVED_GDPR")

timelines = {}   # uri -> {"keys": [sort keys], "events": [...], "seen": set()}
serial = [0]


def note(line):
    try:
        env = json.loads(line)
    except ValueError:
        return
    if not isinstance(env, dict):
        return
    hd = env.get("headers") if isinstance(env.get("headers"), dict) else {}
    body = env.get("payload") if isinstance(env.get("payload"), dict) else {}
    if CFG["tenant"] and hd.get("tenantId", CFG["tenant"]) != CFG["tenant"]:
        return
    kind = hd.get("eventType") or body.get("type")
    if kind not in DELETES and kind not in UPSERTS:
        return
    uri = hd.get("sourceObjectUri") or body.get("uri") or (body.get("object") or {}).get("uri")
    if not uri:
        return
    ver = hd.get("objectVersion")
    ver = ver if isinstance(ver, int) and not isinstance(ver, bool) else None
    tl = timelines.setdefault(uri, {"keys": [], "events": [], "seen": set()})
    ident = ("v", ver) if ver is not None else ("c", kind, json.dumps(body, sort_keys=True))
    if ident in tl["seen"]:
        return
    tl["seen"].add(ident)
    serial[0] += 1
    key = (ver if ver is not None else 0, serial[0])
    i = bisect.bisect(tl["keys"], key)
    tl["keys"].insert(i, key)
    tl["events"].insert(i, (ver, kind, body))


def merge_deltas(uri, attrs, deltas):
    if not isinstance(deltas, dict):
        return attrs
    box = deltas["deltaCollection"] if isinstance(deltas.get("deltaCollection"), dict) else deltas
    for ch in box.get("delta") or []:
        if not isinstance(ch, dict) or "/attributes/" not in str(ch.get("attributeType", "")):
            continue
        nm = ch["attributeType"].split("/attributes/")[1].split("/")[0]
        attrs = {} if attrs is None else attrs
        lst = list(attrs.get(nm, []))
        old = ch.get("oldValue")
        if isinstance(old, dict):
            hit = [k for k, x in enumerate(lst) if str(x.get("uri", "")).endswith("/" + str(old.get("id")))]
            if not hit:
                hit = [k for k, x in enumerate(lst) if x.get("value") == old.get("value")][:1]
            lst = [x for k, x in enumerate(lst) if k not in hit]
        new = ch.get("newValue")
        if ch.get("type") != "ATTRIBUTE_REMOVED" and isinstance(new, dict):
            el = {"type": ch["attributeType"]}
            for k, v in new.items():
                if k not in ("id", "sources"):
                    el[k] = v
            el["uri"] = uri + "/attributes/" + nm + "/" + str(new.get("id"))
            lst = [x for x in lst if x.get("uri") != el["uri"]]
            lst.append(el)
        if lst:
            attrs[nm] = lst
        else:
            attrs.pop(nm, None)
    return attrs


def project(uri, tl):
    out = {"uri": uri, "removed": False}
    attrs = None
    erased = False
    for ver, kind, body in tl["events"]:
        if erased:
            break                     # erased objects are never brought back into the cache
        if ver is not None:
            out["objectVersion"] = ver
        out["removed"] = kind in DELETES
        if kind in ERASURES:
            erased = True
            attrs = None
            continue
        if kind.endswith("_CREATED"):
            attrs = None
        obj = body.get("object")
        if isinstance(obj, dict) and isinstance(obj.get("attributes"), dict):
            attrs = json.loads(json.dumps(obj["attributes"]))
        else:
            attrs = merge_deltas(uri, attrs, body.get("deltas"))
    if erased:
        out["erased"] = True
    if attrs is not None and not out["removed"]:
        out["attributes"] = attrs
    return out


def finish(*_):
    with open(CFG["view"], "w", encoding="utf-8") as f:
        for uri, tl in timelines.items():
            f.write(json.dumps(project(uri, tl)) + "\n")
    sys.exit(0)


signal.signal(signal.SIGTERM, finish)
deadline = time.time() + 40
taken = 0
pos = 0
pending = ""
while True:
    try:
        with open(CFG["events"], encoding="utf-8") as f:
            f.seek(pos)
            pending += f.read()
            pos = f.tell()
    except OSError:
        pass
    if "\n" in pending:
        chunk, pending = pending.rsplit("\n", 1)
        for line in chunk.split("\n"):
            if line.strip():
                taken += 1
                note(line)
    if CFG["count"] <= 0 or taken >= CFG["count"] or time.time() > deadline:
        break
    time.sleep(0.05)
if pending.strip():
    note(pending)
finish()
