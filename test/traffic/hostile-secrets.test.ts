// Secrets never reach a traffic report, tested on real captured traffic: clients whose secrets hold what
// breaks naive encodings ("+", "%", ":", a space) call lckit proxy in front of the hostile target that
// echoes every credential it received, in every form, into its answers and headers. The judge knows only
// what the traffic shows (no target file): the Basic pairs, the secrets sent in token requests' bodies and
// the tokens issued. Every file of the report, in every format, holds none of them in any form, the curl
// lines that resend the findings' exchanges included, and the proxy's --record file of the same traffic.
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { formEncode } from "../../src/client/token.ts";
import { writeReport } from "../../src/report-folder/write.ts";
import { ExchangeRecording } from "../../src/traffic/recording.ts";
import { TrafficJudge } from "../../src/traffic/traffic-judge.ts";
import {
  HOSTILE_CLIENTS,
  type HostileServer,
  hostileSecret,
  startHostileServer,
} from "../hostile/hostile-server.ts";
import { hostileSecrets } from "../hostile/run-cli.ts";
import { leaksIn } from "../hostile/secret-forms.ts";
import { proxyInFront } from "./proxy-in-process.ts";

let server: HostileServer | undefined;
afterAll(async () => {
  await server?.close();
});

const FORM = "application/x-www-form-urlencoded";

describe("a traffic report of clients with hostile secrets, behind the echoing target", () => {
  it("holds none of their secrets or tokens, in any form, in any file", async () => {
    server = await startHostileServer("echo-credentials");
    const judge = new TrafficJudge();
    // The proxy's --record file of the same traffic, labelled instead of redacted alike.
    const recordFile = join(mkdtempSync(join(tmpdir(), "lckit-hostile-record-")), "traffic.ndjson");
    const recording = new ExchangeRecording(recordFile);
    const tee = {
      add: (x: Parameters<TrafficJudge["add"]>[0]) => {
        recording.add(x);
        judge.add(x);
      },
    } as TrafficJudge;
    const proxy = await proxyInFront(server.url, tee, 10_000);
    try {
      for (const [i, clientId] of HOSTILE_CLIENTS.slice(0, 2).entries()) {
        const secret = hostileSecret(clientId);
        // One client sends its credentials as Basic (RFC 6749 form-encoded), the other in the body.
        const basic = Buffer.from(`${formEncode(clientId)}:${formEncode(secret)}`).toString("base64");
        const answer = await fetch(`${proxy.baseUrl}/oauth/token`, {
          method: "POST",
          headers:
            i === 0 ? { authorization: `Basic ${basic}`, "content-type": FORM } : { "content-type": FORM },
          body:
            i === 0
              ? "grant_type=client_credentials"
              : `grant_type=client_credentials&client_id=${formEncode(clientId)}&client_secret=${formEncode(secret)}`,
        });
        expect(answer.status).toBe(200);
        const { access_token } = (await answer.json()) as { access_token: string };
        const bearer = { authorization: `Bearer ${access_token}` };
        // The failing healthcheck (503) echoes the credentials into a finding's evidence.
        expect((await fetch(`${proxy.baseUrl}/healthcheck`, { headers: bearer })).status).toBe(503);
        await fetch(`${proxy.rdmUrl}/lookups/acme/_scan?limit=5`, {
          method: "POST",
          headers: { ...bearer, "content-type": "application/json" },
        });
      }
    } finally {
      await proxy.close();
      recording.close();
    }
    const { result, parties } = judge.judgement({ source: "proxy", startedAt: new Date() });
    expect(parties).toEqual(["service", ...HOSTILE_CLIENTS.slice(0, 2).map((c) => `client ${c}`)]);
    // The echo did reach the report (so the leak check is not vacuous), redacted.
    const evidence = JSON.stringify(result.checks.flatMap((c) => c.evidence ?? []));
    expect(evidence).toContain("debug");
    // Each token by its label, as the --record file names it: never the token, never one placeholder for all.
    expect(evidence).toMatch(/Bearer redacted-token-\d+/);
    const root = mkdtempSync(join(tmpdir(), "lckit-hostile-traffic-"));
    const written = writeReport(result, root, "report");
    const files = [
      ...readdirSync(written.dir, { recursive: true, withFileTypes: true })
        .filter((f) => f.isFile())
        .map((f) => join(f.parentPath, f.name)),
      recordFile,
    ];
    // The recording keeps each client's token apart, by label, in the echoes too.
    const recorded = readFileSync(recordFile, "utf8");
    expect(recorded).toContain("redacted-token-1");
    expect(recorded).toContain("redacted-token-2");
    expect(files.map((f) => f.slice(written.dir.length + 1))).toEqual(
      expect.arrayContaining(["report.json", "report.html", "junit.xml"]),
    );
    // Each finding's curl line (Markdown and HTML), resending the exchange with $LCKIT_TOKEN for its token.
    const summary = readFileSync(join(written.dir, "summary.md"), "utf8");
    expect(summary).toContain(
      `curl -sS -i '${server.url}/healthcheck' -H 'authorization: Bearer '"$LCKIT_TOKEN"`,
    );
    const secrets = hostileSecrets(server.tokens);
    expect(server.tokens.length).toBe(2);
    const leaks = files.flatMap((file) =>
      leaksIn(readFileSync(file, "utf8"), secrets).map((form) => `${file}: ${form}`),
    );
    expect(leaks).toEqual([]);
  }, 60_000);
});
