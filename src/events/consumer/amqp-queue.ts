// RabbitMQ (AMQP 0-9-1) delivery: the kit declares a queue of its own on the team's broker, publishes the
// stream to it in delivery order (the event headers as AMQP headers, the payload as the JSON body, every
// publish confirmed by the broker), waits until the consumer has drained it, and deletes it at the end.
import { randomUUID } from "node:crypto";
import amqp from "amqplib";
import { UserInputError } from "../../usage-error.ts";
import { redactAmqpUrl } from "../transport/sources/amqp.ts";
import type { DeliveredMessage } from "./consumer-stream.ts";

/** The queue stays empty this long before the kit takes it as drained. */
const QUIET_MS = 1_000;
const POLL_MS = 50;

export interface DeliveryQueue {
  name: string;
  /** Publishes every message, each confirmed by the broker; returns how many. */
  publish(messages: readonly DeliveredMessage[]): Promise<number>;
  /** Resolves once the queue has been empty for a second, or when `signal` ends the wait. */
  drained(signal: AbortSignal): Promise<boolean>;
  /** Deletes the queue and closes the connection. */
  close(): Promise<void>;
}

export class BrokerError extends UserInputError {
  override name = "BrokerError";
}

export async function openDeliveryQueue(url: string): Promise<DeliveryQueue> {
  let connection: Awaited<ReturnType<typeof amqp.connect>>;
  try {
    connection = await amqp.connect(url, { timeout: 10_000 });
  } catch (error) {
    throw new BrokerError(
      `cannot connect to the broker ${redactAmqpUrl(url)} (${(error as Error).message}); give --broker amqp://user:password@host:port of a running RabbitMQ`,
    );
  }
  connection.on("error", () => {});
  const channel = await connection.createConfirmChannel();
  channel.on("error", () => {});
  const name = `lckit-consumer-check-${randomUUID()}`;
  await channel.assertQueue(name, { durable: false, autoDelete: false });
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  return {
    name,
    async publish(messages) {
      let sent = 0;
      for (const message of messages) {
        const body = Buffer.from(JSON.stringify(message.payload), "utf8");
        const flowing = channel.sendToQueue(name, body, {
          headers: message.headers,
          contentType: "application/json",
        });
        sent += 1;
        if (!flowing) await new Promise((resolve) => channel.once("drain", resolve));
        if (sent % 1000 === 0) await channel.waitForConfirms();
      }
      await channel.waitForConfirms();
      return sent;
    },
    async drained(signal) {
      let emptySince: number | undefined;
      while (!signal.aborted) {
        const { messageCount } = await channel.checkQueue(name);
        if (messageCount > 0) emptySince = undefined;
        else {
          emptySince ??= Date.now();
          if (Date.now() - emptySince >= QUIET_MS) return true;
        }
        await pause(POLL_MS);
      }
      return false;
    },
    async close() {
      await channel.deleteQueue(name).catch(() => {});
      await connection.close().catch(() => {});
    },
  };
}
