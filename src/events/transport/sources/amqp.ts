// Reads a live event stream from an AMQP 0-9-1 broker (RabbitMQ) without taking anything from the
// deployment's own consumers: the checker declares its OWN exclusive, auto-delete, server-named queue and
// binds it to the exchange the deployment publishes to. The broker copies every routed message to each
// bound queue, so the real consumers' queues still receive everything.
//
// Connection loss is survived: the source reconnects with bounded backoff, re-declares and re-binds, and
// records notices (disconnected, reconnected, and the gap: while its queue did not exist, messages
// published to the exchange were not copied to it and are lost to the checker).
import amqp from "amqplib";
import { UserInputError } from "../../../usage-error.ts";
import type { MessageSource, RawMessage, TransportNotice } from "../transport.ts";
import { type Backoff, BrokerStream, backoffOf } from "./broker-stream.ts";

export interface AmqpSourceOptions {
  exchange: string;
  routingKey: string;
  /** Stop after this many messages. */
  maxMessages?: number;
  /** Stop when no message arrived for this long while connected. */
  idleTimeoutMs?: number;
  /** Stop this long after the source was opened. */
  durationMs?: number;
  /** Reconnection after a connection loss: attempts and backoff bounds (defaults: 30, 250 ms .. 5 s). */
  reconnect?: { attempts?: number; initialDelayMs?: number; maxDelayMs?: number };
  /** Unacknowledged deliveries the broker may push ahead of the checker (default 500). */
  prefetch?: number;
}

/** A connection as amqplib opens it (the sink publishes over the same kind). */
export type AmqpConnection = Awaited<ReturnType<typeof amqp.connect>>;
type AmqpChannel = Awaited<ReturnType<AmqpConnection["createChannel"]>>;
type AmqpMessage = NonNullable<Parameters<Parameters<AmqpChannel["consume"]>[1]>[0]>;

/** The exchange the checker was pointed at does not exist: a configuration problem, not a transport fault. */
export class AmqpExchangeMissingError extends UserInputError {
  override name = "AmqpExchangeMissingError";
}

/** The URL without its password, for descriptions and messages. */
export function redactAmqpUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "<unparseable AMQP URL>";
  }
}

/** A dead broker is noticed within seconds, not at the server's default heartbeat of 60 s. */
function withHeartbeat(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.searchParams.has("heartbeat")) parsed.searchParams.set("heartbeat", "10");
    return parsed.toString();
  } catch {
    return url;
  }
}

function headerValue(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return value.toString("utf8");
  if (Array.isArray(value)) return value.map(headerValue);
  return value;
}

function headersOf(message: AmqpMessage): Record<string, unknown> {
  const headers: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(message.properties.headers ?? {}))
    headers[name] = headerValue(value);
  return headers;
}

const iso = (at: number) => new Date(at).toISOString();
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Connects, checks that the exchange exists (passively: never creates it), declares the checker's own
 * queue and binds it. Resolves once the queue is bound, so messages published after that are seen.
 */
export async function openAmqpSource(url: string, options: AmqpSourceOptions): Promise<MessageSource> {
  if (!options.exchange)
    throw new Error("openAmqpSource: an exchange name is required (the default exchange cannot be bound)");
  const source = new AmqpSource(url, options);
  await source.connect();
  return source;
}

class AmqpSource implements MessageSource {
  readonly description: string;
  private readonly url: string;
  private readonly shownUrl: string;
  private readonly stream: BrokerStream;
  private connection: AmqpConnection | undefined;
  private queued = 0;
  private reconnecting = false;
  /** The last delivery not acknowledged yet, and whether its acknowledgement is scheduled. */
  private unacked: { channel: AmqpChannel; message: AmqpMessage } | undefined;
  private ackScheduled = false;
  private readonly backoff: Backoff;

  constructor(
    url: string,
    private readonly options: AmqpSourceOptions,
  ) {
    this.url = withHeartbeat(url);
    this.shownUrl = redactAmqpUrl(url);
    this.stream = new BrokerStream("an AMQP", options);
    this.description = `amqp ${redactAmqpUrl(url)} exchange "${options.exchange}" routing key "${options.routingKey}"`;
    this.backoff = backoffOf(options.reconnect);
  }

  notices(): TransportNotice[] {
    return this.stream.notices();
  }

