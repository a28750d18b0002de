#!/usr/bin/env python3
"""An example event consumer for `lckit events consumer check` (Python 3; the standard library, and
Debian's AMQP clients for the broker deliveries).

It keeps a view of the tenant's objects from the CRUD events: per object its latest state by
objectVersion (never by arrival or updatedTime), removed after a removal event, nothing of its data after
a GDPR removal, the last known attributes after a large-object fallback or a snapshot whose object leaves
them out (the filtering fields did not list them), and after a deltas message the attributes it leaves (it
changes only those it lists); it skips event types it does not know and ignores fields it does not know.
It reads the stream from $LCKIT_EVENTS_FILE, or from stdin when that is unset, one {"headers", "payload"}
per line, takes Pub/Sub push requests or SNS notifications on
$LCKIT_PUSH_PORT, consumes the RabbitMQ queue $LCKIT_AMQP_QUEUE at $LCKIT_AMQP_URL (AMQP 0-9-1, with
Debian's python3-pika) or receives from the AMQP 1.0 address $LCKIT_AMQP1_ADDRESS at $LCKIT_AMQP1_URL
(with Debian's python3-qpid-proton), each client imported only for its delivery; it writes its view to
$LCKIT_VIEW_FILE when its input ends ($LCKIT_MESSAGES messages taken from a broker) or when it gets SIGTERM.
Run it checked (Debian's /usr/bin/python3, for which python3-pika and python3-qpid-proton are built):
  lckit events consumer check -- /usr/bin/python3 examples/consumers/view_consumer.py
  lckit events consumer check --delivery rabbitmq -- /usr/bin/python3 examples/consumers/view_consumer.py
The kit's tests also run it with one deliberate mistake (FAULT=<name>) to prove each consumer rule.
"""
import base64
import json
import os
import signal
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

FAULT = os.environ.get("FAULT", "")
VIEW_FILE = os.environ.get("LCKIT_VIEW_FILE")
# A destination may carry other tenants' messages too: the tenantId header says whose a message is.
TENANT = os.environ.get("LCKIT_TENANT")
if not VIEW_FILE:
    sys.exit("LCKIT_VIEW_FILE is not set; run me under lckit events consumer check")

# The event types of the document's table: anything else is skipped.
KNOWN = set(
    "ENTITY_CREATED ENTITY_REMOVED ENTITY_REMOVED_GDPR ENTITY_LOST_MERGE ENTITY_CHANGED "
    "RELATIONSHIP_CREATED RELATIONSHIP_REMOVED RELATIONSHIP_REMOVED_GDPR RELATIONSHIP_CHANGED "
    "GROUP_CREATED GROUP_REMOVED GROUP_CHANGED INTERACTION_CREATED INTERACTION_REMOVED "
    "INTERACTION_CHANGED ENTITIES_SPLITTED ENTITIES_MATCHES_CHANGED RELATION_LOST_MERGE "
    "RELATIONSHIP_MERGED ENTITY_BUSINESS_PROCESS_CHANGED CHANGE_REQUEST_CREATED "
    "CHANGE_REQUEST_CHANGED CHANGE_REQUEST_REMOVED".split()
)
REMOVALS = {
    "ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE", "RELATIONSHIP_REMOVED",
    "RELATIONSHIP_REMOVED_GDPR", "RELATION_LOST_MERGE", "INTERACTION_REMOVED",
    "CHANGE_REQUEST_REMOVED", "GROUP_REMOVED",
}
GDPR = {"ENTITY_REMOVED_GDPR", "RELATIONSHIP_REMOVED_GDPR"}
# The headers and payload fields the document defines: FAULT=rejects-unknown-fields drops a message that
# carries any other, as a consumer validating with a closed schema (additionalProperties: false) does.
HEADERS = {"tenantId", "eventType", "sourceObjectUri", "objectVersion"}
FIELDS = {"type", "object", "ovChanged", "exceededQueueSizeLimit", "uri", "deltas", "uris"}

