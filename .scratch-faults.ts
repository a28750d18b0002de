import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "./src/cli/main.ts";
import { judgeTraffic } from "./src/traffic/judge.ts";
const faults = process.argv.slice(2);
for (const fault of faults) {
  const dir = mkdtempSync(join(tmpdir(), "lckit-judge-scratch-"));
  const out: string[] = [];
  const io = { out: (s: string) => out.push(s), err: (s: string) => out.push(s), isTty: false, env: {}, cwd: process.cwd() } as any;
  try {
    await main(["run", "--suite", "lookup-scan", "--suite", "auth", "--runs", "3", "--har", "--report-dir", dir, "--fault", fault], io);
  } catch (e) { console.log(fault, "run threw", String(e)); continue; }
  const [folder] = readdirSync(dir).filter((d) => !d.startsWith("."));
  const at = join(dir, folder as string);
  const report = JSON.parse(readFileSync(join(at, "report.json"), "utf8"));
  const active = report.checks.filter((c: any) => c.status === "failed");
  const { result } = await judgeTraffic({ source: join(at, "evidence.har.gz") });
  const judged = result.checks.filter((c) => c.status === "failed");
  const activeReqs = new Set(active.flatMap((c: any) => c.requirements));
  console.log(JSON.stringify({
    fault,
    active: active.map((c: any) => c.id),
    judged: judged.map((c) => `${c.suite}:${c.id}:${c.level}:${c.requirements.some((r) => activeReqs.has(r)) ? "same-req" : "other-req"}`),
  }));
}
