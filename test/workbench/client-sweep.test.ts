// lckit client check --variants: the command once per provider choice, each against its own sandbox. The
// two example clients send the next-page scroll id in different legal encodings, so each works with some
// providers and not others, and the sweep names the choice and the refusal that broke each.
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { type ClientSweepRun, clientSweep, legalVariants } from "../../src/commands/client/sweep.ts";
import { renderSweepMarkdown } from "../../src/commands/client/sweep-markdown.ts";
import {
  progressLines,
  type SweepChoice,
  type SweepDocument,
  sweepChoice,
  sweepClosing,
  whyFailed,
} from "../../src/commands/client/sweep-report.ts";
import { packagePath } from "../../src/package-root.ts";
import { SANDBOX_WORLDS, VARIANTS } from "../../src/reference/index.ts";
import type { SweepOutput } from "../../src/report/sweep.ts";
import { captureIo } from "../cli/capture-io.ts";
import { ensurePythonRequests } from "./python.ts";

const NODE_CLIENT = packagePath("examples", "clients", "lookup-client.mjs");
const PYTHON_CLIENT = packagePath("examples", "clients", "lookup_client.py");

let python = "/usr/bin/python3";
beforeAll(() => {
  python = ensurePythonRequests();
}, 300_000);

describe("a variant sweep", () => {
  it("--variants all covers every legal provider choice of the reference, and the worlds of the sweep", () => {
    expect(legalVariants()).toEqual([...VARIANTS, ...SANDBOX_WORLDS].map((v) => v.name));
  });

  it.each([
    // The Node client sends {"scrollId": ...}; the Python client sends the raw id. Each speaks one encoding.
    ["node", [process.execPath, NODE_CLIENT], "scroll-id-raw-text-only", "scroll-id-object-only"],
    ["python", ["python", PYTHON_CLIENT], "scroll-id-object-only", "scroll-id-raw-text-only"],
  ] as const)(
    "the %s client, correct, speaks one encoding: under the other it gets a SHOULD finding naming the choice, the point the document does not show and the refusal, and passes",
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
        [breaks, 0],
        [works, 0],
      ]);
      const broken = sweep.runs[1]?.run;
      expect(broken?.result.client?.variant).toBe(breaks);
      // The command failed under a legal choice only: its own check, at SHOULD; no caller rule broken.
      const failed = broken?.result.checks.filter((c) => c.status === "failed");
      expect(failed?.map((c) => [c.id, c.level])).toEqual([["client/command", "SHOULD"]]);
      expect(failed?.[0]?.requirements).toEqual(["CALLER-CHOICE-01"]);
      expect(failed?.[0]?.message).toMatch(
        new RegExp(
          `^your command failed \\(exit 1\\): the command exited with 1; it breaks under ${breaks} only \\(under the default it exited 0\\): .*The document does not show encoding of the scroll identifier in the next-page request body, so a provider may choose this; a profile pins it \\(--require-choice ${breaks} makes this a MUST failure\\)`,
        ),
      );
      // Every MUST rule it had opportunities for passed (the command stopped early: some had none).
      expect(broken?.result.verdict).not.toBe("NOT CONFORMANT");
      expect(broken?.outcome.exitCode).toBe(1);
      expect(broken?.firstRefusal).toMatch(/^400 to POST \/lookups\/shop\/_scan: /);
      expect(sweep.passed).toBe(3);
      expect(sweep.exitCode).toBe(0);
      // The sweep's summary (the Action's job summary) still names the choice and the refusal.
      const rows = renderSweepMarkdown(sweep)
        .split("\n")
        .filter((line) => line.startsWith(`| ${breaks} `));
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatch(
        /\| passed, SHOULD: fails under this choice only \| 1 \| none \| the choice: .*first refusal: 400 to POST/,
      );
      const line = progressLines(sweep.runs[1] as ClientSweepRun, 2, 3);
      expect(line).toMatch(new RegExp(`^\\[2/3\\] WARN ${breaks} +command exit 1`));
      expect(line).toMatch(
        /SHOULD: your command fails under this choice only \(the default passed\); the document does not show encoding of the scroll identifier/,
      );
      expect(line).toMatch(/first refusal: 400 to POST/);
      expect(sweepClosing(sweep)).toMatch(new RegExp(`SHOULD: your command fails under ${breaks} only`));
      expect(sweepChoice(sweep.runs[1] as ClientSweepRun).dependsOnChoice?.silentPoint).toMatch(
        /^encoding of the scroll identifier/,
      );
    },
    60_000,
  );

  it("a choice the team requires (--require-choice) makes the same failure a MUST failure again", async () => {
    const sweep = await clientSweep({
      argv: [process.execPath, NODE_CLIENT],
      clientId: "nightly-sync",
      variants: [undefined, "scroll-id-raw-text-only"],
      requiredChoices: ["scroll-id-raw-text-only"],
      parallel: 1,
      timeoutMs: 60_000,
    });
    const run = sweep.runs[1]?.run;
    const command = run?.result.checks.find((c) => c.id === "client/command");
    expect([command?.status, command?.level]).toEqual(["failed", "MUST"]);
    expect(command?.message).toMatch(/a choice you require \(--require-choice\)/);
    expect(run?.exitCode).toBe(1);
    expect(sweep.exitCode).toBe(1);
  }, 60_000);

  it("without the default beside it, a choice's failure stays MUST: nothing shows the command passes elsewhere", async () => {
    const sweep = await clientSweep({
      argv: [process.execPath, NODE_CLIENT],
      clientId: "nightly-sync",
      variants: ["scroll-id-raw-text-only"],
      parallel: 1,
      timeoutMs: 60_000,
    });
    expect(sweep.runs[0]?.run.result.checks.find((c) => c.id === "client/command")?.level).toBe("MUST");
    expect(sweep.exitCode).toBe(1);
  }, 60_000);

  it("a faulty client is still caught under the choice: its MUST rule judges every choice's traffic", async () => {
    const sweep = await clientSweep({
      argv: [process.execPath, NODE_CLIENT],
      clientId: "nightly-sync",
      env: { ...process.env, FAULT: "first-body" },
      variants: [undefined, "scroll-id-raw-text-only"],
      parallel: 1,
      timeoutMs: 60_000,
    });
    for (const { run } of sweep.runs) {
      const rule = run.result.checks.find((c) => c.id === "client/scan-first-request-without-body");
      expect([rule?.status, rule?.level]).toEqual(["failed", "MUST"]);
      expect(run.exitCode).toBe(1);
    }
  }, 60_000);
});

