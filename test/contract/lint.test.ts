// The OpenAPI documents lint clean with both linters, run by their own binaries as CI runs them.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = join(new URL(".", import.meta.url).pathname, "..", "..");
const bin = (name: string) => join(root, "node_modules", ".bin", name);
const documents = ["openapi/platform.yaml", "openapi/lookup-data.yaml"];

async function runLinter(command: string, args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(command, args, {
      cwd: root,
      env: { ...process.env, REDOCLY_TELEMETRY: "off", NO_COLOR: "1" },
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  }
}

describe("OpenAPI lint", () => {
  it.each([
    [
      "spectral (spectral:oas + .spectral.yaml)",
      { command: "spectral", args: ["lint", "--fail-severity=error", ...documents] },
    ],
    ["redocly (redocly.yaml)", { command: "redocly", args: ["lint", ...documents] }],
  ])("%s reports zero errors", async (_name, { command, args }) => {
    const { code, output } = await runLinter(bin(command), args);
    expect(code, output).toBe(0);
  });
});
