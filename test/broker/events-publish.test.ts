// `lckit events publish` without a broker: option errors name the flag; files and stdout get the seeded
// stream; the manifest written beside it is the generator's.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { generateStream } from "../../src/events/generate/index.ts";
import { captureIo } from "../cli/capture-io.ts";

const dir = mkdtempSync(join(tmpdir(), "lckit-publish-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function publish(...argv: string[]) {
  const io = { ...captureIo(), cwd: dir };
  const code = await main(["events", "publish", ...argv], io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

describe("lckit events publish", () => {
  it.each([
    ["unknown flag", { argv: ["--speed", "3"], flag: /unknown option "--speed"/ }],
    [
      "count not a number",
      { argv: ["--count", "many"], flag: /--count expects an integer >= 0, got "many"/ },
    ],
    ["count without value", { argv: ["--count"], flag: /--count needs a value/ }],
    ["rate not a rate", { argv: ["--rate", "fast"], flag: /--rate expects messages per second/ }],
    [
      "duplicates not a probability",
      { argv: ["--duplicates", "1.5"], flag: /--duplicates expects a probability/ },
    ],
    ["negative reorder window", { argv: ["--reorder", "-2"], flag: /--reorder expects an integer >= 0/ }],
    ["seed not an integer", { argv: ["--seed", "1.5"], flag: /--seed expects an integer/ }],
    [
      "more invalid than count",
      { argv: ["--count", "2", "--invalid", "3"], flag: /--invalid \(3\) cannot exceed --count \(2\)/ },
    ],
    [
      "target of another kind",
      {
        argv: ["--to", "ftp://host/x"],
        flag: /--to expects amqp:\/\/\.\.\. \(AMQP 0-9-1\), amqp1:\/\/.*a FILE\.ndjson/,
      },
    ],
    [
      "unknown payload type",
      { argv: ["--payload", "xml"], flag: /--payload expects snapshot, deltas or mixed/ },
    ],
    ["flag given twice", { argv: ["--count", "1", "--count", "2"], flag: /--count was given twice/ }],
  ])("refuses %s with exit code 2, naming the flag", async (_name, { argv, flag }) => {
    const { code, stderr } = await publish(...argv);
    expect(code).toBe(2);
    expect(stderr).toMatch(flag);
  });

  it("prints its usage for --help", async () => {
    const { code, stdout } = await publish("--help");
    expect(code).toBe(0);
    expect(stdout).toMatch(/Usage: lckit events publish/);
    for (const flag of [
      "--to",
      "--exchange",
      "--routing-key",
      "--count",
      "--rate",
      "--seed",
      "--duplicates",
      "--reorder",
      "--invalid",
    ])
      expect(stdout).toContain(flag);
  });

  it("writes the seeded stream to an NDJSON file and its manifest beside it", async () => {
    const { code, stdout } = await publish(
      "--to=stream.ndjson",
      "--count",
      "80",
      "--seed",
      "12",
      "--duplicates",
      "0.1",
      "--reorder",
      "3",
      "--invalid",
      "4",
      "--payload",
      "deltas",
      "--manifest",
      "manifest.json",
    );
    expect(code).toBe(0);
    const expected = generateStream({
      seed: 12,
      count: 80,
      duplicates: 0.1,
      reorderWindow: 3,
      invalid: { count: 4 },
      payloadType: "deltas",
    });
    expect(stdout).toMatch(/80 message\(s\): 76 valid, 4 invalid/);
    expect(JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"))).toEqual(expected.manifest);
    const lines = readFileSync(join(dir, "stream.ndjson"), "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(80);
    const firstValid = expected.messages.findIndex(
      (_m, i) => !expected.manifest.invalidMessages.some((e) => e.index === i),
    );
    expect(JSON.parse(lines[firstValid] ?? "")).toEqual({
      headers: expected.messages[firstValid]?.headers,
      payload: JSON.parse(expected.messages[firstValid]?.body ?? ""),
    });
  });

  it("--preferred-shapes publishes the stream without legal variety", async () => {
    const plain = await publish(
      "--to",
      "-",
      "--count",
      "400",
      "--seed",
      "4",
      "--payload",
      "mixed",
      "--preferred-shapes",
    );
    expect(plain.code).toBe(0);
    const expected = generateStream({ seed: 4, count: 400, payloadType: "mixed", variety: false });
    expect(
      plain.stdout
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line).payload),
    ).toEqual(expected.messages.map((m) => JSON.parse(m.body)));
    const varied = await publish("--to", "-", "--count", "400", "--seed", "4", "--payload", "mixed");
    expect(varied.stdout).not.toEqual(plain.stdout);
  });

  it(`writes NDJSON to stdout with "-" and keeps the summary on stderr`, async () => {
    const { code, stdout, stderr } = await publish("--to", "-", "--count", "5", "--seed", "2");
    expect(code).toBe(0);
    expect(stdout.trimEnd().split("\n")).toHaveLength(5);
    expect(stderr).toMatch(/published to stdout: 5 message\(s\)/);
  });

  it("answers exit code 3 with the reason when the broker cannot be reached", async () => {
    const { code, stderr } = await publish("--to", "amqp://guest:secret@127.0.0.1:1", "--count", "1");
    expect(code).toBe(3);
    expect(stderr).toMatch(/cannot open amqp:\/\/\*\*\*@127\.0\.0\.1:1/);
    expect(stderr).not.toContain("secret");
  });
});