describe("lckit client check --variants: a sweep CI can read", () => {
  it("reports each choice as it finishes, before the next one starts, with how many have finished", async () => {
    const log = join(mkdtempSync(join(tmpdir(), "lckit-sweep-order-")), "order.log");
    const events: string[] = [];
    await clientSweep({
      argv: [
        process.execPath,
        "-e",
        `require("node:fs").appendFileSync(${JSON.stringify(log)}, "start " + process.env.LCKIT_VARIANT + "\\n")`,
      ],
      variants: [undefined, "short-pages", "lean-records"],
      parallel: 1,
      timeoutMs: 30_000,
      onFinished: (entry, finished, total) => {
        appendFileSync(log, `finished ${entry.variant} ${finished}/${total}\n`);
        events.push(entry.variant);
      },
    });
    expect(readFileSync(log, "utf8").trim().split("\n")).toEqual([
      "start default",
      "finished default 1/3",
      "start short-pages",
      "finished short-pages 2/3",
      "start lean-records",
      "finished lean-records 3/3",
    ]);
    expect(events).toEqual(["default", "short-pages", "lean-records"]);
  }, 60_000);

  const choices = ["default", "scroll-id-raw-text-only"];
  async function sweep(format: "text" | "json") {
    const io = captureIo();
    const dir = mkdtempSync(join(tmpdir(), "lckit-sweep-"));
    const code = await main(
      [
        "client",
        "check",
        "--client",
        "nightly-sync",
        "--variants",
        choices.join(","),
        // The team's deployment pins the encoding it does not send: its failure there is a MUST failure.
        "--require-choice",
        "scroll-id-raw-text-only",
        "--parallel",
        "2",
        "--format",
        format,
        "--report-dir",
        dir,
        "--",
        process.execPath,
        NODE_CLIENT,
      ],
      io,
    );
    const [sweepDir] = readdirSync(dir).filter((name) => name.startsWith("sweep-"));
    return { code, io, dir, sweepDir: join(dir, sweepDir ?? "none") };
  }

  it("prints a line per choice as it finishes with a progress count, and why a choice failed", async () => {
    const { code, io, dir, sweepDir } = await sweep("text");
    expect(code).toBe(1);
    const out = io.stdout();
    const progress = out.split("\n").filter((line) => /^\[\d\/2\] /.test(line));
    expect(progress.map((line) => line.slice(0, 6)).sort()).toEqual(["[1/2] ", "[2/2] "]);
    expect(progress.find((line) => line.includes(" default "))).toMatch(/\] ok +default +command exit 0/);
    const failed = out.slice(out.indexOf("FAIL scroll-id-raw-text-only"));
    expect(failed).toMatch(
      /^FAIL scroll-id-raw-text-only +command exit 1 \(\d+\.\d s\)\n +the choice: a next-page body is read as the raw scroll id/,
    );
    expect(failed).toMatch(/\n +first refusal: 400 to POST \/lookups\/shop\/_scan: /);
    expect(out).toContain(
      "client check over 2 provider choice(s): 1 passed, 1 did not (scroll-id-raw-text-only)",
    );
    // Everything of the sweep in one folder: a folder per choice, named by it, beside the sweep's files.
    expect(readdirSync(dir)).toEqual([sweepDir.slice(dir.length + 1)]);
    expect(readdirSync(sweepDir).sort()).toEqual(
      [...choices, "junit.xml", "summary.md", "sweep.json"].sort(),
    );
    for (const choice of choices) {
      for (const file of [
        "report.json",
        "junit.xml",
        "summary.md",
        "exchanges.ndjson",
        "command.log",
        "manifest.json",
      ])
        expect({ choice, file, there: existsSync(join(sweepDir, choice, file)) }).toEqual({
          choice,
          file,
          there: true,
        });
      // The command's own output, per choice.
      expect(readFileSync(join(sweepDir, choice, "command.log"), "utf8")).toMatch(/^lookups \d+ \(\d+\)/m);
    }
    expect(readFileSync(join(sweepDir, "scroll-id-raw-text-only", "command.log"), "utf8")).toContain(
      "lookups 100 (400)",
    );
    expect(io.stderr()).toContain(`report: ${sweepDir}`);
  }, 120_000);

  it("writes sweep.json and one junit.xml whose test cases name the choice", async () => {
    const { sweepDir } = await sweep("text");
    const document = JSON.parse(readFileSync(join(sweepDir, "sweep.json"), "utf8")) as SweepDocument;
    expect(document).toMatchObject({
      kind: "lckit-client-sweep",
      choices: 2,
      passed: 1,
      failed: 1,
      exitCode: 1,
    });
    expect(document.runs.map((r) => [r.choice, r.outcome, r.commandExit, r.folder, r.brokenRules])).toEqual([
      ["default", "passed", 0, "default", []],
      ["scroll-id-raw-text-only", "failed", 1, "scroll-id-raw-text-only", []],
    ]);
    expect(document.runs[1]?.why).toMatch(/^the choice: .*; first refusal: 400 to POST /);
    expect(document.runs[0]?.why).toBeUndefined();
    // docs/consumers.md shows sweep.json with the very fields it has.
    const docs = readFileSync(packagePath("docs", "consumers.md"), "utf8");
    const shown = /\n( +)```json\n(\1\{\n\1 {2}"kind": "lckit-client-sweep"[\s\S]*?)\n\1```/.exec(docs);
    const sample = JSON.parse((shown?.[2] ?? "").replaceAll(`\n${shown?.[1]}`, "\n")) as SweepDocument;
    expect(Object.keys(sample).sort()).toEqual(Object.keys(document).sort());
    expect(Object.keys(sample.runs[0] ?? {}).sort()).toEqual(Object.keys(document.runs[1] ?? {}).sort());
    // ... and the values a run of that choice has (its command failed: the run is NOT CONFORMANT).
    const held = (run: SweepChoice | undefined) => {
      const { choice, outcome, verdict, exitCode, commandExit, signal, timedOut, brokenRules, folder } =
        run ?? ({} as SweepChoice);
      return { choice, outcome, verdict, exitCode, commandExit, signal, timedOut, brokenRules, folder };
    };
    expect(held(sample.runs[0])).toEqual(held(document.runs[1]));
    const junit = readFileSync(join(sweepDir, "junit.xml"), "utf8");
    const names = [...junit.matchAll(/<testcase name="([^"]+)"/g)].map((m) => m[1] as string);
    expect(new Set(names).size).toBe(names.length);
    for (const choice of choices) {
      expect(names).toContain(`${choice} · command`);
      // The command's own check (client/command) is that test case, not a second one.
      expect(names).not.toContain(`${choice} · client/command`);
      expect(names).toContain(`${choice} · client/bearer-on-every-request`);
    }
    // The choice whose command failed is a failed test case, with the tail of its output.
    expect(junit).toMatch(
      /<testcase name="scroll-id-raw-text-only · command"[^>]*>\s*<failure message="command exit 1; the choice: /,
    );
    expect(junit).toContain("lookups 100 (400)");
    expect(junit).toContain("your command failed (exit 1)");
    // One failed test case for the one failed choice (its command); the name says which choice did not pass.
    expect(junit).toMatch(
      /<testsuites name="lckit client check over 2 provider choice\(s\): 1 passed, 1 did not \(scroll-id-raw-text-only\)" tests="\d+" failures="1" /,
    );
    // Only attributes the common JUnit XSD (junit-10.xsd) allows, as the runs' own junit.xml.
    const attributes = (element: string) =>
      new Set(
        [...junit.matchAll(new RegExp(`<${element}\\s([^>]*)>`, "g"))].flatMap(([, attrs]) =>
          [...(attrs ?? "").matchAll(/([\w-]+)="/g)].map((m) => m[1]),
        ),
      );
    expect([...attributes("testsuites")].sort()).toEqual(["errors", "failures", "name", "tests", "time"]);
    expect([...attributes("testsuite")].sort()).toEqual([
      "errors",
      "failures",
      "name",
      "skipped",
      "tests",
      "time",
      "timestamp",
    ]);
    expect([...attributes("testcase")].sort()).toEqual(["classname", "name", "time"]);
  }, 120_000);

  it("--format json: the sweep on stdout (each choice with why it failed and its full result), progress on stderr", async () => {
    const { code, io, sweepDir } = await sweep("json");
    expect(code).toBe(1);
    const document = JSON.parse(io.stdout()) as SweepOutput<SweepDocument>;
    expect(document.folder).toBe(sweepDir);
    expect(document.runs.map((r) => r.choice)).toEqual(choices);
    expect(document.runs[1]?.why).toMatch(/^the choice: /);
    expect(document.runs.every((r) => typeof r.result.runId === "string")).toBe(true);
    expect(io.stderr()).toMatch(/^\[[12]\/2\] FAIL scroll-id-raw-text-only/m);
  }, 120_000);
});

/** Each new provider choice, and the wrong assumption about providers (the example clients' FAULT) it breaks. */
const ASSUMPTIONS = [
  ["short-pages", "short-page-is-last"],
  ["lean-records", "assumes-full-records"],
  ["rich-records", "strict-records"],
] as const;

describe("short pages, lean records, rich records: legal provider choices a sweep proves a client against", () => {
  it("are listed by lckit serve --help-variants, each with the point the document leaves open", async () => {
    const io = captureIo();
    expect(await main(["serve", "--help-variants"], io)).toBe(0);
    for (const [variant] of ASSUMPTIONS)
      expect(io.stdout()).toMatch(new RegExp(`^${variant} +\\S.*\\n +\\(.+\\)$`, "m"));
  });

  const languages = {
    node: () => [process.execPath, NODE_CLIENT],
    python: () => [python, PYTHON_CLIENT],
  } as const;

  it.each(Object.entries(languages))(
    "the correct %s client works with every one of them",
    async (_language, argv) => {
      const sweep = await clientSweep({
        argv: [...argv()],
        clientId: "nightly-sync",
        variants: ASSUMPTIONS.map(([variant]) => variant),
        parallel: 2,
        timeoutMs: 60_000,
      });
      expect(sweep.runs.map(({ variant, run }) => [variant, run.exitCode, run.outcome.exitCode])).toEqual(
        ASSUMPTIONS.map(([variant]) => [variant, 0, 0]),
      );
    },
    120_000,
  );

  it.each(
    ASSUMPTIONS.flatMap(([variant, fault]) =>
      Object.keys(languages).map((language) => [variant, fault, language] as const),
    ),
  )(
    "%s breaks the client that assumes otherwise (FAULT=%s, %s), which passes the default",
    async (variant, fault, language) => {
      const sweep = await clientSweep({
        argv: [...languages[language as keyof typeof languages]()],
        clientId: "nightly-sync",
        env: { ...process.env, FAULT: fault },
        variants: [undefined, variant],
        parallel: 2,
        timeoutMs: 60_000,
      });
      // A short page taken for the end breaks a MUST rule under the choice (exit 1); an assumption about
      // which record fields come breaks only the command, under a choice the document leaves open (SHOULD).
      expect(
        sweep.runs.map(({ variant: choice, run }) => [choice, run.exitCode, run.outcome.exitCode]),
      ).toEqual([
        ["default", 0, 0],
        [variant, variant === "short-pages" ? 1 : 0, 1],
      ]);
      const broken = sweep.runs[1];
      // The command's own check fails at SHOULD (it passed under the default); a short page taken for the end
      // is named by the sweep's rule of differences, with both runs' figures, and the scroll left by the
      // per-scroll rule.
      expect(
        broken?.run.result.checks.filter((c) => c.status === "failed").map((c) => [c.id, c.level]),
      ).toEqual(
        variant === "short-pages"
          ? [
              ["client/command", "SHOULD"],
              ["client/scan-read-to-end", "SHOULD"],
              ["client/scan-read-under-every-choice", "MUST"],
            ]
          : [["client/command", "SHOULD"]],
      );
      if (variant === "short-pages")
        expect(
          broken?.run.result.checks.find((c) => c.id === "client/scan-read-under-every-choice")?.message,
        ).toMatch(
          /POST \/lookups\/shop\/_scan: under the provider choice short-pages your client read 25 records and stopped after the answer at #\d+, which carried 25 records \(limit=100\) and a scrollId it never passed on; under the default the same command read 142 records to the end/,
        );
      expect(broken && whyFailed(broken)).toMatch(/^the choice: /);
    },
    120_000,
  );
});

describe("a provider that gives every page a new scrollId (scroll-id-per-page)", () => {
  const languages = {
    node: () => [process.execPath, NODE_CLIENT],
    python: () => [python, PYTHON_CLIENT],
  } as const;

  it.each(Object.keys(languages))(
    "the %s client that keeps the first answer's id passes the default and is named under it by the scroll rule",
    async (language) => {
      const run = (fault: string) =>
        clientSweep({
          argv: [...languages[language as keyof typeof languages]()],
          clientId: "nightly-sync",
          env: { ...process.env, FAULT: fault },
          variants: [undefined, "scroll-id-per-page"],
          parallel: 2,
          timeoutMs: 60_000,
        });
      const correct = await run("");
      expect(correct.runs.map(({ variant, run: r }) => [variant, r.exitCode])).toEqual([
        ["default", 0],
        ["scroll-id-per-page", 0],
      ]);
      const faulty = await run("first-scroll-id");
      expect(faulty.runs[0]?.run.exitCode).toBe(0);
      const under = faulty.runs[1]?.run.result.checks.find(
        (c) => c.id === "client/scan-passes-previous-scroll-id",
      );
      expect(under?.status).toBe("failed");
      expect(under?.message).toMatch(
        /passed scrollId "[^"]+", which an earlier answer of that scroll gave, not the scrollId its last answer gave/,
      );
    },
    120_000,
  );
});

