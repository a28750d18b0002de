#!/usr/bin/env python3
"""Master-data replica for a reporting warehouse. One Consumer object owns the stream
reader, the per-object event store and the materialisation."""
import json, os, signal, sys, time


class Consumer:
    REMOVE = ("ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE", "RELATIONSHIP_REMOVED",
              "RELATIONSHIP_REMOVED_GDPR", "RELATION_LOST_MERGE", "INTERACTION_REMOVED",
              "CHANGE_REQUEST_REMOVED", "GROUP_REMOVED")
    UPSERT = ("ENTITY_CREATED", "ENTITY_CHANGED", "RELATIONSHIP_CREATED", "RELATIONSHIP_CHANGED",
              "GROUP_CREATED", "GROUP_CHANGED", "INTERACTION_CREATED", "INTERACTION_CHANGED",
              "ENTITIES_SPLITTED", "ENTITIES_MATCHES_CHANGED", "RELATIONSHIP_MERGED",
              "ENTITY_BUSINESS_PROCESS_CHANGED", "CHANGE_REQUEST_CREATED", "CHANGE_REQUEST_CHANGED")

    def __init__(self, src, dst, expected):
        self.src, self.dst, self.expected = src, dst, expected
        self.store = {}     # uri -> {"versioned": {ver: (type, payload)}, "plain": [(type, payload)]}
        self.read = 0
        self.closed = False

    def accept(self, line):
        try:
            msg = json.loads(line)
        except ValueError:
            return
        if not isinstance(msg, dict):
            return
        headers = msg.get("headers") or {}
        payload = msg.get("payload") if isinstance(msg.get("payload"), dict) else {}
        etype = headers.get("eventType") or payload.get("type")
        if etype not in self.REMOVE and etype not in self.UPSERT:
            return
        uri = headers.get("sourceObjectUri") or payload.get("uri") or (payload.get("object") or {}).get("uri")
        if not uri:
            return
        slot = self.store.setdefault(uri, {"versioned": {}, "plain": []})
        ver = headers.get("objectVersion")
        if ver is None:
            slot["plain"].append((etype, payload))
        else:
            slot["versioned"].setdefault(int(ver), (etype, payload))

    @staticmethod
    def apply_delta(attrs, payload):
        d = payload.get("deltas")
        if isinstance(d, dict) and isinstance(d.get("deltaCollection"), dict):
            d = d["deltaCollection"]
        for item in (d.get("delta") or []) if isinstance(d, dict) and isinstance(d.get("delta"), list) else []:
            if not isinstance(item, dict) or not isinstance(item.get("attributeType"), str):
                continue
            name = item["attributeType"].rpartition("/")[2]
            values = attrs.get(name, [])
            old = item.get("oldValue") if isinstance(item.get("oldValue"), dict) else {}
            new = item.get("newValue")
            out, placed = [], False
            for v in values:
                vid = v.get("id") if isinstance(v, dict) else None
                if vid is not None and vid == old.get("id"):
                    if item.get("type") != "ATTRIBUTE_REMOVED" and new is not None:
                        out.append(new)
                        placed = True
                elif isinstance(new, dict) and vid is not None and vid == new.get("id"):
                    old_held = old.get("id") in [x.get("id") for x in values if isinstance(x, dict)]
                    if not placed and not old_held and item.get("type") != "ATTRIBUTE_REMOVED":
                        out.append(new)
                        placed = True
                else:
                    out.append(v)
            if not placed and item.get("type") != "ATTRIBUTE_REMOVED" and new is not None:
                out.append(new)
            if out:
                attrs[name] = out
            else:
                attrs.pop(name, None)

    def view_of(self, slot):
        steps = [(v, t, p) for v, (t, p) in sorted(slot["versioned"].items())] + [(None, t, p) for t, p in slot["plain"]]
        state = {"removed": False}
        attrs = None
        for ver, etype, payload in steps:
            if ver is not None:
                state["objectVersion"] = ver
            state["removed"] = etype in self.REMOVE
            state["lastEventType"] = etype
            if isinstance(payload.get("object"), dict):
                if isinstance(payload["object"].get("attributes"), dict):
                    attrs = payload["object"]["attributes"]
            elif "deltas" in payload and not payload.get("exceededQueueSizeLimit"):
                attrs = dict(attrs or {})
                self.apply_delta(attrs, payload)
            if etype == "ENTITY_REMOVED_GDPR":
                attrs = None
        if attrs is not None:
            state["attributes"] = attrs
        return state

    def close(self, *_):
        if self.closed:
            return
        self.closed = True
        with open(self.dst, "w") as f:
            for uri, slot in self.store.items():
                f.write(json.dumps(dict(uri=uri, **self.view_of(slot))) + "\n")
        sys.exit(0)

    def run(self):
        deadline = time.time() + 40
        offset, partial = 0, ""
        while self.read < self.expected and time.time() < deadline:
            try:
                with open(self.src) as f:
                    f.seek(offset)
                    partial += f.read()
                    offset = f.tell()
            except OSError:
                pass
            *lines, partial = partial.split("\n")
            for line in filter(str.strip, lines):
                self.read += 1
                self.accept(line)
            if self.read < self.expected:
                time.sleep(0.1)
        if partial.strip():
            self.accept(partial)
        self.close()


c = Consumer(os.environ["LCKIT_EVENTS_FILE"], os.environ["LCKIT_VIEW_FILE"], int(os.environ.get("LCKIT_MESSAGES") or 0))
signal.signal(signal.SIGTERM, c.close)
c.run()
