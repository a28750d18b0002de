// The target file's maxResponseBytes reaches the transport: an answer above it fails the check that asked
// for it, naming the key, and the same run with the default limit passes.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { createReference, type Listening } from "../../src/reference/index.ts";
import { captureIo } from "../cli/capture-io.ts";

const dir = mkdtempSync(join(tmpdir(), "lckit-max-bytes-"));
let listening: Listening;
beforeAll(async () => {
  listening = await createReference().listen({ host: "127.0.0.1", port: 0 });
});
afterAll(async () => {
  await listening.close();
  rmSync(dir, { recursive: true, force: true });
});

function targetFile(name: string, extra: string[]): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      `name: ${name}`,
      `baseUrl: ${listening.baseUrl}`,
      "tenant: acme",
      "credentials:",
      "  viewer: { clientIdEnv: T_VIEWER_ID, clientSecretEnv: T_VIEWER_SECRET }",
      "  admin: { clientIdEnv: T_ADMIN_ID, clientSecretEnv: T_ADMIN_SECRET }",
      ...extra,
      "",
    ].join("\n"),
  );
  return file;
}

async function run(file: string, reportDir: string) {
  const io = captureIo();
  io.env = {
    T_VIEWER_ID: "acme-viewer",
    T_VIEWER_SECRET: "acme-viewer-secret",
    T_ADMIN_ID: "acme-admin",
    T_ADMIN_SECRET: "acme-admin-secret",
  };
  io.cwd = dir;
  const code = await main(
    [
      "run",
      "--target",
      file,
      "--check",
      "lookup-scan/page-within-limit",
      "--runs",
      "2",
      "--report-dir",
      reportDir,
    ],
    io,
  );
  const [runId] = readdirSync(join(dir, reportDir));
  const report = JSON.parse(readFileSync(join(dir, reportDir, String(runId), "report.json"), "utf8"));
  return { code, report };
}

describe("maxResponseBytes from the target file", () => {
  it("fails a check whose answer is larger, naming the key; the default limit passes it", async () => {
    const small = await run(targetFile("small", ["maxResponseBytes: 1024"]), "small");
    expect(small.code).toBe(1);
    const [check] = small.report.checks;
    expect(check).toMatchObject({ id: "lookup-scan/page-within-limit", status: "failed" });
    expect(JSON.stringify(check)).toMatch(/maxResponseBytes/);

    const plain = await run(targetFile("plain", []), "plain");
    expect(plain.code).toBe(0);
    expect(plain.report.checks[0]).toMatchObject({ status: "passed" });
  });
});
