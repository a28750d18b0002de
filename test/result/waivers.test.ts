// Waivers (--baseline): real runs of the embedded reference with a seeded fault that fails two MUST
// checks. Waived, they stay "failed" but are shown as waived in all four formats and exit 0; a failure
// the baseline does not name fails the job; an expired waiver fails again; --baseline-update writes a
// baseline that makes the next run pass; a waived MUST failure never yields a certificate.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { faultEntry } from "../../src/reference/faults.ts";
import type { RunResult } from "../../src/result/model.ts";
import { BaselineError, isExpired, parseBaseline } from "../../src/result/waivers.ts";
import { captureIo } from "../cli/capture-io.ts";
import { reportValidator } from "../report/report-schema.ts";

const dir = mkdtempSync(join(tmpdir(), "lckit-waivers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const validate = reportValidator();

const failing = ["lookup-scan/order-respected", "lookup-scan/sort-fields-accepted"];
const FAULT = "scan-ignores-order" as const;
let counter = 0;

async function run(extra: string[], selection = ["--check", "lookup-scan/*"]) {
  const reportDir = join(dir, `run-${++counter}`);
  const io = captureIo();
  io.cwd = dir;
  io.env = { USER: "ci-bot" };
  const code = await main(
    [
      "run",
      ...selection,
      "--runs",
      "3",
      "--seed",
      "7",
      "--fault",
      FAULT,
      "--report-dir",
      reportDir,
      ...extra,
    ],
    io,
  );
  const [runId] = readdirSync(reportDir);
  const folder = join(reportDir, runId as string);
  const file = (name: string) => readFileSync(join(folder, name), "utf8");
  return { code, err: io.stderr(), result: JSON.parse(file("report.json")) as RunResult, file };
}

function baseline(name: string, waivers: { check: string; expires?: string }[]): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    [
      "waivers:",
      ...waivers.map(
        (w) =>
          `  - check: ${w.check}\n    reason: descending order not supported yet (ticket 42)\n    who: jane@example.com\n    expires: ${w.expires ?? "2099-12-31"}`,
      ),
      "",
    ].join("\n"),
  );
  return path;
}

