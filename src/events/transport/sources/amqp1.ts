// Reads event messages from an AMQP 1.0 broker (Azure Service Bus, ActiveMQ Artemis, Qpid, Solace,
// RabbitMQ) with rhea, without taking anything from the deployment's own consumers:
// - browse (default): the receiver asks for distribution-mode "copy", so the broker hands out copies and
//   the queue keeps its messages. A broker that does not grant copy would hand over the messages
//   themselves: the source then detaches before it grants any credit (nothing is delivered) and says to
//   use an address of the kit's own.
// - own: the address is the kit's own (a Service Bus subscription made for the checker, a RabbitMQ
//   /exchange/X/KEY address, which gets a private queue per receiver, an Artemis multicast address), so
//   its messages are consumed and accepted.
// Application properties and message annotations become the headers; a body that is no JSON text is
// reported for its delivery. A lost connection: an own address is attached again with bounded backoff (notices
// disconnected, reconnected, gap); a browse ends with a notice (a new browse would start from the head).
// What was read is judged either way.
import type { Connection, Delivery, EventContext, Message, Receiver } from "rhea";
import {
  type Amqp1ConnectOptions,
  type Amqp1Endpoint,
  connectAmqp1,
  errorText,
  parseAmqp1Url,
} from "../amqp1-connection.ts";
import type { MessageSource, RawMessage, TransportNotice } from "../transport.ts";
import { BrokerStream, backoffOf } from "./broker-stream.ts";
import { SourceError } from "./file.ts";

export type Amqp1Mode = "browse" | "own";

export interface Amqp1SourceOptions extends Amqp1ConnectOptions {
  /** The queue, topic subscription or address; default: the URL's path. */
  address?: string;
  mode?: Amqp1Mode;
  maxMessages?: number;
  idleTimeoutMs?: number;
  durationMs?: number;
  /** Own address: reconnection after a loss, attempts and backoff (defaults: 30, 250 ms .. 5 s). Browsing
   *  never reconnects: a new browse would start from the head of the queue again. */
  reconnect?: { attempts?: number; initialDelayMs?: number; maxDelayMs?: number };
  /** Deliveries the broker may send ahead of the checker (default 2000, under rhea's session window of 2048). */
  credit?: number;
}

/** The document's headers, which a producer may also send as optional message annotations (x-opt-NAME). */
const documentHeaders = new Set(["tenantId", "eventType", "sourceObjectUri", "objectVersion"]);

function headerValue(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return value.toString("utf8");
  if (value instanceof Date) return value.getTime();
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map(headerValue);
  return value;
}

/** Message annotations, then application properties (they win): the headers as the checker sees them. */
export function amqp1Headers(message: Message): Record<string, unknown> {
  const headers: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(message.message_annotations ?? {})) {
    headers[name] = headerValue(value);
    const bare = name.startsWith("x-opt-") ? name.slice(6) : undefined;
    if (bare !== undefined && documentHeaders.has(bare)) headers[bare] = headerValue(value);
  }
  for (const [name, value] of Object.entries(message.application_properties ?? {}))
    headers[name] = headerValue(value);
  return headers;
}

/** The body as text: a data section (bytes) or a string value; anything else is described. */
export function amqp1Body(message: Message): { text: string } | { got: string } {
  const body = message.body as unknown;
  if (typeof body === "string") return { text: body };
  if (Buffer.isBuffer(body)) return { text: body.toString("utf8") };
  const section = body as { typecode?: number; content?: unknown; multiple?: boolean } | undefined;
  if (section && section.typecode === 0x75) {
    const content = section.content;
    if (Buffer.isBuffer(content)) return { text: content.toString("utf8") };
    if (Array.isArray(content) && content.every((part) => Buffer.isBuffer(part)))
      return { text: Buffer.concat(content as Buffer[]).toString("utf8") };
  }
  if (section && section.typecode === 0x76) return { got: "an AMQP sequence section" };
  if (body === undefined || body === null) return { got: "no body" };
  return { got: `an AMQP value of type ${Array.isArray(body) ? "list" : typeof body}` };
}

const iso = (at: number) => new Date(at).toISOString();

export async function openAmqp1Source(url: string, options: Amqp1SourceOptions = {}): Promise<MessageSource> {
  const endpoint = parseAmqp1Url(url);
  const address = options.address ?? endpoint.address;
  if (!address)
    throw new SourceError(
      "no AMQP 1.0 address: put the queue, TOPIC/Subscriptions/SUB or address in the URL's path " +
        "(amqp1s://host/QUEUE) or pass --address",
    );
  const source = new Amqp1Source(endpoint, address, options);
  await source.open();
  return source;
}

