#!/usr/bin/python3
"""An independent AMQP 1.0 implementation for the kit's interop tests: Qpid Proton (Debian's
python3-qpid-proton; run with /usr/bin/python3).

  send URL ADDRESS [--string-body] [--annotations]
                                     NDJSON {"headers": {...}, "body": "..."} lines on stdin, sent in order:
                                     headers as application properties (or, with --annotations, as message
                                     annotations x-opt-NAME), body as a data section (or a string value);
                                     prints "sent N" when the broker accepted all
  receive URL ADDRESS COUNT SECONDS  prints up to COUNT messages as NDJSON {"headers", "body"}, then exits
  serve PORT                         a small broker on 127.0.0.1:PORT (SASL ANONYMOUS): a queue per
                                     address; a receiver asking for distribution-mode copy browses (the
                                     queue keeps its messages), any other receiver consumes; prints
                                     "listening" when ready and "stored N" for each address on SIGTERM
"""
import json
import signal
import sys

from proton import Message, symbol
from proton.handlers import MessagingHandler
from proton.reactor import Container


def decoded(value):
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, (symbol, str)):
        return str(value)
    return value


class Send(MessagingHandler):
    def __init__(self, url, address, lines, string_body, annotations):
        super().__init__()
        self.url, self.address, self.lines, self.string_body = url, address, lines, string_body
        self.annotations = annotations
        self.sent = self.confirmed = 0

    def on_start(self, event):
        connection = event.container.connect(self.url, allow_insecure_mechs=True)
        event.container.create_sender(connection, self.address)

    def on_sendable(self, event):
        while event.sender.credit and self.sent < len(self.lines):
            record = self.lines[self.sent]
            body = record["body"] if self.string_body else record["body"].encode("utf-8")
            if self.annotations:
                annotated = {symbol(f"x-opt-{k}"): v for k, v in record["headers"].items()}
                message = Message(body=body, annotations=annotated, content_type="application/json")
            else:
                message = Message(body=body, properties=record["headers"], content_type="application/json")
            if not self.string_body:
                message.inferred = True
            event.sender.send(message)
            self.sent += 1

    def on_accepted(self, event):
        self.confirmed += 1
        if self.confirmed == len(self.lines):
            print(f"sent {self.confirmed}", flush=True)
            event.connection.close()

    def on_rejected(self, event):
        print("rejected", file=sys.stderr, flush=True)
        sys.exit(1)


class Receive(MessagingHandler):
    def __init__(self, url, address, count, seconds):
        super().__init__()
        self.url, self.address, self.count, self.seconds = url, address, count, seconds
        self.received = 0

    def on_start(self, event):
        connection = event.container.connect(self.url, allow_insecure_mechs=True)
        event.container.create_receiver(connection, self.address)
        self.timer = event.container.schedule(self.seconds, self)
        self.connection = connection

    def on_timer_task(self, event):
        self.connection.close()

    def on_message(self, event):
        message = event.message
        body = message.body
        if isinstance(body, (bytes, memoryview)):
            body = bytes(body).decode("utf-8")
        headers = {str(k): decoded(v) for k, v in (message.properties or {}).items()}
        print(json.dumps({"headers": headers, "body": body}), flush=True)
        self.received += 1
        if self.received >= self.count:
            self.timer.cancel()
            event.connection.close()


class Serve(MessagingHandler):
    """A queue per address; browsing receivers read from a cursor of their own."""

    def __init__(self, port):
        super().__init__()
        self.port = port
        self.queues = {}
        self.consumers = {}
        self.browsers = {}

    def on_start(self, event):
        event.container.listen(f"127.0.0.1:{self.port}")
        print("listening", flush=True)

    def on_link_opening(self, event):
        link = event.link
        if link.is_sender:
            address = link.remote_source.address
            link.source.address = address
            if link.remote_source.distribution_mode == link.remote_source.DIST_MODE_COPY:
                link.source.distribution_mode = link.source.DIST_MODE_COPY
                self.browsers[link] = [address, 0]
            else:
                self.consumers.setdefault(address, []).append(link)
        else:
            link.target.address = link.remote_target.address

    def deliver(self):
        for link, cursor in self.browsers.items():
            queue = self.queues.get(cursor[0], [])
            while link.credit and cursor[1] < len(queue):
                link.send(queue[cursor[1]])
                cursor[1] += 1
        for address, links in self.consumers.items():
            queue = self.queues.get(address, [])
            for link in links:
                while link.credit and queue:
                    link.send(queue.pop(0))

    def on_sendable(self, event):
        self.deliver()

    def on_message(self, event):
        self.queues.setdefault(event.link.target.address, []).append(event.message)
        self.deliver()

    def forget(self, link):
        self.browsers.pop(link, None)
        for links in self.consumers.values():
            if link in links:
                links.remove(link)

    def on_link_closing(self, event):
        self.forget(event.link)

    def on_disconnected(self, event):
        for link in list(self.browsers) + [l for ls in self.consumers.values() for l in ls]:
            if link.connection == event.connection:
                self.forget(link)


def main():
    mode = sys.argv[1]
    if mode == "send":
        lines = [json.loads(line) for line in sys.stdin if line.strip()]
        Container(
            Send(sys.argv[2], sys.argv[3], lines, "--string-body" in sys.argv, "--annotations" in sys.argv)
        ).run()
    elif mode == "receive":
        Container(Receive(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]))).run()
    elif mode == "serve":
        handler = Serve(int(sys.argv[2]))

        def stop(*_):
            for address, queue in handler.queues.items():
                print(f"stored {address} {len(queue)}", flush=True)
            sys.exit(0)

        signal.signal(signal.SIGTERM, stop)
        Container(handler).run()
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
