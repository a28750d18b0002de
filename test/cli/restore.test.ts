// lckit restore: usage errors say what to pass; a journal of another target is refused; --dry-run sends
// nothing and lists what it would put back; a torn last line (the run was killed mid-write) is ignored.
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { RunJournal, readJournal } from "../../src/runner/config-journal.ts";
import { captureIo } from "./capture-io.ts";

const dir = mkdtempSync(join(tmpdir(), "lckit-restore-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

writeFileSync(
  join(dir, "target.yaml"),
  [
    "name: staging",
    "baseUrl: http://127.0.0.1:9",
    "tenant: acme",
    "credentials:",
    "  admin: { clientIdEnv: R_ADMIN_ID, clientSecretEnv: R_ADMIN_SECRET }",
    "",
  ].join("\n"),
);

function journal(name: string, baseUrl: string): string {
  const file = join(dir, name);
  const j = new RunJournal(file, {
    format: "lckit-config-journal",
    version: 1,
    runId: "run-1",
    target: { name: "staging", baseUrl, tenant: "acme" },
    startedAt: new Date(0).toISOString(),
  });
  const first = j.record("token-quota/x", {
    kind: "customer",
    customerId: "cust-acme",
    role: "admin",
    restore: { id: "cust-acme", tenants: ["acme"] },
  });
  j.record("token-quota/x", {
    kind: "client",
    customerId: "cust-acme",
    clientId: "acme-quota",
    role: "admin",
    restore: { accessTokenValidity: 3600 },
  });
  j.record("config/y", {
    kind: "client",
    customerId: "cust-acme",
    clientId: "acme-viewer",
    role: "admin",
    restore: { accessTokenValidity: 60 },
  });
  j.settle(first, "check");
  j.close();
  return file;
}

async function restore(argv: string[]) {
  const io = captureIo();
  io.cwd = dir;
  io.env = { R_ADMIN_ID: "acme-admin", R_ADMIN_SECRET: "acme-admin-secret" };
  const code = await main(["restore", ...argv], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe("lckit restore", () => {
  it.each<[string, string[], RegExp]>([
    ["no journal", ["--target", "target.yaml"], /expected exactly one JOURNAL/],
    ["no target file", ["j.ndjson"], /--target FILE is required: the target file of the run/],
    [
      "a missing journal",
      ["nope.ndjson", "--target", "target.yaml"],
      /cannot read journal .*nope\.ndjson \(ENOENT\)/,
    ],
  ])("exits 2 on %s", async (_name, argv, err) => {
    const got = await restore(argv);
    expect(got.code).toBe(2);
    expect(got.err).toMatch(err);
  });

  it("refuses a journal of another target", async () => {
    journal("other.ndjson", "https://prod.example.com");
    const got = await restore(["other.ndjson", "--target", "target.yaml"]);
    expect(got.code).toBe(2);
    expect(got.err).toMatch(
      /records changes to https:\/\/prod\.example\.com .* points at http:\/\/127\.0\.0\.1:9/,
    );
  });

  it("refuses a file that is not a journal", async () => {
    writeFileSync(join(dir, "notes.ndjson"), '{"op":"change","id":1}\n');
    const got = await restore(["notes.ndjson", "--target", "target.yaml"]);
    expect(got.code).toBe(2);
    expect(got.err).toMatch(/has no header line/);
  });

  it("--dry-run lists what is still changed, newest first, and sends nothing", async () => {
    const file = journal("j.ndjson", "http://127.0.0.1:9");
    // A run killed while writing leaves half a line: it never got to send that change.
    appendFileSync(file, '{"op":"change","id":4,"check":"x","kind":"cust');
    expect(readJournal(file).pending.map((e) => e.id)).toEqual([2, 3]);
    const got = await restore(["j.ndjson", "--target", "target.yaml", "--dry-run"]);
    expect(got.code).toBe(0);
    expect(got.out).toBe(
      "would put back client acme-viewer of customer cust-acme (changed by config/y)\n" +
        "would put back client acme-quota of customer cust-acme (changed by token-quota/x)\n",
    );
  });

  it("exits 3 when the target cannot take the changes back, and keeps them open", async () => {
    const file = journal("refused.ndjson", "http://127.0.0.1:9");
    const got = await restore(["refused.ndjson", "--target", "target.yaml"]);
    expect(got.code).toBe(3);
    expect(got.out).toMatch(
      /NOT RESTORED: PUT \.\.\.\/customers\/cust-acme\/clients with client acme-viewer/,
    );
    expect(got.err).toMatch(/2 of 2 changes could not be put back/);
    expect(readJournal(file).pending).toHaveLength(2);
  });
});