class Amqp1Source implements MessageSource {
  readonly description: string;
  private readonly mode: Amqp1Mode;
  private readonly credit: number;
  private readonly stream: BrokerStream;
  private connection: Connection | undefined;
  private receiver: Receiver | undefined;
  private received = 0;
  /** Set when the checker closes the connection itself: its close is no loss. */
  private releasing = false;

  constructor(
    private readonly endpoint: Amqp1Endpoint,
    private readonly address: string,
    private readonly options: Amqp1SourceOptions,
  ) {
    this.mode = options.mode ?? "browse";
    this.credit = options.credit ?? 2000;
    this.stream = new BrokerStream("an AMQP 1.0", options);
    this.description = `amqp1 ${endpoint.server} address "${address}" (${this.mode === "browse" ? "browsing" : "its own subscription"})`;
  }

  async open(): Promise<void> {
    const connection = await connectAmqp1(this.endpoint, this.options);
    try {
      if (this.mode === "browse") this.refuseFalseBrowsing(connection);
      const receiver = connection.open_receiver({
        source: {
          address: this.address,
          ...(this.mode === "browse" ? { distribution_mode: "copy" } : {}),
        },
        // Credit is granted by hand once the link is known to be safe, and then as the checker reads.
        credit_window: 0,
        autoaccept: false,
      });
      await new Promise<void>((resolve, reject) => {
        const refused = (context: EventContext) => reject(this.refusal(context.receiver?.error));
        receiver.once("receiver_open", () => {
          receiver.removeListener("receiver_close", refused);
          resolve();
        });
        receiver.once("receiver_close", refused);
        // RabbitMQ 3 ends the whole session when the address does not exist.
        connection.once("session_close", (context: EventContext) =>
          reject(this.refusal(context.session?.error)),
        );
        connection.once("disconnected", (context: EventContext) =>
          reject(
            new Error(`the connection closed while attaching: ${errorText(context.error ?? "disconnected")}`),
          ),
        );
      });
      // A broker that refuses an address may still answer the attach, with no source, then detach.
      const remote = (
        receiver as unknown as {
          remote?: { attach?: { source?: { address?: string; distribution_mode?: string } | null } };
        }
      ).remote?.attach?.source;
      if (remote === null || remote === undefined)
        throw this.refusal(new Error("the broker answered the attach without a source"));
      if (this.mode === "browse" && remote.distribution_mode !== "copy") {
        receiver.close();
        throw new SourceError(
          `the broker did not grant browsing (distribution-mode copy) on "${this.address}": reading it would take ` +
            "messages from their consumers, so the checker detached before anything was delivered. Read from an " +
            "address of the kit's own with --amqp1-mode own: RabbitMQ 3 /exchange/EXCHANGE/# (a private queue), " +
            "Service Bus TOPIC/Subscriptions/lckit (a subscription made for the checker), an Artemis multicast address",
        );
      }
      receiver.on("message", (context: EventContext) => this.onMessage(context));
      receiver.on("receiver_close", (context: EventContext) =>
        this.lost(
          connection,
          `the broker closed the link: ${errorText(context.receiver?.error ?? "no reason given")}`,
        ),
      );
      connection.on("disconnected", (context: EventContext) =>
        this.lost(
          connection,
          `lost the connection to ${this.endpoint.host}:${this.endpoint.port}: ${errorText(context.error ?? "disconnected")}`,
        ),
      );
      connection.on("connection_close", () => this.lost(connection, "the broker closed the connection"));
      this.connection = connection;
      this.receiver = receiver;
      this.stream.connected = true;
      this.stream.lastActivity = Date.now();
      // What waits here already counts against the window (after a reconnection).
      receiver.add_credit(Math.max(1, this.credit - this.stream.buffer.length));
    } catch (error) {
      connection.close();
      throw error;
    }
  }

  /**
   * RabbitMQ before 4 answers a copy request with "copy" and still hands over the messages themselves (seen
   * with 3.10): browsing is refused for it before anything is attached.
   */
  private refuseFalseBrowsing(connection: Connection): void {
    const properties = (
      connection as unknown as { remote?: { open?: { properties?: Record<string, unknown> } } }
    ).remote?.open?.properties;
    const product = String(properties?.product ?? "");
    const major = Number(/^(\d+)/.exec(String(properties?.version ?? ""))?.[1]);
    if (/rabbitmq/i.test(product) && major < 4)
      throw new SourceError(
        `RabbitMQ ${String(properties?.version)} cannot browse over AMQP 1.0 (it would hand over the messages ` +
          `themselves), so the checker did not attach to "${this.address}". Read a private queue of the kit's own: ` +
          "--amqp1-mode own with the address /exchange/EXCHANGE/# (or the amqp:// source, which binds one)",
      );
  }