view = {}  # uri -> {"uri", "removed", "objectVersion", "attributes", "updatedTime"}
stopped = False
# uri -> {"version", "attributes", "pending": {objectVersion: deltas}}: the attributes an object's deltas
# leave, folded in objectVersion order from the last state known whole (a creation, a snapshot; after a
# fallback none is known): a deltas message that arrives after a later one still changed the attributes
# it lists, which the later one did not list.
folds = {}
arrival = 0


def is_newer(current, version, time):
    """Whether a message of this version (and time) is newer than what the view holds."""
    if current is None or FAULT == "last-arrival":
        return True
    if FAULT == "updated-time":
        return time is None or current.get("updatedTime") is None or time > current["updatedTime"]
    if version is None or current.get("objectVersion") is None:
        return True  # no objectVersion: arrival order
    if FAULT == "resend-toggle":
        return version >= current["objectVersion"]
    return version > current["objectVersion"]


def apply(message):
    global stopped, arrival
    headers = message.get("headers") or {}
    payload = message.get("payload") or {}
    if TENANT and headers.get("tenantId") not in (None, TENANT) and FAULT != "all-tenants":
        return
    kind = headers.get("eventType", payload.get("type"))
    obj = payload.get("object") if isinstance(payload.get("object"), dict) else None
    uri = headers.get("sourceObjectUri") or payload.get("uri") or (obj or {}).get("uri")
    if kind not in KNOWN:
        if FAULT == "stops-on-unknown":
            stopped = True
        return
    if not isinstance(uri, str):
        return
    if FAULT == "rejects-unknown-fields" and not (headers.keys() <= HEADERS and payload.keys() <= FIELDS):
        return
    # The header may be a number or a string of digits (Pub/Sub and SNS carry text): compare numbers.
    raw = headers.get("objectVersion")
    version = None if raw is None or raw == "" else int(raw)
    deltas = payload.get("deltas") if isinstance(payload.get("deltas"), dict) else {}
    time = (obj or {}).get("updatedTime", deltas.get("timestamp"))
    current = view.get(uri)
    # Without objectVersion the deltas are folded in arrival order.
    arrival += 1
    order = arrival if version is None else version
    fallback = payload.get("exceededQueueSizeLimit") is True
    if not is_newer(current, version, time):
        # An older deltas message, late: its changes still count where no later one changed the attribute.
        late = "deltas" in payload and not fallback and kind not in REMOVALS
        if late and not current["removed"]:
            current["attributes"] = fold_deltas(uri, order, kind, payload["deltas"], None)
        fold = folds.get(uri)
        if fallback and kind not in REMOVALS and fold is not None and order > fold["version"]:
            # A fallback that arrives late: what it changed is not known, so neither is what the deltas
            # folded across it give.
            folds[uri] = {"version": order, "attributes": None, "pending": {}}
            if not current["removed"]:
                current["attributes"] = None
        return
    at = {"uri": uri, "objectVersion": version, "updatedTime": time}
    if FAULT == "fallback-as-removal" and fallback:
        view[uri] = {**at, "removed": True}
        return
    if kind in REMOVALS:
        folds.pop(uri, None)
        if FAULT == "ignores-removals":
            return
        if FAULT == "removal-as-change":
            known = None if current is None or current["removed"] else current.get("attributes")
            view[uri] = {**at, "removed": False, "attributes": known}
            return
        if FAULT == "resend-toggle" and version is not None and current and current.get("objectVersion") == version:
            view[uri] = {**current, "removed": not current["removed"]}
            return
        record = {**at, "removed": True}
        if FAULT == "gdpr-keeps-data" and kind in GDPR and current:
            record["attributes"] = current.get("attributes")
        view[uri] = record
        return
    known = None if current is None or current["removed"] else current.get("attributes")
    if fallback:
        # A large object sent without its object: keep what the view knew.
        attributes = {} if FAULT == "fallback-empty" else known
        # What it changed is not known: deltas after it are not folded into attributes that may be stale.
        folds[uri] = {"version": order, "attributes": None, "pending": {}}
    elif obj is not None:
        # The object holds only the fields JMSEventsFilteringFields lists: without attributes it says
        # nothing of them (a member filtered out is not removed), so keep what the view knew.
        given = "attributes" in obj or FAULT == "filtered-as-removed"
        attributes = (obj.get("attributes") or {}) if given else known
        folds[uri] = {"version": order, "attributes": attributes, "pending": {}}
    elif "deltas" in payload:
        if FAULT == "deltas-as-snapshot":
            attributes = apply_deltas({}, payload["deltas"])
        else:
            live = current is not None and not current["removed"]
            attributes = fold_deltas(uri, order, kind, payload["deltas"], known if live else {})
    else:
        attributes = known
    view[uri] = {**at, "removed": False, "attributes": attributes}


