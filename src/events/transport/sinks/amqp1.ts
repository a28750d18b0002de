// Publishes event messages to an AMQP 1.0 address the way a deployment does: the event headers as
// application properties, the payload as a data section with content type application/json. Every
// message is settled by the broker (accepted) before close() returns; a refusal fails the publish.
import type { Connection, Delivery, EventContext, Sender } from "rhea";
import rhea from "rhea";
import { type Amqp1ConnectOptions, connectAmqp1, errorText, parseAmqp1Url } from "../amqp1-connection.ts";
import { SourceError } from "../sources/file.ts";
import type { MessageSink } from "../transport.ts";

export interface Amqp1SinkOptions extends Amqp1ConnectOptions {
  /** The queue, topic or address; default: the URL's path. */
  address?: string;
  /** Messages awaiting the broker's settlement before publish() waits (default 1000). */
  maxInFlight?: number;
}

/** Application properties hold simple values only: anything else travels as its JSON text. */
function propertyValue(value: unknown): unknown {
  if (value === null || ["string", "number", "boolean"].includes(typeof value)) return value;
  return JSON.stringify(value);
}

export async function openAmqp1Sink(url: string, options: Amqp1SinkOptions = {}): Promise<MessageSink> {
  const endpoint = parseAmqp1Url(url);
  const address = options.address ?? endpoint.address;
  if (!address)
    throw new SourceError(
      "no AMQP 1.0 address to publish to: put the queue, topic or address in the URL's path (amqp1://host/QUEUE) or pass --address",
    );
  const connection = await connectAmqp1(endpoint, options);
  try {
    const sender = connection.open_sender({ target: { address }, autosettle: true });
    await new Promise<void>((resolve, reject) => {
      sender.once("sender_open", () => resolve());
      sender.once("sender_close", (context: EventContext) =>
        reject(
          new Error(
            `the broker refused to publish to "${address}": ${errorText(context.sender?.error ?? "no reason given")}`,
          ),
        ),
      );
      connection.once("session_close", (context: EventContext) =>
        reject(
          new Error(
            `the broker refused to publish to "${address}": ${errorText(context.session?.error ?? "no reason given")}`,
          ),
        ),
      );
      connection.once("disconnected", (context: EventContext) =>
        reject(
          new Error(`the connection closed while attaching: ${errorText(context.error ?? "disconnected")}`),
        ),
      );
    });
    return new Amqp1Sink(`amqp1 ${endpoint.server} address "${address}"`, connection, sender, options);
  } catch (error) {
    connection.close();
    throw error;
  }
}

class Amqp1Sink implements MessageSink {
  private readonly pending = new Map<Delivery, () => void>();
  private failure: Error | undefined;
  private lost: Error | undefined;
  private published = 0;
  private waiters: (() => void)[] = [];

  constructor(
    readonly description: string,
    private readonly connection: Connection,
    private readonly sender: Sender,
    private readonly options: Amqp1SinkOptions,
  ) {
    const settle = (context: EventContext, refusal?: string) => {
      const delivery = context.delivery as Delivery | undefined;
      if (!delivery) return;
      if (refusal) this.failure ??= new Error(refusal);
      this.pending.get(delivery)?.();
      this.pending.delete(delivery);
      this.wakeAll();
    };
    sender.on("accepted", (context: EventContext) => settle(context));
    sender.on("rejected", (context: EventContext) =>
      settle(
        context,
        `the broker rejected a message: ${errorText((context.delivery as { remote_state?: { error?: unknown } } | undefined)?.remote_state?.error ?? "no reason given")}`,
      ),
    );
    sender.on("released", (context: EventContext) =>
      settle(context, "the broker released a message (it could not route or store it)"),
    );
    sender.on("modified", (context: EventContext) =>
      settle(context, "the broker did not take a message (modified)"),
    );
    sender.on("sendable", () => this.wakeAll());
    const gone = (reason: string) => {
      this.lost ??= new Error(`${reason} after ${this.published} publish(es)`);
      this.wakeAll();
    };
    connection.on("disconnected", (context: EventContext) =>
      gone(`lost the connection: ${errorText(context.error ?? "disconnected")}`),
    );
    sender.on("sender_close", (context: EventContext) =>
      gone(`the broker closed the link: ${errorText(context.sender?.error ?? "no reason given")}`),
    );
  }

  private wakeAll(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  private wait(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async publish(message: { headers: Record<string, unknown>; body: string }): Promise<void> {
    while (
      !this.failure &&
      !this.lost &&
      (!this.sender.sendable() || this.pending.size >= (this.options.maxInFlight ?? 1000))
    )
      await this.wait();
    if (this.failure) throw this.failure;
    if (this.lost) throw this.lost;
    this.published += 1;
    const application_properties: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(message.headers))
      application_properties[name] = propertyValue(value);
    const delivery = this.sender.send({
      body: rhea.message.data_section(Buffer.from(message.body, "utf8")),
      content_type: "application/json",
      application_properties,
    });
    this.pending.set(delivery, () => {});
  }

  /** Waits until the broker has settled every message, then closes; throws when it refused any. */
  async close(): Promise<void> {
    try {
      while (this.pending.size > 0 && !this.lost && !this.failure) await this.wait();
    } finally {
      await new Promise<void>((resolve) => {
        const done = setTimeout(resolve, 2000);
        this.connection.once("connection_close", () => {
          clearTimeout(done);
          resolve();
        });
        this.connection.once("disconnected", () => {
          clearTimeout(done);
          resolve();
        });
        this.connection.close();
      });
    }
    if (this.failure) throw this.failure;
    if (this.lost && this.pending.size > 0) throw this.lost;
  }
}
