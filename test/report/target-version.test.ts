// The first screen names the target as it names itself: GET /version as a check of the run was answered,
// taken from the run's exchanges (no request of its own), in report.json, report.html and summary.md.
import { describe, expect, it } from "vitest";
import { renderHtml, renderMarkdown } from "../../src/report/index.ts";
import { runEmbedded } from "../suites/embedded-run.ts";
import { reportValidator } from "./report-schema.ts";

describe("the target's /version answer", () => {
  it("is kept from the service suite's request and shown beside the verdict", async () => {
    const { result } = await runEmbedded({ suites: ["service"], runs: 1 });
    expect(result.targetVersion?.status).toBe(200);
    expect(result.targetVersion?.body).toMatch(/"rdm-service"/);
    const validate = reportValidator();
    expect(validate(JSON.parse(JSON.stringify(result))), JSON.stringify(validate.errors)).toBe(true);
    const shown = `200 ${result.targetVersion?.body}`;
    expect(renderHtml(result)).toContain(shown.replace(/"/g, "&quot;"));
    expect(renderMarkdown(result)).toContain("rdm-service");
  });

  it("is absent when no check asked", async () => {
    const { result } = await runEmbedded({ suites: ["autopilot-scan"], runs: 1 });
    expect(result.targetVersion).toBeUndefined();
  });
});
