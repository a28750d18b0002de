#!/usr/bin/env python3
"""Golden-record mirror for a marketing platform.

Each object of the tenant becomes a Record; its events are buffered by objectVersion and folded
in order when the view is written. Only the winner side of merges is kept as a live record."""
from dataclasses import dataclass, field
import json
import os
import signal
import sys
import time

END_OF_LIFE = {
    "ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE",
    "RELATIONSHIP_REMOVED", "RELATIONSHIP_REMOVED_GDPR", "RELATION_LOST_MERGE",
    "INTERACTION_REMOVED", "CHANGE_REQUEST_REMOVED",
}
BIRTH = {"ENTITY_CREATED", "RELATIONSHIP_CREATED", "INTERACTION_CREATED", "CHANGE_REQUEST_CREATED"}
MAINTENANCE = {
    "ENTITY_CHANGED", "RELATIONSHIP_CHANGED", "INTERACTION_CHANGED", "CHANGE_REQUEST_CHANGED",
    "ENTITIES_SPLITTED", "ENTITIES_MATCHES_CHANGED", "RELATIONSHIP_MERGED", "ENTITY_BUSINESS_PROCESS_CHANGED",
}


@dataclass
class Record:
    uri: str
    by_version: dict = field(default_factory=dict)
    unversioned: list = field(default_factory=list)
    digests: set = field(default_factory=set)

    def add(self, version, etype, payload):
        if version is not None:
            self.by_version.setdefault(version, (etype, payload))
            return
        digest = etype + json.dumps(payload, sort_keys=True)
        if digest not in self.digests:
            self.digests.add(digest)
            self.unversioned.append((etype, payload))

    def history(self):
        if self.by_version:
            return [(v,) + self.by_version[v] for v in sorted(self.by_version)]
        return [(None,) + e for e in self.unversioned]

    def view(self):
        out = {"uri": self.uri, "removed": False}
        retired = False
        attrs = None
        for version, etype, payload in self.history():
            if version is not None:
                out["objectVersion"] = version
            if etype in END_OF_LIFE:
                retired = True
            elif etype in BIRTH:
                retired = False          # a (re-)creation brings the record back
            if etype in BIRTH or etype.endswith("_GDPR"):
                attrs = None
            if etype.endswith("_GDPR"):
                continue
            obj = payload.get("object")
            if isinstance(obj, dict) and isinstance(obj.get("attributes"), dict):
                attrs = json.loads(json.dumps(obj["attributes"]))
                continue
            attrs = apply_deltas(self.uri, attrs, payload.get("deltas"))
        out["removed"] = retired
        out["mergedAway"] = retired
        if attrs is not None and not retired:
            out["attributes"] = attrs
        return out


def apply_deltas(uri, attrs, deltas):
    if not isinstance(deltas, dict):
        return attrs
    coll = deltas["deltaCollection"] if isinstance(deltas.get("deltaCollection"), dict) else deltas
    items = coll.get("delta") if isinstance(coll.get("delta"), list) else []
    for item in items:
        if not isinstance(item, dict) or "/attributes/" not in str(item.get("attributeType", "")):
            continue
        name = item["attributeType"].split("/attributes/")[1].split("/")[0]
        attrs = {} if attrs is None else attrs
        values = list(attrs.get(name, []))
        old, new = item.get("oldValue"), item.get("newValue")
        if isinstance(old, dict):
            idx = next((i for i, v in enumerate(values) if str(v.get("uri", "")).endswith("/%s" % old.get("id"))), None)
            if idx is None:
                idx = next((i for i, v in enumerate(values) if v.get("value") == old.get("value")), None)
            if idx is not None:
                del values[idx]
        if item.get("type") != "ATTRIBUTE_REMOVED" and isinstance(new, dict):
            element = {"type": item["attributeType"]}
            element.update({k: v for k, v in new.items() if k not in ("id", "sources")})
            element["uri"] = "%s/attributes/%s/%s" % (uri, name, new.get("id"))
            values = [v for v in values if v.get("uri") != element["uri"]] + [element]
        if values:
            attrs[name] = values
        else:
            attrs.pop(name, None)
    return attrs


class Mirror:
    def __init__(self, tenant):
        self.tenant = tenant
        self.records = {}

    def consume(self, line):
        try:
            message = json.loads(line)
        except ValueError:
            return
        if not isinstance(message, dict):
            return
        headers = message.get("headers") if isinstance(message.get("headers"), dict) else {}
        payload = message.get("payload") if isinstance(message.get("payload"), dict) else {}
        if self.tenant and "tenantId" in headers and headers["tenantId"] != self.tenant:
            return
        etype = headers.get("eventType") or payload.get("type")
        if etype not in END_OF_LIFE | BIRTH | MAINTENANCE:
            return
        uri = headers.get("sourceObjectUri") or payload.get("uri") or (payload.get("object") or {}).get("uri")
        if not uri:
            return
        version = headers.get("objectVersion")
        version = version if isinstance(version, int) and not isinstance(version, bool) else None
        self.records.setdefault(uri, Record(uri)).add(version, etype, payload)

    def write(self, path):
        with open(path, "w", encoding="utf-8") as fh:
            for record in self.records.values():
                fh.write(json.dumps(record.view()) + "\n")


def main():
    mirror = Mirror(os.environ.get("LCKIT_TENANT", ""))
    out_path = os.environ["LCKIT_VIEW_FILE"]

    def on_term(signum, frame):
        mirror.write(out_path)
        sys.exit(0)

    signal.signal(signal.SIGTERM, on_term)
    expected = int(os.environ.get("LCKIT_MESSAGES", "0") or 0)
    deadline = time.time() + 40.0
    done, offset, rest = 0, 0, ""
    while True:
        try:
            with open(os.environ["LCKIT_EVENTS_FILE"], encoding="utf-8") as fh:
                fh.seek(offset)
                rest += fh.read()
                offset = fh.tell()
        except OSError:
            pass
        lines = rest.split("\n")
        rest = lines.pop()
        for line in lines:
            if line.strip():
                done += 1
                mirror.consume(line)
        if not expected or done >= expected or time.time() >= deadline:
            break
        time.sleep(0.05)
    if rest.strip():
        mirror.consume(rest)
    mirror.write(out_path)
    sys.exit(0)


if __name__ == "__main__":
    main()
