// lckit judge as a library: recorded traffic (HAR or NDJSON, streamed) read one entry at a time into the
// kit's exchange model and fed to the traffic judge (traffic-judge.ts), which judges it by the service
// rules and, per client, the caller rules in bounded memory, and returns a RunResult whose checks each name
// their party: suite "service", or "client <id>".
import type { CatalogueView } from "../result/catalogue-view.ts";
import { type RawEntry, rawEntries, type TrafficFormat, TrafficInputError } from "./har-stream.ts";
import { exchangeOfEntry, type ReadExchange } from "./recorded-entry.ts";
import { type Judgement, TrafficJudge, type TrafficJudgeOptions } from "./traffic-judge.ts";

export type { Judgement } from "./traffic-judge.ts";

export interface JudgeOptions extends TrafficJudgeOptions {
  /** A file path, or "-" for stdin. */
  source: string;
  format?: TrafficFormat;
  stdin?: NodeJS.ReadableStream;
  catalogue?: CatalogueView;
  /** The command line, as the report records it. */
  command?: string;
  /** Called with the judge after each exchange is added (tests read how many exchanges it holds). */
  onExchange?: (judge: TrafficJudge) => void;
}

export interface Skipped {
  count: number;
  first?: string;
}

/** The exchanges of a source, streamed, and the entries that were not one (counted, with the first why). */
export async function* recordedExchanges(
  options: Pick<JudgeOptions, "source" | "format" | "stdin">,
  skipped: Skipped,
): AsyncGenerator<ReadExchange> {
  const entries: AsyncIterable<RawEntry> = rawEntries(options.source, {
    ...(options.format ? { format: options.format } : {}),
    ...(options.stdin ? { stdin: options.stdin as never } : {}),
  });
  for await (const entry of entries) {
    const x =
      "skipped" in entry ? { notAnExchange: entry.skipped } : exchangeOfEntry(entry.value, entry.index);
    if ("notAnExchange" in x) {
      skipped.count += 1;
      skipped.first ??= x.notAnExchange;
      continue;
    }
    yield x;
  }
}

/** Judges exchanges already read (tests; the proxy feeds its judge itself). */
export function judgeExchanges(
  exchanges: readonly ReadExchange[],
  options: Omit<JudgeOptions, "stdin" | "format"> & { startedAt?: Date },
): Judgement {
  const judge = new TrafficJudge(options);
  for (const x of exchanges) judge.add(x);
  return judge.judgement({
    source: options.source,
    startedAt: options.startedAt ?? new Date(),
    ...(options.command === undefined ? {} : { command: options.command }),
    ...(options.catalogue === undefined ? {} : { catalogue: options.catalogue }),
  });
}

/** Reads and judges recorded traffic: what `lckit judge` runs. */
export async function judgeTraffic(options: JudgeOptions): Promise<Judgement> {
  const startedAt = new Date();
  const judge = new TrafficJudge(options);
  const skipped: Skipped = { count: 0 };
  for await (const x of recordedExchanges(options, skipped)) {
    judge.add(x);
    options.onExchange?.(judge);
  }
  if (judge.read === 0 && skipped.count > 0)
    throw new TrafficInputError(
      `${options.source} holds no exchange: ${skipped.count} entries skipped, the first because ${skipped.first}`,
    );
  return judge.judgement({
    source: options.source,
    startedAt,
    skipped,
    ...(options.command === undefined ? {} : { command: options.command }),
    ...(options.catalogue === undefined ? {} : { catalogue: options.catalogue }),
  });
}
