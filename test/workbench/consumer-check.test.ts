// lckit events consumer check on real consumer programs: a correct consumer in Node and in Python (Debian's
// /usr/bin/python3; the broker deliveries in test/broker) passes every consumer rule, each deliberate mistake is caught
// by its own rule and by no other, in both languages; every delivery (file, stdin, Pub/Sub push, SNS
// push) reaches them. Consumers that hang, write no view, write a malformed or endless one, or are not
// found end with a report and a clear exit code, never a pass and never a hang.
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { commandCheckSummary } from "../../src/cli/command-check-summary.ts";
import { main } from "../../src/cli/main.ts";
import { consumerCheck } from "../../src/commands/consumer/check.ts";
import type { Delivery } from "../../src/commands/consumer/request.ts";
import type { ConsumerCheckRun } from "../../src/commands/consumer/result.ts";
import {
  CONSUMER_COMMAND_CHECK_ID,
  CONSUMER_VIEW_CHECK_ID,
} from "../../src/events/consumer/consumer-result.ts";
import { CONSUMER_RULES } from "../../src/events/consumer/consumer-rules.ts";
import { producerChoice } from "../../src/events/consumer/producer-choices.ts";
import { packagePath } from "../../src/package-root.ts";
import { verdictFindings } from "../../src/rules/judge.ts";
import { captureIo } from "../cli/capture-io.ts";

const NODE_CONSUMER = packagePath("examples", "consumers", "view-consumer.mjs");
const PYTHON_CONSUMER = packagePath("examples", "consumers", "view_consumer.py");
const LANGUAGES = {
  node: [process.execPath, NODE_CONSUMER],
  python: ["/usr/bin/python3", PYTHON_CONSUMER],
} as const;

