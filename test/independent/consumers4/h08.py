"""Customer-360 archive (team "Customer Data").

Keeps, per tenant object, the state of its latest change plus a short history of
(objectVersion, eventType) pairs. Removed objects keep the attributes their removal snapshot
carries (if it carries any). A GDPR erasure marks the entity erased and trims its history to the
creation and erasure entries; the last values stay on the row for the erasure audit.
Every message is held per object and folded in objectVersion order when the view is written.
"""

import json
import os
import signal
import sys
import time

sys.setrecursionlimit(10000)

REMOVALS = {
    "ENTITY_REMOVED",
    "ENTITY_REMOVED_GDPR",
    "ENTITY_LOST_MERGE",
    "RELATIONSHIP_REMOVED",
    "RELATIONSHIP_REMOVED_GDPR",
    "RELATION_LOST_MERGE",
    "INTERACTION_REMOVED",
    "CHANGE_REQUEST_REMOVED",
    "GROUP_REMOVED",
}
CHANGES = {
    "ENTITY_CREATED",
    "ENTITY_CHANGED",
    "RELATIONSHIP_CREATED",
    "RELATIONSHIP_CHANGED",
    "RELATIONSHIP_MERGED",
    "INTERACTION_CREATED",
    "INTERACTION_CHANGED",
    "ENTITIES_SPLITTED",
    "ENTITIES_MATCHES_CHANGED",
    "ENTITY_BUSINESS_PROCESS_CHANGED",
    "CHANGE_REQUEST_CREATED",
    "CHANGE_REQUEST_CHANGED",
    "GROUP_CREATED",
    "GROUP_CHANGED",
}
GDPR_KEPT = {"ENTITY_CREATED", "ENTITY_REMOVED_GDPR"}

TENANT = os.environ.get("LCKIT_TENANT", "")
archive = {}  # uri -> {"versioned": {version: rec}, "plain": [rec], "seen": set()}
counter = [0]
done = [False]


class Unknown(Exception):
    """The attributes after these deltas cannot be known."""


def canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def version_of(headers):
    v = headers.get("objectVersion")
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return v
    if isinstance(v, str):
        try:
            return float(v) if "." in v else int(v)
        except ValueError:
            return None
    return None


def kind_of(event_type, payload):
    if isinstance(payload.get("object"), dict):
        return "snapshot"
    if payload.get("deltas") is not None:
        return "delta"
    if payload.get("exceededQueueSizeLimit") is True:
        return "fallback"
    if event_type.startswith("CHANGE_REQUEST_"):
        return "bare"
    return "fallback"


def take(line):
    if not line.strip():
        return
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return
    if not isinstance(message, dict):
        return
    headers = message.get("headers") if isinstance(message.get("headers"), dict) else {}
    payload = message.get("payload")
    if isinstance(payload, str):
        try:
            payload = json.loads(payload)
        except ValueError:
            return
    if not isinstance(payload, dict):
        return
    tenant = headers.get("tenantId")
    if TENANT and isinstance(tenant, str) and tenant != TENANT:
        return
    event_type = headers.get("eventType") or payload.get("type")
    obj = payload.get("object") if isinstance(payload.get("object"), dict) else {}
    uri = headers.get("sourceObjectUri") or payload.get("uri") or obj.get("uri")
    if not isinstance(event_type, str) or not isinstance(uri, str):
        return
    if event_type not in REMOVALS and event_type not in CHANGES:
        return  # unknown or unsupported types change nothing we keep
    slot = archive.setdefault(uri, {"versioned": {}, "plain": [], "seen": set()})
    counter[0] += 1
    rec = {
        "type": event_type,
        "version": version_of(headers),
        "kind": kind_of(event_type, payload),
        "payload": payload,
        "arrival": counter[0],
    }
    if rec["version"] is None:
        key = canonical([event_type, payload])
        if key in slot["seen"]:
            return
        slot["seen"].add(key)
        slot["plain"].append(rec)
        return
    held = slot["versioned"].get(rec["version"])
    if held is None or (held["kind"] == "fallback" and rec["kind"] != "fallback"):
        slot["versioned"][rec["version"]] = rec


def delta_items(deltas):
    if isinstance(deltas, list):
        return deltas
    if not isinstance(deltas, dict):
        raise Unknown()
    if isinstance(deltas.get("delta"), list):
        return deltas["delta"]
    coll = deltas.get("deltaCollection")
    if isinstance(coll, dict) and isinstance(coll.get("delta"), list):
        return coll["delta"]
    raise Unknown()


def attr_name(attribute_type):
    if not isinstance(attribute_type, str):
        raise Unknown()
    parts = attribute_type.split("/attributes/")
    if len(parts) != 2 or not parts[1] or "/" in parts[1]:
        raise Unknown()
    return parts[1]


def value_id(value):
    if not isinstance(value, dict):
        return None
    if value.get("id") is not None:
        return ("id", value["id"])
    if isinstance(value.get("uri"), str):
        return ("id", value["uri"].rsplit("/", 1)[-1])
    return ("value", canonical(value.get("value")))