def fold_deltas(uri, order, kind, deltas, known):
    """The object's attributes after a deltas message of objectVersion `order`: a creation starts from
    none (at a first message of another type, from `known`); every deltas message since is applied in
    objectVersion order, each changing only the attributes it lists."""
    fold = folds.get(uri)
    if kind.endswith("_CREATED") and (fold is None or order - 0.5 > fold["version"]):
        # A creation that arrives late starts the fold again under the later deltas it already has.
        later = {v: d for v, d in (fold or {"pending": {}})["pending"].items() if v > order - 0.5}
        fold = folds[uri] = {"version": order - 0.5, "attributes": {}, "pending": later}
    elif fold is None:
        fold = folds[uri] = {"version": float("-inf"), "attributes": known, "pending": {}}
    if order > fold["version"]:
        fold["pending"][order] = deltas
    attributes = fold["attributes"]
    for v in sorted(fold["pending"]):
        if v > fold["version"]:
            attributes = apply_deltas(attributes, fold["pending"][v])
    return attributes


def delta_items(deltas):
    """The delta items of a deltas member: the document's delta message (deltaCollection.delta), its bare
    collection ({ovChanged, delta}) or a list; None for a structure the document does not show."""
    if isinstance(deltas, list):
        return deltas
    if isinstance(deltas, dict):
        collection = deltas.get("deltaCollection")
        if isinstance(collection, dict) and isinstance(collection.get("delta"), list):
            return collection["delta"]
        if isinstance(deltas.get("delta"), list):
            return deltas["delta"]
    return None


def same_value(a, b):
    """Two attribute values are one: by their value where both have one, else by their id."""
    if not isinstance(a, dict) or not isinstance(b, dict):
        return False
    if "value" in a and "value" in b:
        return json.dumps(a["value"], sort_keys=True) == json.dumps(b["value"], sort_keys=True)
    return a.get("id") is not None and a.get("id") == b.get("id")


def apply_deltas(attributes, deltas):
    """The attributes after a deltas message (the document: "Only changed attributes are listed"):
    ATTRIBUTE_CHANGED replaces its oldValue with its newValue, ATTRIBUTE_REMOVED removes its oldValue, an
    item with only a newValue adds it; every attribute it does not list stays. Keyed by the
    attributeType's last segment, as snapshots key them. None (not known) when the structure is not one
    of those, or the attributes before it were not known."""
    items = delta_items(deltas)
    if items is None or attributes is None:
        return None
    result = dict(attributes)
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("attributeType"), str):
            continue
        name = item["attributeType"].rsplit("/", 1)[-1]
        values = list(result.get(name) or [])
        if item.get("oldValue") is not None:
            for at, value in enumerate(values):
                if same_value(value, item["oldValue"]):
                    del values[at]
                    break
        if item.get("newValue") is not None and item.get("type") != "ATTRIBUTE_REMOVED":
            values.append(item["newValue"])
        if values:
            result[name] = values
        else:
            result.pop(name, None)
    return result


def write_view():
    with open(VIEW_FILE, "w", encoding="utf-8") as out:
        for record in view.values():
            line = {"uri": record["uri"], "removed": record["removed"]}
            if record.get("objectVersion") is not None:
                line["objectVersion"] = record["objectVersion"]
            if record.get("attributes") is not None:
                line["attributes"] = record["attributes"]
            out.write(json.dumps(line) + "\n")


