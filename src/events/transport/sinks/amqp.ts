// Publishes event messages to an AMQP 0-9-1 exchange the way a deployment does: the event headers
// (tenantId, eventType, sourceObjectUri, objectVersion when present) as AMQP message headers, the payload
// as the JSON body. A confirm channel makes every publish acknowledged by the broker before close() returns.
import amqp from "amqplib";
import { type AmqpConnection, redactAmqpUrl } from "../sources/amqp.ts";
import type { MessageSink } from "../transport.ts";

export interface AmqpSinkOptions {
  exchange: string;
  routingKey: string;
  /** Declare the exchange when it does not exist (an existing one is used as it is); default: it must exist. */
  declare?: { type?: "topic" | "direct" | "fanout" | "headers"; durable?: boolean };
  /** Publishes awaiting a broker confirm before publish() waits for them (default 1000). */
  maxInFlight?: number;
}

type AmqpConfirmChannel = Awaited<ReturnType<AmqpConnection["createConfirmChannel"]>>;

export async function openAmqpSink(url: string, options: AmqpSinkOptions): Promise<MessageSink> {
  const connection = await amqp.connect(url, { timeout: 10_000 });
  connection.on("error", () => {});
  try {
    const channel = await connection.createConfirmChannel();
    channel.on("error", () => {});
    if (!(await exchangeExists(connection, options.exchange))) {
      if (!options.declare)
        throw new Error(
          `exchange "${options.exchange}" does not exist on ${redactAmqpUrl(url)}; declare it or choose an existing one`,
        );
      await channel.assertExchange(options.exchange, options.declare.type ?? "topic", {
        durable: options.declare.durable ?? false,
      });
    }
    return new AmqpSink(url, connection, channel, options);
  } catch (error) {
    await connection.close().catch(() => {});
    throw error;
  }
}

/** A passive check on a throwaway channel: a missing exchange closes the channel it was asked on. */
async function exchangeExists(connection: AmqpConnection, exchange: string): Promise<boolean> {
  const probe = await connection.createChannel();
  probe.on("error", () => {});
  try {
    await probe.checkExchange(exchange);
    await probe.close();
    return true;
  } catch {
    return false;
  }
}

class AmqpSink implements MessageSink {
  readonly description: string;
  private readonly pending = new Set<Promise<void>>();
  private failure: Error | undefined;
  private lost: Error | undefined;
  private published = 0;

  constructor(
    url: string,
    private readonly connection: AmqpConnection,
    private readonly channel: AmqpConfirmChannel,
    private readonly options: AmqpSinkOptions,
  ) {
    this.description = `amqp ${redactAmqpUrl(url)} exchange "${options.exchange}" routing key "${options.routingKey}"`;
    connection.on("close", (error?: unknown) => {
      this.lost = new Error(
        `the connection to the broker closed after ${this.published} publish(es)` +
          (error instanceof Error ? `: ${error.message}` : ""),
      );
    });
  }

  async publish(message: { headers: Record<string, unknown>; body: string }): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.lost) throw this.lost;
    this.published += 1;
    const number = this.published;
    let settle: () => void = () => {};
    const confirmed = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const writable = this.channel.publish(
      this.options.exchange,
      this.options.routingKey,
      Buffer.from(message.body, "utf8"),
      { headers: message.headers, contentType: "application/json", persistent: false },
      (error: unknown) => {
        if (error)
          this.failure ??= new Error(`the broker did not confirm publish #${number}: ${String(error)}`);
        settle();
      },
    );
    this.pending.add(confirmed);
    void confirmed.then(() => this.pending.delete(confirmed));
    // Back-pressure: the socket buffer is full, wait until it drains (or the connection goes).
    if (!writable)
      await Promise.race([new Promise((resume) => this.channel.once("drain", resume)), this.lostSignal()]);
    if (this.pending.size >= (this.options.maxInFlight ?? 1000)) await Promise.race(this.pending);
    if (this.failure) throw this.failure;
  }

  /** Waits for every outstanding confirm, then closes; throws when the broker refused any publish. */
  async close(): Promise<void> {
    try {
      if (!this.lost) await Promise.race([Promise.all(this.pending), this.lostSignal()]);
    } finally {
      await this.connection.close().catch(() => {});
    }
    if (this.failure) throw this.failure;
    if (this.lost && this.pending.size > 0) throw this.lost;
  }

  /** Settles when the connection closes, for whatever reason; one listener for the sink's lifetime. */
  private lostSignal(): Promise<void> {
    this.closed ??= new Promise((resolve) => this.connection.once("close", () => resolve()));
    return this.closed;
  }

  private closed: Promise<void> | undefined;
}