describe("the sweep's world new-id-every-page-large-tenant: a new scroll id every page of scans longer than two pages", () => {
  const FIRST_ID_CLIENT = join(import.meta.dirname, "clients", "first-id-client.mjs");
  const RULE = "client/scan-passes-previous-scroll-id";
  const sweepOf = (fault: string) =>
    clientSweep({
      argv: [process.execPath, FIRST_ID_CLIENT],
      env: { ...process.env, FAULT: fault },
      variants: [undefined, "scroll-id-per-page", "new-id-every-page-large-tenant"],
      parallel: 2,
      timeoutMs: 60_000,
    });

  it("a client that passes the last answer's scroll id passes under all three", async () => {
    const sweep = await sweepOf("");
    expect(sweep.runs.map((r) => [r.variant, r.run.exitCode])).toEqual([
      ["default", 0],
      ["scroll-id-per-page", 0],
      ["new-id-every-page-large-tenant", 0],
    ]);
    expect(sweep.runs[2]?.run.result.checks.find((c) => c.id === RULE)?.opportunities).toBeGreaterThan(3);
  }, 60_000);

  it("one that passes the first answer's id, 100 a page, fails only where a scan has a third page with an id of its own", async () => {
    const sweep = await sweepOf("first-scroll-id");
    const statusOf = (i: number) => sweep.runs[i]?.run.result.checks.find((c) => c.id === RULE)?.status;
    // Two pages under the default and scroll-id-per-page: the first id is the last answer's.
    expect([statusOf(0), statusOf(1), statusOf(2)]).toEqual(["passed", "passed", "failed"]);
    expect(sweep.exitCode).toBe(1);
  }, 60_000);
});

