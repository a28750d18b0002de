// Every request a client sent to the sandbox and what it was answered, in order: what the caller rules of
// lckit client check judge. Raw (tokens and secrets included: the rules correlate them); whoever shows a
// recording redacts it.

export interface RecordedExchange {
  /** From 0, in the order the requests arrived. */
  seq: number;
  /** Reference clock (epoch ms) when the request arrived. */
  at: number;
  method: string;
  /** The full URL as the sandbox saw it. */
  url: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** The request body as text; absent when none was sent. */
  body?: string;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string;
  /** Wall-clock milliseconds the sandbox took to answer (latency switched on included). */
  durationMs: number;
}

/** Bound on exchanges kept: a runaway client cannot exhaust memory; what is dropped is counted and said. */
export const MAX_RECORDED = 1_000_000;

export class Recording {
  readonly exchanges: RecordedExchange[] = [];
  /** Exchanges not kept because the bound was reached. */
  dropped = 0;
  private seq = 0;

  constructor(private readonly max = MAX_RECORDED) {}

  nextSeq(): number {
    return this.seq++;
  }

  add(exchange: RecordedExchange): void {
    if (this.exchanges.length >= this.max) this.dropped += 1;
    else this.exchanges.push(exchange);
  }

  clear(): void {
    this.exchanges.length = 0;
    this.dropped = 0;
    this.seq = 0;
  }
}

export function headersOf(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}