def on_sigterm(_signum, _frame):
    write_view()
    sys.exit(0)


def from_push(body):
    """A push request: Pub/Sub's {message: {data, attributes}} or SNS's Notification."""
    if "message" in body:
        message = body["message"]
        data = base64.b64decode(message["data"]).decode("utf-8")
        return {"headers": dict(message.get("attributes") or {}), "payload": json.loads(data)}
    headers = {name: a["Value"] for name, a in (body.get("MessageAttributes") or {}).items()}
    return {"headers": headers, "payload": json.loads(body["Message"])}


class PushHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        length = int(self.headers.get("content-length", "0"))
        body = json.loads(self.rfile.read(length).decode("utf-8"))
        if not stopped:
            apply(from_push(body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *_args):
        pass


def client(module, package):
    """The AMQP client of one delivery, imported only when that delivery is chosen."""
    try:
        return __import__(module)
    except ImportError:
        sys.exit(
            f"the {os.environ.get('LCKIT_DELIVERY')} delivery needs Debian's {package}: "
            f"sudo apt-get install {package} (and run me with /usr/bin/python3)"
        )


def take(headers, body, state):
    """One message from a broker; after $LCKIT_MESSAGES of them the input has ended."""
    if isinstance(body, (bytes, memoryview)):
        body = bytes(body).decode("utf-8")
    # Header values that are text may come as bytes.
    headers = {str(k): v.decode("utf-8") if isinstance(v, bytes) else v for k, v in (headers or {}).items()}
    if not stopped:
        apply({"headers": headers, "payload": json.loads(body)})
    state["taken"] += 1
    return state["taken"] >= int(os.environ["LCKIT_MESSAGES"])


def consume_rabbitmq():
    pika = client("pika", "python3-pika")
    connection = pika.BlockingConnection(pika.URLParameters(os.environ["LCKIT_AMQP_URL"]))
    channel = connection.channel()
    channel.basic_qos(prefetch_count=100)
    state = {"taken": 0}

    def on_message(chan, method, properties, body):
        done = take(properties.headers, body, state)
        chan.basic_ack(method.delivery_tag)
        if done:
            chan.stop_consuming()

    channel.basic_consume(os.environ["LCKIT_AMQP_QUEUE"], on_message)
    channel.start_consuming()
    write_view()
    connection.close()


def consume_amqp1():
    client("proton", "python3-qpid-proton")
    from urllib.parse import unquote, urlsplit

    from proton.handlers import MessagingHandler
    from proton.reactor import Container

    url = urlsplit(os.environ["LCKIT_AMQP1_URL"])
    state = {"taken": 0}

    class Receive(MessagingHandler):
        def __init__(self):
            super().__init__(prefetch=100)

        def on_start(self, event):
            credentials = {}
            if url.username:
                credentials = {"user": unquote(url.username), "password": unquote(url.password or "")}
            connection = event.container.connect(
                f"amqp://{url.hostname}:{url.port or 5672}", allow_insecure_mechs=True, **credentials
            )
            event.container.create_receiver(connection, os.environ["LCKIT_AMQP1_ADDRESS"])

        def on_message(self, event):
            if take(event.message.properties, event.message.body, state):
                write_view()
                event.connection.close()

    Container(Receive()).run()


signal.signal(signal.SIGTERM, on_sigterm)
if os.environ.get("LCKIT_AMQP_URL"):
    consume_rabbitmq()
elif os.environ.get("LCKIT_AMQP1_URL"):
    consume_amqp1()
elif os.environ.get("LCKIT_PUSH_PORT"):
    HTTPServer(("127.0.0.1", int(os.environ["LCKIT_PUSH_PORT"])), PushHandler).serve_forever()
else:
    path = os.environ.get("LCKIT_EVENTS_FILE")
    source = open(path, encoding="utf-8") if path else sys.stdin
    for text in source:
        if text.strip():
            apply(json.loads(text))
            if stopped:
                break
    write_view()
