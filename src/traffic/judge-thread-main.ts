// The worker thread of JudgeThread (judge-thread.ts): a TrafficJudge fed the batches of exchanges the proxy
// hands over, acknowledging each batch once judged (so the proxy's queue bound counts what is still
// waiting), and answering a judgement when asked, in the order the messages came.
import { parentPort, workerData } from "node:worker_threads";
import { charsOf, type FromJudge, type ToJudge } from "./judge-thread.ts";
import { TrafficJudge, type TrafficJudgeOptions } from "./traffic-judge.ts";

const port = parentPort;
if (port === null) throw new Error("judge-thread-main.ts runs as the worker of JudgeThread, not on its own");
const judge = new TrafficJudge(workerData as TrafficJudgeOptions);
const say = (m: FromJudge) => port.postMessage(m);

port.on("message", (m: ToJudge) => {
  try {
    if (m.kind === "add") {
      // Acknowledged whatever happens, so that the proxy's queue bound never counts a lost batch.
      try {
        for (const x of m.exchanges) judge.add(x);
      } finally {
        const chars = m.exchanges.reduce((n, x) => n + charsOf(x), 0);
        say({ kind: "judged", exchanges: m.exchanges.length, chars });
      }
    } else if (m.kind === "gap") judge.gap(m.exchanges, m.at, m.until, m.secrets);
    else say({ kind: "judgement", id: m.id, judgement: judge.judgement(m.report) });
  } catch (error) {
    say({
      kind: "failed",
      ...(m.kind === "judgement" ? { id: m.id } : {}),
      message: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
  }
});