describe("lckit run --baseline", () => {
  it("without a baseline the fault fails the job (exit 1)", async () => {
    const { code, result } = await run([]);
    expect(code).toBe(1);
    expect(
      result.checks
        .filter((c) => c.status === "failed")
        .map((c) => c.id)
        .sort(),
    ).toEqual(failing);
  });

  it("waived failures do not fail the job, stay NOT CONFORMANT and show as waived in every format", async () => {
    const file = baseline(
      "all.yaml",
      failing.map((check) => ({ check })),
    );
    const { code, result, file: read } = await run(["--baseline", file]);
    expect(code).toBe(0);
    expect(result.verdict).toBe("NOT CONFORMANT");
    expect(result.verdictReason).toMatch(/known failure waived by the baseline all\.yaml/);
    expect(validate(result), JSON.stringify(validate.errors)).toBe(true);
    expect(result.baseline).toMatchObject({ file: "all.yaml", waivers: 2, expired: [], unused: [] });
    expect(result.baseline?.waived.sort()).toEqual(failing);
    for (const id of failing) {
      const c = result.checks.find((x) => x.id === id);
      expect(c?.status).toBe("failed");
      expect(c?.waiver).toMatchObject({ who: "jane@example.com", expires: "2099-12-31", expired: false });
    }
    const junit = read("junit.xml");
    expect(junit).not.toMatch(/<failure/);
    expect(junit).toMatch(/WAIVED: MUST check failed, a known failure of the baseline \(descending order/);
    expect(read("summary.md")).toMatch(/\*\*WAIVED\*\* \(until 2099-12-31, jane@example\.com/);
    expect(read("report.html")).toMatch(/<span class="badge o-waived">waived<\/span>/);
  });

  it("a failure the baseline does not name fails the job", async () => {
    const file = baseline("one.yaml", [{ check: failing[1] as string }, { check: "lookup-scan/no-such" }]);
    const { code, result, file: read } = await run(["--baseline", file]);
    expect(code).toBe(1);
    expect(result.baseline?.waived).toEqual([failing[1]]);
    expect(result.baseline?.unused).toEqual(["lookup-scan/no-such"]);
    expect(read("junit.xml").match(/<failure /g)?.length).toBe(1);
  });

  it("an expired waiver fails again, shown as expired", async () => {
    const file = baseline("expired.yaml", [
      { check: failing[0] as string, expires: "2020-01-01" },
      { check: failing[1] as string },
    ]);
    const { code, result, file: read } = await run(["--baseline", file]);
    expect(code).toBe(1);
    expect(result.baseline?.expired).toEqual([failing[0]]);
    expect(result.checks.find((c) => c.id === failing[0])?.waiver?.expired).toBe(true);
    expect(read("summary.md")).toMatch(/\*\*WAIVER EXPIRED\*\*/);
    expect(read("report.html")).toMatch(/waiver EXPIRED until 2020-01-01/);
    expect(validate(result), JSON.stringify(validate.errors)).toBe(true);
  });

  it("--baseline-update writes a baseline under which the same failures pass the job", async () => {
    const file = join(dir, "generated.yaml");
    const first = await run(["--baseline-update", file]);
    expect(first.code).toBe(1);
    const written = parseBaseline(readFileSync(file, "utf8"), "generated.yaml");
    expect(written.waivers.map((w) => w.check).sort()).toEqual(failing);
    expect(written.waivers.every((w) => w.who === "ci-bot" && /seen in run/.test(w.reason))).toBe(true);
    const second = await run(["--baseline", file]);
    expect(second.code).toBe(0);
  });

  it("a waived MUST failure never gives a certificate", async () => {
    const file = baseline(
      "certify.yaml",
      // A whole run: the fault fails the autopilot twins of the two checks as well, and at the certified
      // run's deep depth the explorer's longer sequences reach a descending scan too.
      [...new Set([...faultEntry(FAULT).caughtBy, "explore/reads"])].map((check) => ({ check })),
    );
    const { code, result, err, file: read } = await run(["--baseline", file, "--certify"], []);
    expect(code).toBe(0);
    expect(result.verdict).toBe("NOT CONFORMANT");
    expect(result.certification?.certified).toBe(false);
    expect(result.certification?.reason).toMatch(/waived by the baseline.*never certified/);
    expect(err).toMatch(/no certificate/);
    expect(read("summary.md")).toMatch(/\*\*Certificate refused\*\*/);
  }, 60_000);

  it.each([
    ["no waivers list", "checks: []\n", /expected a mapping with a "waivers" list/],
    [
      "a missing who",
      "waivers:\n  - check: a/b\n    reason: r\n    expires: 2030-01-01\n",
      /waivers\[0\]: "who" is missing/,
    ],
    [
      "a bad date",
      "waivers:\n  - check: a/b\n    reason: r\n    who: w\n    expires: soon\n",
      /"expires" expects a date YYYY-MM-DD, got "soon"/,
    ],
    [
      "a check waived twice",
      "waivers:\n  - {check: a/b, reason: r, who: w, expires: 2030-01-01}\n  - {check: a/b, reason: r, who: w, expires: 2030-01-01}\n",
      /waivers\[1\]: check "a\/b" is waived twice/,
    ],
  ])("a baseline with %s is refused, naming the entry", (_name, text, message) => {
    expect(() => parseBaseline(text, "b.yaml")).toThrow(BaselineError);
    expect(() => parseBaseline(text, "b.yaml")).toThrow(message);
  });

  it("a bad baseline is a usage error before anything runs (exit 2)", async () => {
    writeFileSync(join(dir, "bad.yaml"), "waivers: 3\n");
    const io = captureIo();
    io.cwd = dir;
    const code = await main(["run", "--baseline", "bad.yaml", "--report-dir", join(dir, "never")], io);
    expect(code).toBe(2);
    expect(io.stderr()).toMatch(/--baseline bad\.yaml: expected a mapping with a "waivers" list/);
  });

  it("a waiver holds through its expiry day (UTC) and not after", () => {
    const w = { check: "a", reason: "r", who: "w", expires: "2030-06-01" };
    expect(isExpired(w, new Date("2030-06-01T23:59:59Z"))).toBe(false);
    expect(isExpired(w, new Date("2030-06-02T00:00:00Z"))).toBe(true);
  });
});