describe("the sweep's world addresses-apart: {base_url} and {rdm_url} at two addresses", () => {
  const RULE = "client/request-within-contract";
  const sweepOf = (fault: string) =>
    clientSweep({
      argv: [process.execPath, NODE_CLIENT],
      clientId: "nightly-sync",
      env: { ...process.env, FAULT: fault },
      variants: [undefined, "addresses-apart"],
      parallel: 2,
      timeoutMs: 60_000,
    });
  const ruleOf = (entry: ClientSweepRun | undefined) => entry?.run.result.checks.find((c) => c.id === RULE);

  it("a client that sends each path to its own address passes under both; the world gives it two addresses", async () => {
    const sweep = await sweepOf("");
    expect(sweep.runs.map((r) => [r.variant, r.run.exitCode, ruleOf(r)?.status])).toEqual([
      ["default", 0, "passed"],
      ["addresses-apart", 0, "passed"],
    ]);
    // Judged by address only where the two differ.
    expect(sweep.runs[0]?.run.traffic.addresses).toBeUndefined();
    const addresses = sweep.runs[1]?.run.traffic.addresses;
    expect(addresses?.baseUrl).not.toBe(addresses?.rdmUrl);
  }, 60_000);

  it("one that asks {base_url} for /healthcheck passes where the two are one address and fails where they are two", async () => {
    const sweep = await sweepOf("health-at-base");
    expect(sweep.runs.map((r) => [r.variant, ruleOf(r)?.status])).toEqual([
      ["default", "passed"],
      ["addresses-apart", "failed"],
    ]);
    expect(ruleOf(sweep.runs[1])?.message).toMatch(
      /GET \/healthcheck \(getHealthcheck\): sent to \{base_url\} \(http:\/\/127\.0\.0\.1:\d+\), but the operation is at \{rdm_url\}/,
    );
    expect(sweep.exitCode).toBe(1);
  }, 60_000);
});

