// A second `lckit run` against the same `lckit serve`: the sandbox names its control port in every answer,
// and the run resets it there first, so the first run's delete task (delete-task/all-of-tenant empties the
// tenant) does not leave the second one nothing to judge. --keep-sandbox leaves it as it is; a control port
// that does not answer gets the exact reset command.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseServeArgs, serve } from "../../src/cli/commands/serve.ts";
import { main } from "../../src/cli/main.ts";
import { SANDBOX_CONTROL_HEADER } from "../../src/reference/index.ts";
import { resetServedSandbox } from "../../src/target/sandbox-reset.ts";
import { captureIo } from "../cli/capture-io.ts";

const CHECK = "delete-task/all-of-tenant";

async function served(): Promise<{ baseUrl: string; control: string; stop: () => Promise<number> }> {
  const err: string[] = [];
  const io = { ...captureIo(), err: (t: string) => void err.push(t) };
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  const options = parseServeArgs(["--port", "0", "--control-port", "0"]);
  if (typeof options === "string") throw new Error("expected options");
  const done = serve(options, io, stopped);
  for (let i = 0; i < 500 && !err.join("").includes("control "); i++)
    await new Promise((r) => setTimeout(r, 10));
  const said = err.join("");
  return {
    baseUrl: /base_url (\S+)/.exec(said)?.[1] ?? "",
    control: /control +(\S+)/.exec(said)?.[1] ?? "",
    stop: () => {
      stop();
      return done;
    },
  };
}

const env = {
  ACME_ADMIN_ID: "acme-admin",
  ACME_ADMIN_SECRET: "acme-admin-secret",
  ACME_EDITOR_ID: "acme-editor",
  ACME_EDITOR_SECRET: "acme-editor-secret",
  ACME_VIEWER_ID: "acme-viewer",
  ACME_VIEWER_SECRET: "acme-viewer-secret",
};

describe("lckit run against a sandbox lckit serve serves", () => {
  it("resets it first, so a second run judges the delete task again; --keep-sandbox does not", async () => {
    const sandbox = await served();
    try {
      const folder = mkdtempSync(join(tmpdir(), "lckit-served-"));
      writeFileSync(
        join(folder, "target.yaml"),
        [
          "name: served sandbox",
          `baseUrl: ${sandbox.baseUrl}`,
          `rdmUrl: ${sandbox.baseUrl}`,
          "tenant: acme",
          "disposable: true",
          "credentials:",
          "  admin: { clientIdEnv: ACME_ADMIN_ID, clientSecretEnv: ACME_ADMIN_SECRET }",
          "  editor: { clientIdEnv: ACME_EDITOR_ID, clientSecretEnv: ACME_EDITOR_SECRET }",
          "  viewer: { clientIdEnv: ACME_VIEWER_ID, clientSecretEnv: ACME_VIEWER_SECRET }",
        ].join("\n"),
      );
      const run = async (...extra: string[]) => {
        const io = { ...captureIo(), cwd: folder, env };
        const args = ["run", "--target", "target.yaml", "--check", CHECK, "--format", "json", ...extra];
        const code = await main(args, io);
        const result = JSON.parse(io.stdout()) as { checks: { id: string; status: string }[] };
        return { code, status: result.checks.find((c) => c.id === CHECK)?.status, err: io.stderr() };
      };
      const first = await run();
      expect(first.err).toContain(`reset first (POST ${sandbox.control}/reset)`);
      expect(first.status).toBe("passed");
      // The tenant is empty now; the reset brings the loaded data back and the check judges again.
      const second = await run();
      expect(second.err).toContain("reset first");
      expect(second).toMatchObject({ code: 0, status: "passed" });
      // Left as it is, the emptied tenant leaves the check nothing to judge.
      const kept = await run("--keep-sandbox");
      expect(kept.err).not.toContain("reset first");
      expect(kept.status).not.toBe("passed");
    } finally {
      expect(await sandbox.stop()).toBe(0);
    }
  }, 120_000);

  it("a sandbox whose control port does not answer gets the exact reset command; any other target is left alone", async () => {
    const control = "http://127.0.0.1:9";
    const fetchOf =
      (header: string | undefined) =>
      async (request: Request): Promise<Response> => {
        if (request.url.startsWith(control)) throw new TypeError("fetch failed");
        return new Response("", { status: 401, headers: header ? { [SANDBOX_CONTROL_HEADER]: header } : {} });
      };
    const target = { baseUrl: "http://127.0.0.1:8180", rdmUrl: "http://127.0.0.1:8180" };
    expect(await resetServedSandbox(fetchOf(control), target)).toMatchObject({
      status: "not-reset",
      command: `curl -X POST ${control}/reset`,
    });
    expect(await resetServedSandbox(fetchOf(undefined), target)).toBeUndefined();
    // A target off loopback is never probed, nor a control port off loopback followed.
    const remote = { baseUrl: "https://rdm.example.test", rdmUrl: "https://rdm.example.test" };
    expect(await resetServedSandbox(fetchOf(control), remote)).toBeUndefined();
    expect(await resetServedSandbox(fetchOf("http://10.0.0.1:1/"), target)).toBeUndefined();
  });
});
