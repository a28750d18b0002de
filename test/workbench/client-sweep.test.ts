// lckit client check --variants: the command once per provider choice, each against its own sandbox. The
// two example clients send the next-page scroll id in different legal encodings, so each works with some
// providers and not others, and the sweep names the choice and the refusal that broke each.
import { beforeAll, describe, expect, it } from "vitest";
import { packagePath } from "../../src/package-root.ts";
import { VARIANTS } from "../../src/reference/index.ts";
import { clientSweep, legalVariants } from "../../src/workbench/client-sweep.ts";
import { renderSweepMarkdown } from "../../src/workbench/sweep-summary.ts";
import { ensurePythonRequests } from "./python.ts";

const NODE_CLIENT = packagePath("examples", "clients", "lookup-client.mjs");
const PYTHON_CLIENT = packagePath("examples", "clients", "lookup_client.py");

let python = "/usr/bin/python3";
beforeAll(() => {
  python = ensurePythonRequests();
}, 300_000);

describe("a variant sweep", () => {
  it("--variants all covers every legal provider choice of the reference", () => {
    expect(legalVariants()).toEqual(VARIANTS.map((v) => v.name));
  });

  it.each([
    // The Node client sends {"scrollId": ...}; the Python client sends the raw id.
    ["node", [process.execPath, NODE_CLIENT], "scroll-id-raw-text-only", "scroll-id-object-only"],
    ["python", ["python", PYTHON_CLIENT], "scroll-id-object-only", "scroll-id-raw-text-only"],
  ] as const)(
    "the %s client passes the default and the encoding it sends, and fails the one it does not, naming the refusal",
    async (_language, argv, breaks, works) => {
      const sweep = await clientSweep({
        argv: argv[0] === "python" ? [python, argv[1]] : [...argv],
        clientId: "nightly-sync",
        variants: [undefined, breaks, works],
        parallel: 2,
        timeoutMs: 60_000,
      });
      expect(sweep.runs.map(({ variant, run }) => [variant, run.exitCode])).toEqual([
        ["default", 0],
        [breaks, 1],
        [works, 0],
      ]);
      const broken = sweep.runs[1]?.run;
      expect(broken?.result.client?.variant).toBe(breaks);
      // The command failed under a legal choice; no caller rule was broken: the client's assumption was.
      expect(broken?.result.checks.filter((c) => c.status === "failed").map((c) => c.id)).toEqual([
        "client/command",
      ]);
      expect(broken?.outcome.exitCode).toBe(1);
      expect(broken?.firstRefusal).toMatch(/^400 to POST \/lookups\/shop\/_scan: /);
      expect(sweep.passed).toBe(2);
      expect(sweep.exitCode).toBe(1);
      // The sweep's summary (the Action's job summary): one row per choice, the failed one with its refusal.
      const rows = renderSweepMarkdown(sweep)
        .split("\n")
        .filter((line) => line.startsWith(`| ${breaks.replace(/-/g, "-")} `));
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatch(/\| FAILED \| 1 \| none \| the choice: .*first refusal: 400 to POST/);
    },
    60_000,
  );
});