describe("--require-choice", () => {
  it("an unknown choice is a usage error naming it and where the choices are listed", async () => {
    const io = captureIo();
    const code = await main(
      ["client", "check", "--variants", "all", "--require-choice", "scroll-id-nope", "--", process.execPath],
      io,
    );
    expect(code).toBe(2);
    expect(io.stderr()).toMatch(
      /--require-choice expects a comma list of provider choices \(variant names\), got "scroll-id-nope"; lckit serve --help-variants lists them/,
    );
  });
});

describe("the sweep's world quota-held-elsewhere: other sessions hold the client's quota when it starts", () => {
  const QUOTA_AT_START = join(import.meta.dirname, "clients", "quota-at-start-client.mjs");
  const RULE = "client/token-waits-after-quota-refusal";
  const ruleOf = (entry: ClientSweepRun | undefined) => entry?.run.result.checks.find((c) => c.id === RULE);

  it.each([
    [
      "asks again at once, in a loop: the MUST rule fails under the world only, the sweep exits 1",
      "retry-in-a-loop",
      1,
    ],
    ["waits as Retry-After says: passed under both, the world's refusal judged", "", 0],
  ] as const)(
    "a client that %s",
    async (_name, fault, exit) => {
      const sweep = await clientSweep({
        argv: [process.execPath, QUOTA_AT_START],
        clientId: "nightly-sync",
        env: { ...process.env, WAIT: "retry-after", FAULT: fault },
        variants: [undefined, "quota-held-elsewhere"],
        parallel: 2,
        timeoutMs: 60_000,
      });
      const [byDefault, world] = sweep.runs;
      // Under the default its token comes at once: the rule passes and says the refusal was not met.
      expect(byDefault?.run.exitCode).toBe(0);
      expect(ruleOf(byDefault)).toMatchObject({
        status: "passed",
        message: expect.stringMatching(/not seen/),
      });
      expect(world?.variant).toBe("quota-held-elsewhere");
      expect(ruleOf(world)?.status).toBe(exit === 1 ? "failed" : "passed");
      expect(ruleOf(world)?.message ?? "").not.toMatch(/not seen/);
      expect(sweep.exitCode).toBe(exit);
      // A failed run's progress line names the world like every other choice, with what the sandbox did.
      if (exit === 1)
        expect(progressLines(world as ClientSweepRun, 2, 2)).toMatch(
          /FAIL quota-held-elsewhere[\s\S]*the choice: other sessions of your client hold its whole quota/,
        );
    },
    60_000,
  );
});