/** Each mistake of the example consumers (FAULT=...) and the one consumer rule that must catch it. */
const FAULTS: [string, string, RegExp][] = [
  [
    "last-arrival",
    "consumer/latest-by-object-version",
    /an older objectVersion \(it arrived after the latest one\)/,
  ],
  ["updated-time", "consumer/latest-by-object-version", /an older objectVersion/],
  ["ignores-removals", "consumer/removal-not-live", /removed the object, but the view holds it live/],
  // The removal read as a change (live, with the removal's objectVersion): the removal rule's, not the
  // order's or the re-send's.
  [
    "removal-as-change",
    "consumer/removal-not-live",
    /removed the object, but the view holds it live with its objectVersion: taken for a change\?/,
  ],
  ["fallback-empty", "consumer/fallback-is-not-an-empty-object", /with empty attributes/],
  // The fallback taken for a removal: the fallback rule's. (Dropping it, the older state kept, is legal:
  // the stream gives no content at the fallback.)
  [
    "fallback-as-removal",
    "consumer/fallback-is-not-an-empty-object",
    /yet the view holds the object removed/,
  ],
  [
    "gdpr-keeps-data",
    "consumer/gdpr-removal-leaves-no-data",
    /by a GDPR request, but the view still holds its attributes/,
  ],
  ["stops-on-unknown", "consumer/unknown-types-and-fields-change-nothing", /did the consumer stop there\?/],
  [
    "rejects-unknown-fields",
    "consumer/unknown-types-and-fields-change-nothing",
    /carries the header traceparent and the payload field schemaRevision, .*did the consumer drop the message for fields it does not know\?/,
  ],
  ["resend-toggle", "consumer/re-send-changes-nothing", /was sent again as message #\d+/],
];

const ruleIds = new Set(CONSUMER_RULES.map((r) => r.id));
const failedRules = (run: ConsumerCheckRun) =>
  run.result.checks.filter((c) => c.status === "failed" && ruleIds.has(c.id)).map((c) => c.id);

function check(
  argv: readonly string[],
  options: { fault?: string; delivery?: Delivery; timeoutMs?: number } = {},
) {
  return consumerCheck({
    argv: [...argv],
    ...(options.delivery ? { delivery: options.delivery } : {}),
    timeoutMs: options.timeoutMs ?? 60_000,
    env: { ...process.env, FAULT: options.fault ?? "" },
  });
}

describe.each(Object.entries(LANGUAGES))("the %s example consumer", (_language, argv) => {
  it("passes every consumer rule, each on opportunities it judged (three SHOULD rules of producer choices: not exercised, saying how)", async () => {
    const run = await check(argv);
    expect(run.exitCode).toBe(0);
    expect(run.result.verdict).toBe("CONFORMANT");
    // The default stream carries one tenant and every field: the tenant rule is exercised by
    // shared-destination, the filtered-attributes rule by attributes-filtered-out (below).
    const byChoice: Record<string, RegExp> = {
      "consumer/object-version-text-read": /--variants object-version-string/,
      "consumer/other-tenants-left-out": /--variants shared-destination/,
      "consumer/filtered-attributes-kept": /--variants attributes-filtered-out/,
    };
    for (const [id, says] of Object.entries(byChoice)) {
      const rule = run.result.checks.find((c) => c.id === id);
      expect(rule?.status, id).toBe("not-exercised");
      expect(rule?.reason, id).toMatch(says);
    }
    for (const rule of CONSUMER_RULES) {
      if (rule.id in byChoice) continue;
      const result = run.result.checks.find((c) => c.id === rule.id);
      expect(result?.status, rule.id).toBe("passed");
      expect(result?.opportunities, rule.id).toBeGreaterThan(0);
    }
    expect(run.judgement?.judged).toBe(run.judgement?.objects);
  }, 120_000);

  it.each(FAULTS)(
    "FAULT=%s is caught by %s only",
    async (fault, rule, says) => {
      const run = await check(argv, { fault });
      expect(failedRules(run)).toEqual([rule]);
      const failed = run.result.checks.find((c) => c.id === rule);
      expect(failed?.message).toMatch(says);
      // Evidence: the object, the message that should have won, what the view holds, and the replay.
      const finding = JSON.parse(failed?.counterexample?.value ?? "{}");
      expect(finding.uri).toMatch(/^(entities|relations|interactions|changeRequests)\//);
      expect(finding.expected).toMatchObject({
        position: expect.any(Number),
        objectVersion: expect.any(Number),
      });
      expect(finding.view.line).toBeGreaterThan(0);
      expect(failed?.counterexample?.replay).toContain(
        "--seed 1 --messages 1000 --variants snapshot --delivery file",
      );
      expect(run.exitCode).toBe(CONSUMER_RULES.find((r) => r.id === rule)?.level === "MUST" ? 1 : 0);
    },
    120_000,
  );

  // Mistakes only a producer choice shows: the attributes a filtered-out member or a deltas message leaves.
  it("FAULT=filtered-as-removed under attributes-filtered-out is consumer/filtered-attributes-kept's finding alone, at SHOULD (the attributes rule accepts an empty set there)", async () => {
    const choice = producerChoice("attributes-filtered-out");
    const run = await consumerCheck({
      argv: [...argv],
      ...(choice ? { choice } : {}),
      timeoutMs: 60_000,
      env: { ...process.env, FAULT: "filtered-as-removed" },
    });
    expect(failedRules(run)).toEqual(["consumer/filtered-attributes-kept"]);
    expect(run.result.checks.find((c) => c.id === "consumer/filtered-attributes-kept")?.message).toMatch(
      /left them out, which removes none of them, yet the view replaced the attributes message #\d+ .* gave with nothing/,
    );
    expect(run.exitCode).toBe(0);
  }, 120_000);

  it.each([
    [
      "deltas-as-snapshot",
      "deltas-message",
      /is missing, though a delta gave it .* changes only the attributes it lists/,
    ],
  ])(
    "FAULT=%s under %s is caught by consumer/attributes-of-the-latest-state only",
    async (fault, name, says) => {
      const choice = producerChoice(name);
      const run = await consumerCheck({
        argv: [...argv],
        ...(choice ? { choice } : {}),
        timeoutMs: 60_000,
        env: { ...process.env, FAULT: fault },
      });
      expect(failedRules(run)).toEqual(["consumer/attributes-of-the-latest-state"]);
      expect(
        run.result.checks.find((c) => c.id === "consumer/attributes-of-the-latest-state")?.message,
      ).toMatch(says);
      expect(run.exitCode).toBe(1);
    },
    120_000,
  );

  it("under shared-destination it keeps its tenant's objects only; FAULT=all-tenants (the tenantId header not read) is the tenant rule's finding alone, at SHOULD", async () => {
    const choice = producerChoice("shared-destination");
    const ok = await consumerCheck({ argv: [...argv], ...(choice ? { choice } : {}), timeoutMs: 60_000 });
    expect(ok.result.verdict).toBe("CONFORMANT");
    const passed = ok.result.checks.find((c) => c.id === "consumer/other-tenants-left-out");
    expect(passed?.status).toBe("passed");
    expect(passed?.opportunities).toBeGreaterThan(10);
    const run = await consumerCheck({
      argv: [...argv],
      ...(choice ? { choice } : {}),
      timeoutMs: 60_000,
      env: { ...process.env, FAULT: "all-tenants" },
    });
    expect(failedRules(run)).toEqual(["consumer/other-tenants-left-out"]);
    expect(run.result.checks.find((c) => c.id === "consumer/other-tenants-left-out")?.message).toMatch(
      /an object of tenant globex .* keep only those whose tenantId is your tenant's/,
    );
    expect(run.exitCode).toBe(0);
  }, 120_000);

  it.each(["attributes-filtered-out", "deltas-message"])(
    "under %s it is CONFORMANT, the attributes rule judged on the lines it wrote",
    async (name) => {
      const choice = producerChoice(name);
      const run = await consumerCheck({ argv: [...argv], ...(choice ? { choice } : {}), timeoutMs: 60_000 });
      expect(run.result.verdict).toBe("CONFORMANT");
      const rule = run.result.checks.find((c) => c.id === "consumer/attributes-of-the-latest-state");
      expect(rule?.status).toBe("passed");
      expect(rule?.opportunities).toBeGreaterThan(10);
    },
    120_000,
  );

  it("FAULT=rejects-unknown-fields is caught for its reason: each latest message it dropped carried fields the document does not define, and the view holds an older objectVersion", async () => {
    const run = await check(argv, { fault: "rejects-unknown-fields" });
    const verdict = run.judgement?.verdicts.find(
      (v) => v.rule.id === "consumer/unknown-types-and-fields-change-nothing",
    );
    expect(verdictFindings(verdict).length).toBeGreaterThan(0);
    for (const finding of verdictFindings(verdict)) {
      const latest = run.stream.messages[finding.evidence.expected.position - 1];
      expect(latest?.headers.traceparent, finding.where).toBeDefined();
      expect(latest?.payload.schemaRevision, finding.where).toBeDefined();
      expect(finding.evidence.view.objectVersion, finding.where).toBeLessThan(
        finding.evidence.expected.objectVersion,
      );
    }
  }, 120_000);
});

describe("deliveries", () => {
  it.each(["stdin", "pubsub-push", "sns-push"] as const)(
    "%s reaches the consumers: both correct ones pass, a broken one is caught",
    async (delivery) => {
      for (const argv of Object.values(LANGUAGES)) {
        const run = await check(argv, { delivery });
        expect(run.exitCode, `${argv[1]} over ${delivery}: ${run.result.verdictReason}`).toBe(0);
        expect(run.result.subject).toMatchObject({ kind: "consumer", delivered: run.stream.messages.length });
        expect(run.result.requestsSent).toBe(0);
      }
      const broken = await check(LANGUAGES.node, { delivery, fault: "ignores-removals" });
      expect(failedRules(broken)).toEqual(["consumer/removal-not-live"]);
    },
    180_000,
  );

  it("HTTP push sends a refused message again with back-off until it is acknowledged", async () => {
    // A consumer that answers 503 to every third request the first time it sees it.
    const script = `
      const { createServer } = require("node:http");
      const { writeFileSync } = require("node:fs");
      const seen = new Map(); let n = 0; const view = new Map();
      createServer((req, res) => { let t = ""; req.on("data", (c) => (t += c)); req.on("end", () => {
        const b = JSON.parse(t); n += 1;
        if (n % 3 === 0 && !seen.has(b.message.messageId)) { seen.set(b.message.messageId, 1); res.writeHead(503).end(); return; }
        const h = b.message.attributes; view.set(h.sourceObjectUri, { uri: h.sourceObjectUri, removed: false });
        res.writeHead(200).end(); }); }).listen(Number(process.env.LCKIT_PUSH_PORT), "127.0.0.1");
      process.on("SIGTERM", () => { writeFileSync(process.env.LCKIT_VIEW_FILE, [...view.values()].map((r) => JSON.stringify(r) + "\\n").join("")); process.exit(0); });`;
    const run = await consumerCheck({
      argv: [process.execPath, "-e", script],
      delivery: "pubsub-push",
      count: 100,
      timeoutMs: 60_000,
    });
    expect(run.push?.delivered).toBe(run.stream.messages.length);
    expect(run.push?.redelivered).toBeGreaterThan(0);
    expect(run.push?.firstRefusal).toMatch(/answered 503/);
    expect(run.outcome.signal).toBeNull();
  }, 120_000);
});

describe("a consumer that misbehaves gets a clear exit code and a report, never a hang", () => {
  it("hung past the time limit: exit 3, its process group stopped", async () => {
    const run = await consumerCheck({
      argv: ["sh", "-c", "sleep 600 & sleep 600"],
      timeoutMs: 1_000,
    });
    expect(run.exitCode).toBe(3);
    expect(run.outcome.timedOut).toBe(true);
    expect(run.result.interruption?.cause).toBe("deadline");
  }, 60_000);

  it("stopped at --timeout though it then exits 0: the summary's last line names the time limit, not exit 0", async () => {
    // A consumer that writes its view on SIGTERM (as the docs ask) and exits 0 after the kit's kill.
    const run = await consumerCheck({
      argv: ["sh", "-c", `trap ': > "$LCKIT_VIEW_FILE"; exit 0' TERM; while :; do sleep 0.1; done`],
      timeoutMs: 1_000,
    });
    expect(run.outcome).toMatchObject({ timedOut: true, exitCode: 0 });
    const last = commandCheckSummary(run.result, run.outcome).trimEnd().split("\n").pop();
    expect(last).toMatch(/; command stopped at its time limit \(--timeout\), then exit 0$/);
    expect(last).not.toMatch(/; command exit 0$/);
  }, 60_000);

  it("crashed on an unlisted event type (FAULT=crashes-on-unknown): the unknown-types rule judges it, exit 1 not 2", async () => {
    const run = await check(LANGUAGES.node, { fault: "crashes-on-unknown" });
    expect(run.outcome.exitCode).toBe(1);
    expect(run.exitCode).toBe(1);
    expect(run.result.verdict).toBe("NOT CONFORMANT");
    const rule = run.result.checks.find((c) => c.id === "consumer/unknown-types-and-fields-change-nothing");
    expect(rule?.status).toBe("failed");
    expect(rule?.message).toMatch(
      new RegExp(
        `names ${run.stream.firstUnlistedType}, the type of message #${(run.stream.firstUnlisted ?? 0) + 1}, a type in neither of the document's lists: go on past`,
      ),
    );
    // The other rules had no view to judge: skipped, not passed.
    expect(failedRules(run)).toEqual(["consumer/unknown-types-and-fields-change-nothing"]);
  }, 120_000);

  it("a crash whose output names no unlisted type stays unjudged: exit 2 (the cause is not known)", async () => {
    const run = await consumerCheck({ argv: [process.execPath, "-e", "process.exit(1)"], timeoutMs: 30_000 });
    expect(run.exitCode).toBe(2);
    expect(
      run.result.checks.find((c) => c.id === "consumer/unknown-types-and-fields-change-nothing")?.status,
    ).toBe("skipped");
  }, 60_000);

  it("no view written: exit 2, asking whether it reads LCKIT_EVENTS_FILE", async () => {
    const run = await consumerCheck({ argv: [process.execPath, "-e", ""], timeoutMs: 30_000 });
    expect(run.exitCode).toBe(2);
    const view = run.result.checks.find((c) => c.id === CONSUMER_VIEW_CHECK_ID);
    expect(view?.message).toMatch(/no view was written.*LCKIT_VIEW_FILE.*LCKIT_EVENTS_FILE/);
  }, 60_000);

  it("an empty view (nothing consumed): exit 2", async () => {
    const run = await consumerCheck({
      argv: ["sh", "-c", ': > "$LCKIT_VIEW_FILE"'],
      delivery: "stdin",
      timeoutMs: 30_000,
    });
    expect(run.exitCode).toBe(2);
    expect(run.result.verdictReason).toMatch(/nothing was consumed \(does it read the stream from stdin\?\)/);
    // A stream with objectVersion: no word of it.
    const view = run.result.checks.find((c) => c.id === CONSUMER_VIEW_CHECK_ID);
    expect(view?.message).not.toMatch(/objectVersion/);
  }, 60_000);

  it("an empty view of a stream without objectVersion names the likely cause: messages without it dropped", async () => {
    const choice = producerChoice("object-version-absent");
    const run = await consumerCheck({
      argv: ["sh", "-c", 'cat "$LCKIT_EVENTS_FILE" > /dev/null; : > "$LCKIT_VIEW_FILE"'],
      ...(choice ? { choice } : {}),
      timeoutMs: 30_000,
    });
    expect(run.exitCode).toBe(2);
    const view = run.result.checks.find((c) => c.id === CONSUMER_VIEW_CHECK_ID);
    expect(view?.message).toMatch(
      /none of the \d+ message\(s\) delivered carried objectVersion \(producer choice object-version-absent\): the document says the header is present only when JMSEventsFilteringFields lists it/,
    );
  }, 60_000);

  it("a malformed view: exit 1, the line named and the fix", async () => {
    const run = await consumerCheck({
      argv: [
        "sh",
        "-c",
        `printf '{"uri":"entities/a","removed":false}\\n{"uri":"entities/b","removed":"yes"}\\n' > "$LCKIT_VIEW_FILE"`,
      ],
      timeoutMs: 30_000,
    });
    expect(run.exitCode).toBe(1);
    const view = run.result.checks.find((c) => c.id === CONSUMER_VIEW_CHECK_ID);
    expect(view?.status).toBe("failed");
    expect(view?.message).toMatch(/line 2 of the view \(entities\/b\) has removed "yes": give true when/);
    expect(run.result.checks.find((c) => c.id === CONSUMER_RULES[0]?.id)?.status).toBe("skipped");
  }, 60_000);

  it("a view of 10 million lines is refused at its bound, not read whole", async () => {
    const run = await consumerCheck({
      argv: ["sh", "-c", `seq 1 10000000 | sed 's/.*/{"uri":"u&","removed":false}/' > "$LCKIT_VIEW_FILE"`],
      count: 200,
      timeoutMs: 120_000,
    });
    expect(run.exitCode).toBe(1);
    expect(run.result.checks.find((c) => c.id === CONSUMER_VIEW_CHECK_ID)?.message).toMatch(
      /more than 10000 lines.*one line per object/,
    );
  }, 180_000);

  it("a command not found: exit 2, with the fix", async () => {
    const run = await consumerCheck({ argv: ["no-such-consumer-program"], timeoutMs: 10_000 });
    expect(run.exitCode).toBe(2);
    expect(run.outcome.startError).toMatch(/command not found.*lckit events consumer check --/);
    expect(run.result.checks.find((c) => c.id === CONSUMER_COMMAND_CHECK_ID)?.status).toBe("failed");
  }, 30_000);
});

describe("lckit events consumer check (the command line)", () => {
  it("writes the report folder and exits 0 for the correct consumer, 1 for a broken one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lckit-consumer-cli-"));
    const io = captureIo();
    const ok = await main(
      [
        "events",
        "consumer",
        "check",
        "--report-dir",
        dir,
        "--messages",
        "400",
        "--quiet",
        "--",
        ...LANGUAGES.node,
      ],
      io,
    );
    expect(ok).toBe(0);
    expect(io.stdout()).toMatch(/^CONFORMANT: /);
    const folder = io.stderr().match(/report: (.+)\n/)?.[1] ?? "";
    expect(existsSync(join(folder, "report.json"))).toBe(true);
    expect(existsSync(join(folder, "command.log"))).toBe(true);
    const broken = captureIo();
    broken.env = { FAULT: "last-arrival" };
    const code = await main(
      ["events", "consumer", "check", "--report-dir", dir, "--quiet", "--", ...LANGUAGES.node],
      broken,
    );
    expect(code).toBe(1);
    expect(broken.stdout()).toMatch(/FAIL consumer\/latest-by-object-version/);
    expect(broken.stdout()).toMatch(/replay: lckit events consumer check --seed 1/);
  }, 120_000);

  it("refuses a missing command and an unknown producer choice with the fix", async () => {
    const io = captureIo();
    await expect(main(["events", "consumer", "check"], io)).resolves.toBe(2);
    expect(io.stderr()).toMatch(/no command to run: give it after --/);
    const other = captureIo();
    await expect(
      main(["events", "consumer", "check", "--variants", "snapshots", "--", "true"], other),
    ).resolves.toBe(2);
    expect(other.stderr()).toMatch(/known: snapshot, deltas/);
  });

  it.each(Object.entries(LANGUAGES))(
    "--variants all: the correct %s consumer passes under every producer choice; sweep.json, junit.xml, summary.md",
    async (_language, argv) => {
      const dir = mkdtempSync(join(tmpdir(), "lckit-consumer-sweep-"));
      const io = captureIo();
      const code = await main(
        [
          "events",
          "consumer",
          "check",
          "--variants",
          "all",
          "--messages",
          "600",
          "--report-dir",
          dir,
          "--quiet",
          "--",
          ...argv,
        ],
        io,
      );
      const folder = io.stderr().match(/report: (.+)\n/)?.[1] ?? "";
      const sweep = JSON.parse(readFileSync(join(folder, "sweep.json"), "utf8"));
      expect(sweep.runs.filter((r: { outcome: string }) => r.outcome !== "passed")).toEqual([]);
      expect(code).toBe(0);
      expect(sweep.choices).toBeGreaterThanOrEqual(11);
      // Without objectVersion the order rule has no opportunity and says so.
      const absent = sweep.runs.find((r: { choice: string }) => r.choice === "object-version-absent");
      expect(absent.notExercised).toContain("consumer/latest-by-object-version");
      expect(readFileSync(join(folder, "junit.xml"), "utf8")).toMatch(/consumer check · deltas-other/);
      expect(readFileSync(join(folder, "summary.md"), "utf8")).toMatch(/\| object-version-string: /);
      expect(existsSync(join(folder, "deltas", "report.json"))).toBe(true);
    },
    300_000,
  );
});

