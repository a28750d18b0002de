// `lckit pact verify` and `lckit pact check` through main(): exit codes and what they print.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { captureIo } from "../cli/capture-io.ts";
import { startLiveTarget } from "./live-target.ts";

process.env.PACT_DO_NOT_TRACK = "true";

const empty = mkdtempSync(join(tmpdir(), "lckit-pact-empty-"));
afterAll(() => rmSync(empty, { recursive: true, force: true }));

async function run(argv: string[], env: Record<string, string> = {}) {
  const io = captureIo();
  io.env = env;
  const code = await main(["pact", ...argv], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe("lckit pact: usage", () => {
  it.each<[string, string[], number, RegExp]>([
    ["help", ["--help"], 0, /lckit pact verify \[--target FILE\] \[--pact-dir DIR\]/],
    ["verify help", ["verify", "--help"], 0, /lckit pact check \[PATH\.\.\.\]/],
    ["no subcommand", [], 2, /Subcommands:/],
    ["unknown subcommand", ["publish"], 2, /unknown subcommand "publish"/],
    ["unknown verify option", ["verify", "--fault", "x"], 2, /unknown option "--fault"/],
    ["flag without value", ["verify", "--pact-dir"], 2, /--pact-dir needs a value/],
    ["empty pact directory", ["verify", "--pact-dir", empty], 2, /no pact files/],
    ["missing pact directory", ["verify", "--pact-dir", join(empty, "nope")], 2, /no such file or directory/],
    [
      "missing target file",
      ["verify", "--target", join(empty, "target.yaml")],
      2,
      /target file .*no such file/,
    ],
    ["unknown check option", ["check", "--strict"], 2, /unknown option "--strict"/],
    ["check of nothing", ["check", empty], 2, /no pact files/],
    ["check of a non-pact", ["check", "package.json"], 2, /is not a pact file/],
  ])("%s", async (_name, argv, code, message) => {
    const result = await run(argv);
    expect(result.code).toBe(code);
    expect(result.out + result.err).toMatch(message);
  });
});

describe("lckit pact check", () => {
  it("exits 0 for the committed pacts", async () => {
    const result = await run(["check"]);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^consistent: 0 violation\(s\) in \d+ interaction\(s\) of 4 pact file\(s\)$/m);
  });

  it("exits 1 for a contradicting pact and names file, interaction and violation", async () => {
    const result = await run([
      "check",
      "test/pact/fixtures/contradicting-consumer-lookup-data-interface.json",
    ]);
    expect(result.code).toBe(1);
    expect(result.out).toContain(
      'test/pact/fixtures/contradicting-consumer-lookup-data-interface.json: "a version request answered with a number": response /rdm-service: body/rdm-service must be string',
    );
    expect(result.out).toMatch(/^contradicts the contract: 4 violation\(s\)/m);
  });
});

describe("lckit pact verify", () => {
  it("exits 0 when every pact verifies against the embedded reference", async () => {
    const result = await run(["verify"]);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(
      /^verified: (\d+) of \1 interactions in 4 pact file\(s\) against the embedded reference$/m,
    );
  });

  it("exits 1 when a live target breaks a pact, naming the interaction", async () => {
    const live = await startLiveTarget(["version-not-dotted"]);
    try {
      const result = await run(["verify", "--target", live.file], live.env);
      expect(result.code).toBe(1);
      expect(result.out).toContain('FAILED "a version request"');
      expect(result.out).toMatch(
        /^not verified: (\d+) of \d+ interactions .* against target "reference on loopback"$/m,
      );
    } finally {
      await live.close();
    }
  });

  it("exits 2 when the target file names a variable that is not set", async () => {
    const live = await startLiveTarget();
    try {
      const result = await run(["verify", "--target", live.file], {});
      expect(result.code).toBe(2);
      expect(result.err).toMatch(
        /credentials\.admin\.clientIdEnv: environment variable PACT_ADMIN_ID is not set/,
      );
    } finally {
      await live.close();
    }
  });
});