  /** One connection attempt: connect, check the exchange, declare and bind our queue, consume. */
  async connect(): Promise<void> {
    const { exchange, routingKey } = this.options;
    const connection = await amqp.connect(this.url, { timeout: 10_000 });
    // Errors are reported through "close"; an "error" listener keeps them from crashing the process.
    connection.on("error", () => {});
    try {
      const channel = await connection.createChannel();
      channel.on("error", () => {});
      try {
        await channel.checkExchange(exchange);
      } catch (error) {
        throw new AmqpExchangeMissingError(
          `exchange "${exchange}" does not exist on ${this.shownUrl} (${errorText(error)}). ` +
            "The checker never creates it: pass the exchange the deployment publishes to, or declare it first.",
        );
      }
      const { queue } = await channel.assertQueue("", { exclusive: true, autoDelete: true, durable: false });
      await channel.bindQueue(queue, exchange, routingKey);
      await channel.prefetch(this.options.prefetch ?? 500);
      await channel.consume(queue, (message) => this.onMessage(channel, message), { noAck: false });
      this.connection = connection;
      this.stream.connected = true;
      this.stream.lastActivity = Date.now();
      connection.on("close", (error?: unknown) => this.onLost(connection, error));
      channel.on("close", () => this.onLost(connection, new Error("the channel was closed by the broker")));
    } catch (error) {
      await connection.close().catch(() => {});
      throw error;
    }
  }

  private onMessage(channel: AmqpChannel, message: AmqpMessage | null): void {
    if (message === null) {
      // The broker cancelled our consumer (queue deleted): the same as losing the connection.
      if (this.connection) this.onLost(this.connection, new Error("the broker cancelled the consumer"));
      return;
    }
    if (this.stream.stopReason !== undefined) return;
    this.stream.lastActivity = Date.now();
    this.queued += 1;
    this.stream.buffer.push({
      position: `amqp delivery ${this.queued}`,
      headers: headersOf(message),
      body: message.content.toString("utf8"),
    });
    // Our queue is private, so acknowledging on receipt loses nothing another consumer would get. The
    // deliveries that arrive together are acknowledged together, by one ack of the last (allUpTo): one
    // frame per burst instead of one per message.
    this.unacked = { channel, message };
    if (!this.ackScheduled) {
      this.ackScheduled = true;
      setImmediate(() => this.acknowledge());
    }
    this.stream.poke();
  }

  /** Acknowledges every delivery up to the last one received (on its channel). */
  private acknowledge(): void {
    this.ackScheduled = false;
    const last = this.unacked;
    this.unacked = undefined;
    if (!last) return;
    try {
      last.channel.ack(last.message, true);
    } catch {
      // The channel died between delivery and ack; the loss handler records it.
    }
  }

  private onLost(connection: AmqpConnection, error?: unknown): void {
    if (connection !== this.connection || !this.stream.connected) return;
    this.stream.connected = false;
    this.connection = undefined;
    connection.close().catch(() => {});
    if (this.stream.stopReason !== undefined) return;
    const lostAt = Date.now();
    this.stream.notice(
      "disconnected",
      `lost the connection to ${this.shownUrl} at ${iso(lostAt)}${error ? `: ${errorText(error)}` : ""}; reconnecting`,
      lostAt,
    );
    void this.reconnect(lostAt);
  }

  private async reconnect(lostAt: number): Promise<void> {
    if (this.reconnecting) return;
    this.reconnecting = true;
    try {
      await this.stream.reconnect(this.backoff, {
        connect: () => this.connect(),
        release: () => this.release(),
        reconnected: (attempt, boundAt) => {
          this.stream.notice(
            "reconnected",
            `reconnected after ${attempt} attempt(s); queue re-declared and re-bound at ${iso(boundAt)}`,
            boundAt,
          );
          this.stream.notice(
            "gap",
            `messages published between ${iso(lostAt)} and ${iso(boundAt)} (${boundAt - lostAt} ms) were not seen: ` +
              "the checker's queue did not exist while the connection was down, so the broker did not copy them to it",
            boundAt,
          );
        },
        gaveUp: (lastError) =>
          `gave up reconnecting after ${this.backoff.attempts} attempts (last error: ${errorText(lastError)}); ` +
          `messages published since ${iso(lostAt)} were not seen`,
      });
    } finally {
      this.reconnecting = false;
    }
  }

  messages(): AsyncIterable<RawMessage> {
    return this.stream.messages(() => this.release());
  }

  private async release(): Promise<void> {
    const connection = this.connection;
    this.stream.connected = false;
    this.connection = undefined;
    // Closing the connection deletes our exclusive queue; nothing is left on the broker.
    if (connection) await connection.close().catch(() => {});
  }

  async close(): Promise<void> {
    this.stream.stop("closed");
    await this.release();
  }
}
