// The help of every command that writes a report folder lists the files the writer writes: derived from
// REPORT_FILES, never kept by hand (a hand-kept list once left out ctrf.json in all three).
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { MANIFEST_FILE } from "../../src/report-folder/manifest.ts";
import { REPORT_FILES } from "../../src/report-folder/write.ts";
import { captureIo } from "./capture-io.ts";

describe("help texts list the report files the writer writes", () => {
  it.each([[["run"]], [["events", "check"]], [["client", "check"]]])("lckit %s --help", async (argv) => {
    const io = captureIo();
    expect(await main([...argv, "--help"], io)).toBe(0);
    const help = io.stdout().replace(/\s+/g, " ");
    for (const file of [...Object.values(REPORT_FILES), MANIFEST_FILE]) expect(help).toContain(file);
  });
});
