import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { captureIo } from "./capture-io.ts";

describe("lckit", () => {
  it.each([
    ["--help", { argv: ["--help"], code: 0, stdout: /Usage: lckit <command>/ }],
    ["help", { argv: ["help"], code: 0, stdout: /Commands:/ }],
    ["no command", { argv: [], code: 2, stdout: /Usage: lckit/ }],
  ])("%s prints usage", async (_name, { argv, code, stdout }) => {
    const io = captureIo();
    expect(await main(argv, io)).toBe(code);
    expect(io.stdout()).toMatch(stdout);
  });

  it("names an unknown command, the valid ones and the fix", async () => {
    const io = captureIo();
    expect(await main(["certify"], io)).toBe(2);
    expect(io.stderr()).toMatch(/unknown command "certify"/);
    expect(io.stderr()).toMatch(/run, serve, mock, events, pact/);
    expect(io.stderr()).toMatch(/lckit --help/);
  });

  it.each(["run", "serve", "mock", "events", "pact"])(
    "%s --help answers with its usage and exit code 0",
    async (name) => {
      const io = captureIo();
      expect(await main([name, "--help"], io)).toBe(0);
      expect(io.stdout()).toMatch(/Usage: lckit/);
    },
  );
});
