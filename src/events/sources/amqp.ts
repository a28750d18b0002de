// Placeholder: the broker work replaces this with the real AMQP source.
import type { MessageSource } from "../transport.ts";

export interface AmqpSourceOptions {
  exchange: string;
  routingKey: string;
  maxMessages?: number;
  idleTimeoutMs?: number;
  durationMs?: number;
}

export async function openAmqpSource(_url: string, _options: AmqpSourceOptions): Promise<MessageSource> {
  throw new Error("AMQP source not available yet");
}
