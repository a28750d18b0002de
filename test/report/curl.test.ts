// The curl reproduction of a failing exchange: a shell runs it with exactly the request's method, URL,
// headers and body, every redacted spot read from an environment variable (never a secret value), quotes
// in the body survive; on a real failing run every format carries the line and no token.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Exchange } from "../../src/check/index.ts";
import { main } from "../../src/cli/main.ts";
import { curlFor } from "../../src/report/curl.ts";
import { captureIo } from "../cli/capture-io.ts";

const dir = mkdtempSync(join(tmpdir(), "lckit-curl-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The arguments bash hands to curl for a line (curl replaced by a function that prints them). */
function argsOf(line: string, env: Record<string, string>): string[] {
  const out = execFileSync("bash", ["-c", `curl() { printf '%s\\0' "$@"; }; ${line}`], {
    env: { PATH: process.env.PATH ?? "", ...env },
  }).toString();
  return out.split("\0").slice(0, -1);
}

const exchange = (request: Exchange["request"]): Exchange => ({ request, durationMs: 1 });

describe("curl reproduction", () => {
  it("resends method, URL, headers and body; a bearer token comes from $LCKIT_TOKEN", () => {
    const line = curlFor(
      exchange({
        method: "POST",
        url: "https://api.example.com/lookups/acme/_scan?limit=5&sort=code",
        headers: {
          authorization: "Bearer [redacted]",
          "content-type": "application/json",
          "content-length": "9",
        },
        body: `{"name":"O'Brien $HOME \`id\`"}`,
      }),
    );
    expect(line).not.toMatch(/\[redacted\]/);
    expect(argsOf(line, { LCKIT_TOKEN: "tok-123" })).toEqual([
      "-sS",
      "-i",
      "-X",
      "POST",
      "https://api.example.com/lookups/acme/_scan?limit=5&sort=code",
      "-H",
      "authorization: Bearer tok-123",
      "-H",
      "content-type: application/json",
      "--data-binary",
      `{"name":"O'Brien $HOME \`id\`"}`,
    ]);
  });

  it("Basic client authentication becomes -u from $LCKIT_CLIENT_ID and $LCKIT_CLIENT_SECRET; other secrets $LCKIT_SECRET", () => {
    const line = curlFor(
      exchange({
        method: "POST",
        url: "https://api.example.com/oauth/token",
        headers: { authorization: "Basic [redacted]" },
        body: "grant_type=client_credentials&client_secret=[redacted]",
      }),
    );
    expect(argsOf(line, { LCKIT_CLIENT_ID: "id", LCKIT_CLIENT_SECRET: "s3cret", LCKIT_SECRET: "x" })).toEqual(
      [
        "-sS",
        "-i",
        "-X",
        "POST",
        "https://api.example.com/oauth/token",
        "-u",
        "id:s3cret",
        "--data-binary",
        "grant_type=client_credentials&client_secret=x",
      ],
    );
  });

  it("a failing run shows the line in the terminal, summary.md and report.html, with no token in it", async () => {
    const io = captureIo();
    io.cwd = dir;
    const reportDir = join(dir, "reports");
    const code = await main(
      [
        "run",
        "--check",
        "lookup-scan/order-respected",
        "--fault",
        "scan-ignores-order",
        "--runs",
        "2",
        "--seed",
        "1",
        "--report-dir",
        reportDir,
      ],
      io,
    );
    expect(code).toBe(1);
    expect(io.stdout()).toMatch(
      / {4}curl: {3}curl -sS -i -X 'POST' 'http:\/\/[^']*order=desc[^']*' .*"\$LCKIT_TOKEN"/,
    );
    const folder = join(reportDir, readdirSync(reportDir)[0] as string);
    const summary = readFileSync(join(folder, "summary.md"), "utf8");
    expect(summary).toMatch(/```sh\ncurl -sS -i -X 'POST' .*authorization: Bearer '"\$LCKIT_TOKEN"/);
    expect(readFileSync(join(folder, "report.html"), "utf8")).toMatch(/<b>curl<\/b>/);
    expect(summary).not.toMatch(/Bearer [A-Za-z0-9._-]{8,}/);
  });
});