def position(values, wanted):
    want = value_id(wanted)
    if want is None:
        return -1
    for i, v in enumerate(values):
        if value_id(v) == want:
            return i
    return -1


def apply_deltas(attributes, items):
    attrs = {k: list(v) for k, v in attributes.items()}
    for item in items:
        if not isinstance(item, dict):
            raise Unknown()
        name = attr_name(item.get("attributeType"))
        values = attrs.get(name, [])
        kind = item.get("type")
        new = item.get("newValue")
        stored = dict(new, type=item["attributeType"]) if isinstance(new, dict) else None
        if kind == "ATTRIBUTE_ADDED":
            if stored is None:
                raise Unknown()
            at = position(values, new)
            if at >= 0:
                values[at] = stored
            else:
                values.append(stored)
        elif kind == "ATTRIBUTE_CHANGED":
            if stored is None:
                raise Unknown()
            at = position(values, item.get("oldValue"))
            if at < 0:
                at = position(values, new)
            if at < 0:
                raise Unknown()
            values[at] = stored
        elif kind == "ATTRIBUTE_REMOVED":
            at = position(values, item.get("oldValue"))
            if at < 0:
                raise Unknown()
            del values[at]
        else:
            raise Unknown()
        if values:
            attrs[name] = values
        else:
            attrs.pop(name, None)
    return attrs


def fold(slot):
    records = list(slot["versioned"].values())
    if slot["plain"]:
        records = sorted(records + slot["plain"], key=lambda r: r["arrival"])
    else:
        records.sort(key=lambda r: r["version"])
    state = None
    history = []
    for rec in records:
        t = rec["type"]
        if state and state["gdpr"] and t not in GDPR_KEPT:
            continue
        history.append([rec["version"], t])
        payload = rec["payload"]
        if t in REMOVALS:
            last_values = state.get("attributes") if state else None
            state = {"removed": True, "gdpr": t == "ENTITY_REMOVED_GDPR", "version": rec["version"]}
            if state["gdpr"]:
                history = [h for h in history if h[1] in GDPR_KEPT]
                if last_values is not None:
                    state["attributes"] = last_values  # kept for the erasure audit
            elif rec["kind"] == "snapshot" and isinstance(payload["object"].get("attributes"), dict):
                state["attributes"] = payload["object"]["attributes"]
            continue
        before = state.get("attributes") if state and not state["removed"] else None
        state = {"removed": False, "gdpr": False, "version": rec["version"], "known": True}
        if rec["kind"] == "snapshot":
            carried = payload["object"].get("attributes")
            if isinstance(carried, dict):
                state["attributes"] = carried
        elif rec["kind"] == "delta":
            base = {} if t.endswith("_CREATED") else before
            try:
                if base is None:
                    raise Unknown()
                state["attributes"] = apply_deltas(base, delta_items(payload["deltas"]))
            except Unknown:
                state["known"] = False
        elif rec["kind"] == "fallback":
            state["known"] = False
    return state, history


def write_view():
    if done[0]:
        return
    done[0] = True
    out = []
    for uri, slot in archive.items():
        state, history = fold(slot)
        if state is None:
            continue
        line = {"uri": uri, "removed": state["removed"]}
        known = state["removed"] or state.get("known", True)
        if known and state["version"] is not None:
            line["objectVersion"] = state["version"]
        if known and "attributes" in state:
            line["attributes"] = state["attributes"]
        line["history"] = history
        if state["gdpr"]:
            line["erased"] = True
        out.append(json.dumps(line, separators=(",", ":")))
    with open(os.environ["LCKIT_VIEW_FILE"], "w", encoding="utf-8") as f:
        f.write("".join(s + "\n" for s in out))


def on_term(signum, frame):
    write_view()
    os._exit(0)


def follow(path, expected, handle):
    """Reads the stream file. When it holds fewer lines than LCKIT_MESSAGES it may still be
    being written: keep reading until the count is reached, a deadline passes or SIGTERM."""
    deadline = time.monotonic() + 40
    count = 0
    pending = b""
    stream = sys.stdin.buffer if path in ("", "-") else open(path, "rb")
    with stream:
        while True:
            chunk = stream.read1(1 << 20) if path in ("", "-") else stream.read(1 << 20)
            if chunk:
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for raw in lines:
                    if raw.strip():
                        count += 1
                        handle(raw.decode("utf-8", "replace"))
                continue
            seen = count + (1 if pending.strip() else 0)
            if not expected or seen >= expected or time.monotonic() > deadline:
                break
            time.sleep(0.05)
    if pending.strip():
        handle(pending.decode("utf-8", "replace"))


def main():
    signal.signal(signal.SIGTERM, on_term)
    try:
        expected = int(os.environ.get("LCKIT_MESSAGES", "0"))
    except ValueError:
        expected = 0
    follow(os.environ.get("LCKIT_EVENTS_FILE", "-"), expected, take)
    write_view()
    return 0


if __name__ == "__main__":
    sys.exit(main())