describe("the sweep's world tokens-expire-in-use: the client's tokens expire while it uses them", () => {
  const EXPIRY_CLIENT = join(import.meta.dirname, "clients", "expiry-client.mjs");
  const check = (entry: ClientSweepRun | undefined, id: string) =>
    entry?.run.result.checks.find((c) => c.id === id);
  const sweepOf = async (fault: string, fail = "") =>
    clientSweep({
      argv: [process.execPath, EXPIRY_CLIENT],
      env: { ...process.env, FAULT: fault, FAIL: fail },
      variants: [undefined, "tokens-expire-in-use"],
      parallel: 2,
      timeoutMs: 60_000,
    });

  it("a client that keeps its token until told it expired, then takes a new one and goes on: passes, the expiry judged", async () => {
    const sweep = await sweepOf("");
    const [byDefault, world] = sweep.runs;
    // Under the default its token lives an hour: the expiry rule is not exercised there, only here.
    expect(check(byDefault, "client/token-dropped-when-expired")?.status).toBe("not-exercised");
    expect(world?.variant).toBe("tokens-expire-in-use");
    expect(check(world, "client/token-dropped-when-expired")).toMatchObject({ status: "passed" });
    expect(check(world, "client/token-dropped-when-expired")?.opportunities).toBeGreaterThan(0);
    expect(check(world, "client/scan-read-under-every-choice")).toMatchObject({
      status: "passed",
      opportunities: 1,
    });
    expect(world?.run.exitCode).toBe(0);
    expect(sweep.exitCode).toBe(0);
  }, 60_000);

  it("a client that sends the expired token again before it renews: the SHOULD rule fails under the world", async () => {
    const sweep = await sweepOf("expired-token-again");
    const world = sweep.runs[1];
    expect(check(world, "client/token-dropped-when-expired")).toMatchObject({
      status: "failed",
      level: "SHOULD",
      message: expect.stringMatching(/carried a token the service had answered at #\d+ had expired/),
    });
    expect(check(world, "client/scan-read-under-every-choice")?.status).toBe("passed");
  }, 60_000);

  it("a client that takes the expired-token answer for the end of its job: the scan it left fails the MUST rule of differences", async () => {
    const sweep = await sweepOf("stops-on-expiry");
    const [byDefault, world] = sweep.runs;
    expect(byDefault?.run.exitCode).toBe(0);
    // The scroll's id stays one for the whole scroll: the answer it stopped after is still found, though
    // the client had sent that id before (and once more, with the expired token).
    expect(check(world, "client/scan-read-under-every-choice")).toMatchObject({
      status: "failed",
      message: expect.stringMatching(
        /under the provider choice tokens-expire-in-use your client read \d+ records and stopped after the answer at #\d+[\s\S]*under the default the same command read 142 records to the end/,
      ),
    });
    expect(check(world, "client/scan-read-to-end")?.status).toBe("failed");
    expect(sweep.exitCode).toBe(1);
  }, 60_000);

  it("a client that fails on the expired-token answer says so: its command's SHOULD finding, not the MUST rule of silent differences", async () => {
    const sweep = await sweepOf("", "on-expiry");
    const world = sweep.runs[1];
    expect(world?.run.outcome.exitCode).toBe(1);
    expect(check(world, "client/command")).toMatchObject({ status: "failed", level: "SHOULD" });
    expect(check(world, "client/scan-read-under-every-choice")).toMatchObject({
      status: "not-exercised",
      reason: expect.stringMatching(
        /your command failed under this choice after an expired-token answer or a 429 and left POST \/lookups\/shop\/_scan there: .* client\/command's finding/,
      ),
    });
    expect(sweep.exitCode).toBe(0);
  }, 60_000);
});
