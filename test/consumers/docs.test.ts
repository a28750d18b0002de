// docs/consumers.md says what the code does: the refusal status and body of lckit mock, the bundles that
// exist, the layers' files.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { legalVariants } from "../../src/commands/client/sweep.ts";
import { REFUSAL_STATUS } from "../../src/mock/index.ts";
import { describeViolations, refusalBody } from "../../src/mock/refusal-proxy.ts";

const root = join(new URL(".", import.meta.url).pathname, "..", "..");
const doc = readFileSync(join(root, "docs", "consumers.md"), "utf8");

describe("docs/consumers.md", () => {
  it("shows the refusal body lckit mock sends, with its fields and status", () => {
    const sample = /```json\n(\{\n {2}"type": "urn:lckit:mock[\s\S]*?)\n```/.exec(doc)?.[1];
    expect(sample).toBeDefined();
    const shown = JSON.parse(sample ?? "{}") as Record<string, unknown>;
    const url = new URL("http://mock.test/configuration/acme/autopilot/stats/_scan?limit=500");
    const real = refusalBody(
      describeViolations(
        [
          {
            location: ["request", "query", "limit"],
            code: "maximum",
            message: "Request query parameter limit must be <= 100",
          },
        ],
        url,
        {},
        "",
      ),
    );
    expect(Object.keys(shown).sort()).toEqual(Object.keys(real).sort());
    expect(shown.status).toBe(REFUSAL_STATUS);
    expect(shown.violations).toEqual(real.violations);
    expect(shown.detail).toBe(real.detail);
    expect(shown.error).toBe(real.error);
    expect(doc).toContain(`gets **${REFUSAL_STATUS}**`);
  });

  it("shows a line of the stream a consumer reads, in the shape the check writes", () => {
    const sample = /```json\n {3}(\{"headers"[\s\S]*?)\n {3}```/.exec(doc)?.[1];
    expect(sample).toBeDefined();
    const line = JSON.parse(sample ?? "{}") as {
      headers: Record<string, unknown>;
      payload: { type?: string };
    };
    expect(Object.keys(line)).toEqual(["headers", "payload"]);
    expect(Object.keys(line.headers)).toEqual(["tenantId", "eventType", "sourceObjectUri", "objectVersion"]);
    expect(line.payload.type).toBe(line.headers.eventType);
  });

  it("counts the provider choices of a sweep as the kit runs them (the default, every variant and world)", () => {
    const counts = [...doc.matchAll(/client check over (\d+) provider choice/g)].map((m) => Number(m[1]));
    expect(counts.length).toBeGreaterThan(0);
    for (const count of counts) expect(count).toBe(legalVariants().length + 1);
  });

  it("names files that exist", () => {
    for (const path of [
      "openapi/dist/platform.yaml",
      "openapi/dist/lookup-data.yaml",
      "openapi/dist/kit-preferences/lookup-data.yaml",
      "src/mock/realistic-data.ts",
      "test/consumers/mock-refusals.test.ts",
      "test/consumers/mock-dynamic.test.ts",
    ]) {
      expect(doc).toContain(path);
      expect(existsSync(join(root, path)), path).toBe(true);
    }
  });
});
