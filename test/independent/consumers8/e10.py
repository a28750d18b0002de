#!/usr/bin/env python3
# Compliance archive: stores the latest known state of every object of the tenant.
# At-least-once delivery is handled by an idempotency filter in front of the store; the store
# keeps each object's accepted events and folds them in objectVersion order.
import json, os, signal, sys, time


class IdempotencyFilter:
    """Remembers which messages were already accepted."""

    def __init__(self):
        self._keys = set()

    def first_time(self, etype, version, payload):
        if version is not None:
            key = (etype, version)
        else:
            key = (etype, json.dumps(payload, sort_keys=True))
        if key in self._keys:
            return False
        self._keys.add(key)
        return True


class Store:
    GONE = ("ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE", "RELATIONSHIP_REMOVED",
            "RELATIONSHIP_REMOVED_GDPR", "RELATION_LOST_MERGE", "INTERACTION_REMOVED", "CHANGE_REQUEST_REMOVED")
    ALIVE = ("ENTITY_CREATED", "ENTITY_CHANGED", "RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED",
             "INTERACTION_CREATED", "INTERACTION_CHANGED", "CHANGE_REQUEST_CREATED", "CHANGE_REQUEST_CHANGED",
             "ENTITIES_SPLITTED", "ENTITIES_MATCHES_CHANGED", "RELATIONSHIP_MERGED",
             "ENTITY_BUSINESS_PROCESS_CHANGED")

    def __init__(self):
        self.items = {}
        self.n = 0

    def accept(self, uri, etype, version, payload):
        self.n += 1
        self.items.setdefault(uri, []).append({"v": version, "n": self.n, "t": etype, "p": payload})

    def state(self, uri):
        evs = self.items[uri]
        if all(e["v"] is not None for e in evs):
            evs = sorted(evs, key=lambda e: (e["v"], e["n"]))
        st = {"uri": uri, "removed": False}
        attrs = None
        for e in evs:
            if e["v"] is not None:
                st["objectVersion"] = e["v"]
            st["removed"] = e["t"] in self.GONE
            if e["t"].endswith("_CREATED") or e["t"].endswith("_GDPR"):
                attrs = None
            if e["t"].endswith("_GDPR"):
                continue
            obj = e["p"].get("object")
            if isinstance(obj, dict) and isinstance(obj.get("attributes"), dict):
                attrs = json.loads(json.dumps(obj["attributes"]))
            else:
                attrs = self.patch(uri, attrs, e["p"].get("deltas"))
        if attrs is not None and not st["removed"]:
            st["attributes"] = attrs
        st["archivedEvents"] = len(evs)
        return st

    @staticmethod
    def patch(uri, attrs, deltas):
        if not isinstance(deltas, dict):
            return attrs
        col = deltas.get("deltaCollection") if isinstance(deltas.get("deltaCollection"), dict) else deltas
        for d in col.get("delta") or []:
            at = d.get("attributeType") if isinstance(d, dict) else None
            if not isinstance(at, str) or "/attributes/" not in at:
                continue
            name = at.split("/attributes/")[1].split("/")[0]
            attrs = attrs if attrs is not None else {}
            vals = attrs.get(name, [])
            ov = d.get("oldValue")
            if isinstance(ov, dict):
                gone = [x for x in vals if str(x.get("uri", "")).endswith("/" + str(ov.get("id")))]
                if not gone:
                    gone = [x for x in vals if x.get("value") == ov.get("value")][:1]
                vals = [x for x in vals if not any(x is g for g in gone)]
            nv = d.get("newValue")
            if d.get("type") != "ATTRIBUTE_REMOVED" and isinstance(nv, dict):
                el = dict({"type": at}, **{k: v for k, v in nv.items() if k not in ("id", "sources")})
                el["uri"] = "{}/attributes/{}/{}".format(uri, name, nv.get("id"))
                vals = [x for x in vals if x.get("uri") != el["uri"]] + [el]
            if vals:
                attrs[name] = vals
            else:
                attrs.pop(name, None)
        return attrs


gate = IdempotencyFilter()
store = Store()
TENANT = os.environ.get("LCKIT_TENANT", "")


def on_message(raw):
    try:
        m = json.loads(raw)
    except ValueError:
        return
    hdr = m.get("headers") if isinstance(m, dict) and isinstance(m.get("headers"), dict) else {}
    pay = m.get("payload") if isinstance(m, dict) and isinstance(m.get("payload"), dict) else {}
    if TENANT and hdr.get("tenantId", TENANT) != TENANT:
        return
    etype = hdr.get("eventType") or pay.get("type")
    if etype not in Store.GONE and etype not in Store.ALIVE:
        return
    uri = hdr.get("sourceObjectUri") or pay.get("uri") or (pay.get("object") or {}).get("uri")
    if not uri:
        return
    ver = hdr.get("objectVersion")
    ver = ver if type(ver) is int else None
    if gate.first_time(etype, ver, pay):
        store.accept(uri, etype, ver, pay)


def write_and_exit(*_):
    with open(os.environ["LCKIT_VIEW_FILE"], "w") as f:
        f.writelines(json.dumps(store.state(u)) + "\n" for u in store.items)
    sys.exit(0)


signal.signal(signal.SIGTERM, write_and_exit)
target = int(os.environ.get("LCKIT_MESSAGES", "0") or 0)
t_stop = time.time() + 40
count, off, partial = 0, 0, b""
while True:
    try:
        with open(os.environ["LCKIT_EVENTS_FILE"], "rb") as f:
            f.seek(off)
            blob = f.read()
        off += len(blob)
        partial += blob
    except OSError:
        pass
    *full, partial = partial.split(b"\n")
    for raw in full:
        if raw.strip():
            count += 1
            on_message(raw.decode("utf-8", "replace"))
    if not target or count >= target or time.time() > t_stop:
        break
    time.sleep(0.05)
if partial.strip():
    on_message(partial.decode("utf-8", "replace"))
write_and_exit()