  /** The broker's refusal of the address, as a sentence naming the fix. */
  private refusal(error: unknown): Error {
    const condition = (error as { condition?: string } | undefined)?.condition;
    const detail = errorText(error ?? "no reason given");
    if (condition === "amqp:not-found" || /not.?found|does not exist|no queue/i.test(detail))
      return new SourceError(
        `address "${this.address}" does not exist on ${this.endpoint.host}:${this.endpoint.port} (${detail}); ` +
          "give an existing queue, TOPIC/Subscriptions/SUB or address (RabbitMQ 3: /amq/queue/NAME or " +
          "/exchange/NAME/KEY). The checker never creates it",
      );
    if (condition === "amqp:unauthorized-access")
      return new SourceError(
        `not allowed to read "${this.address}" (${detail}); grant the user listen/read rights on it`,
      );
    return new Error(`the broker refused to attach to "${this.address}": ${detail}`);
  }

  private onMessage(context: EventContext): void {
    const message = context.message;
    const delivery = context.delivery as Delivery | undefined;
    // Own subscription: ours to consume. Browsing: a copy; it is released rather than accepted, so that a
    // broker that handed over the message itself after all gets it back.
    if (delivery && !(delivery as unknown as { remote_settled?: boolean }).remote_settled) {
      if (this.mode === "own") delivery.accept();
      else delivery.release({ delivery_failed: false });
    }
    if (!message || this.stream.stopReason !== undefined) return;
    this.stream.lastActivity = Date.now();
    this.received += 1;
    const position = `amqp1 delivery ${this.received}`;
    const headers = amqp1Headers(message);
    const body = amqp1Body(message);
    this.stream.buffer.push(
      "text" in body
        ? { position, headers, body: body.text }
        : {
            position,
            headers,
            body: "",
            envelopeFault: {
              envelope: "amqp1",
              field: "/body",
              expected: "the event's JSON text, as a data section (bytes) or a string value",
              got: body.got,
            },
          },
    );
    this.stream.poke();
  }

  private lost(connection: Connection, reason: string): void {
    if (connection !== this.connection || this.stream.stopReason !== undefined || this.releasing) return;
    this.stream.connected = false;
    this.connection = undefined;
    this.receiver = undefined;
    connection.close();
    const at = Date.now();
    if (this.mode === "browse") {
      this.stream.notice("disconnected", `${reason} at ${iso(at)}`, at);
      this.stream.stop(
        `stopped after ${this.received} message(s): messages after ${iso(at)} were not seen; the messages read were checked. ` +
          "Run the check again once the broker is back (a browse starts from the head of the queue again)",
      );
      return;
    }
    this.stream.notice("disconnected", `${reason} at ${iso(at)}; reconnecting`, at);
    void this.reconnect(at);
  }

  /** Own address: attaches again with bounded backoff; a refusal that names the caller's input stops at once. */
  private reconnect(lostAt: number): Promise<void> {
    return this.stream.reconnect(backoffOf(this.options.reconnect), {
      connect: () => this.open(),
      release: () => this.release(),
      fatal: (error) => error instanceof SourceError,
      reconnected: (attempt, at) => {
        this.stream.notice(
          "reconnected",
          `attached again to "${this.address}" after ${attempt} attempt(s) at ${iso(at)}`,
          at,
        );
        this.stream.notice(
          "gap",
          `messages sent between ${iso(lostAt)} and ${iso(at)} (${at - lostAt} ms) were not seen if the address's ` +
            "queue went with the link (a RabbitMQ /exchange/X/KEY queue does; a durable subscription keeps them)",
          at,
        );
      },
      gaveUp: (lastError) =>
        `gave up reconnecting to "${this.address}" (last error: ${errorText(lastError)}); messages sent since ` +
        `${iso(lostAt)} were not seen; the messages read were checked`,
    });
  }

  notices(): TransportNotice[] {
    return this.stream.notices();
  }

  /** Keeps the broker's credit plus what waits here near the window: memory stays flat on a fast broker. */
  private replenish(): void {
    const receiver = this.receiver;
    if (!receiver || this.stream.stopReason !== undefined) return;
    const outstanding = (receiver as unknown as { credit: number }).credit + this.stream.buffer.length;
    if (outstanding <= this.credit / 2) receiver.add_credit(this.credit - outstanding);
  }

  messages(): AsyncIterable<RawMessage> {
    return this.stream.messages(
      () => this.release(),
      () => this.replenish(),
    );
  }

  private async release(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    this.receiver = undefined;
    this.stream.connected = false;
    if (!connection) return;
    this.releasing = true;
    await new Promise<void>((resolve) => {
      const done = setTimeout(resolve, 2000);
      connection.once("connection_close", () => {
        clearTimeout(done);
        resolve();
      });
      connection.once("disconnected", () => {
        clearTimeout(done);
        resolve();
      });
      connection.close();
    });
  }

  async close(): Promise<void> {
    this.stream.stop("closed");
    await this.release();
  }
}
