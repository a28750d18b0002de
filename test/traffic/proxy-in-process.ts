// lckit proxy started in the test's own process, in front of one upstream origin (both base URLs), on
// free ports; and a judge that only collects what the proxy hands it, for tests of the forwarding.
import { afterEach } from "vitest";
import type { JudgeThread } from "../../src/traffic/judge-thread.ts";
import { type RunningProxy, startProxy } from "../../src/traffic/proxy.ts";
import type { ReadExchange } from "../../src/traffic/recorded-entry.ts";
import type { TrafficJudge } from "../../src/traffic/traffic-judge.ts";

export function proxyInFront(
  upstream: string,
  judge: TrafficJudge,
  upstreamTimeoutMs = 5_000,
): Promise<RunningProxy> {
  return startProxy({ baseUrl: upstream, rdmUrl: upstream, port: 0, upstreamTimeoutMs, judge });
}

/** A stand-in judge: the exchanges it was handed, in order. */
export function collectingJudge(): { judge: TrafficJudge; judged: ReadExchange[] } {
  const judged: ReadExchange[] = [];
  return { judge: { add: (x: ReadExchange) => judged.push(x) } as unknown as TrafficJudge, judged };
}

/** Judge threads a test starts, each closed after the test: `opened(new JudgeThread(...))`. */
export function closedAfterEach(): (thread: JudgeThread) => JudgeThread {
  const open: JudgeThread[] = [];
  afterEach(async () => {
    for (const thread of open.splice(0)) await thread.close();
  });
  return (thread) => {
    open.push(thread);
    return thread;
  };
}
