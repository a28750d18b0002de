// A run whose target is flaky, produced by the real runner and transport against an in-memory target, with
// the secret of the viewer and the token it was issued in the URL of every retried request: one read is
// answered 429 (Retry-After: 1) once, one meets a connection reset once, one a 503 once (and then fails on
// its own terms), one is never retried. Its HAR is written beside it, so checks cite evidence.har entries.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fail } from "../../src/check/index.ts";
import { HarWriter, linkEvidence } from "../../src/evidence/har.ts";
import type { RunResult } from "../../src/result/model.ts";
import { planRun } from "../../src/runner/plan.ts";
import { runPlan } from "../../src/runner/run.ts";
import { systemClock } from "../../src/target/system-clock.ts";
import { check, fakeFetch, fakeTarget, SECRET } from "../runner/fake-target.ts";

/** Misbehaves on the first request of each /flaky path, then answers 200 (or, for /flaky/broken, 500). */
function flakyFetch(): (request: Request) => Promise<Response> {
  const seen = new Set<string>();
  return async (request) => {
    const url = new URL(request.url);
    if (!url.pathname.startsWith("/flaky/")) return fakeFetch(request);
    const first = !seen.has(url.pathname);
    seen.add(url.pathname);
    const kind = url.pathname.split("/")[2];
    if (first && kind === "rate-limited")
      return Response.json({ error: "slow down" }, { status: 429, headers: { "retry-after": "1" } });
    if (first && kind === "reset")
      throw new TypeError("fetch failed", {
        cause: Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }),
      });
    if (first && kind === "unavailable") return new Response("busy", { status: 503 });
    if (kind === "unavailable") return Response.json({ error: "still down" }, { status: 500 });
    return Response.json({ status: "OK" });
  };
}

/** A read whose URL carries the viewer's client secret (a path segment) and its token (a query field). */
function flakyRead(kind: string, judge?: (res: Response) => void) {
  return check(
    `service/${kind}`,
    async (ctx) => {
      const token = await ctx.token("viewer");
      const res = await ctx.fetch(
        `${ctx.target.rdmUrl}/flaky/${kind}/${SECRET}?access_token=${token}&client_secret=${SECRET}`,
        { headers: { authorization: `Bearer ${token}` } },
      );
      judge?.(res);
    },
    { needs: { roles: ["viewer"] } },
  );
}

export interface RetriedRun {
  result: RunResult;
  /** The HAR file the run wrote (redacted like the reports). */
  har: string;
}

export async function retriedRun(): Promise<RetriedRun> {
  const target = fakeTarget({ loopback: false });
  const checks = [
    flakyRead("rate-limited"),
    flakyRead("reset"),
    flakyRead("unavailable", (res) => {
      if (res.status !== 200)
        fail(`the read answered ${res.status}`, { expected: "200", actual: `${res.status}` });
    }),
    flakyRead("steady"),
  ];
  const har = join(mkdtempSync(join(tmpdir(), "lckit-retried-")), "evidence.har");
  const writer = new HarWriter(har, { name: "lckit", version: "test" }, [SECRET]);
  let result: RunResult;
  try {
    result = await runPlan(planRun(checks, { target }), {
      fetch: writer.wrap(flakyFetch()),
      clock: systemClock(),
      seed: 7,
      runs: 1,
      timeoutMs: 5000,
      command: "lckit run --target target.yaml",
      catalogue: {
        path: "requirements/catalogue.yaml",
        requirements: [{ id: "SERVICE-01", section: "S", level: "MUST", text: "the service answers" }],
      },
    });
  } finally {
    await writer.close();
  }
  return { result: linkEvidence(result, writer.index), har };
}