describe("objectVersion that comes as a string of digits (producer choice object-version-string)", () => {
  const TEXT_RULE = "consumer/object-version-text-read";
  const choice = producerChoice("object-version-string");
  const run = (fault: string) =>
    consumerCheck({
      argv: [...LANGUAGES.node],
      ...(choice ? { choice } : {}),
      timeoutMs: 60_000,
      env: { ...process.env, FAULT: fault },
    });

  it("a consumer that reads the digits as the number passes the order rule and the text rule, both judged", async () => {
    const ok = await run("");
    expect(ok.result.verdict).toBe("CONFORMANT");
    for (const id of ["consumer/latest-by-object-version", TEXT_RULE]) {
      const rule = ok.result.checks.find((c) => c.id === id);
      expect(rule?.status, id).toBe("passed");
      expect(rule?.opportunities, id).toBeGreaterThan(5);
    }
  }, 120_000);

  it("one that takes text for no objectVersion (FAULT=numbers-only) is judged as without it at MUST, and the text rule names what the digits would have corrected (SHOULD)", async () => {
    const numbersOnly = await run("numbers-only");
    expect(failedRules(numbersOnly)).toEqual([TEXT_RULE]);
    expect(numbersOnly.exitCode).toBe(0);
    const text = numbersOnly.result.checks.find((c) => c.id === TEXT_RULE);
    expect(text?.message).toMatch(
      /objectVersion came as a string of digits, and the view holds what a consumer holds that does not read it .*\(consumer\/latest-by-object-version\): the view holds the state of message #\d+/,
    );
    expect(
      numbersOnly.result.checks.find((c) => c.id === "consumer/latest-by-object-version")?.reason,
    ).toMatch(/objectVersion came as a string of digits, which the view does not read/);
  }, 120_000);

  it("one that ignores removals fails the removal rule at MUST either way, and the text rule cannot tell", async () => {
    const ignores = await run("ignores-removals");
    expect(failedRules(ignores)).toContain("consumer/removal-not-live");
    expect(ignores.result.checks.find((c) => c.id === TEXT_RULE)).toMatchObject({
      status: "not-exercised",
      reason: expect.stringMatching(/whether it read the digits cannot be told/),
    });
    expect(ignores.exitCode).toBe(1);
  }, 120_000);
});
