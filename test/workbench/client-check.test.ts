// lckit client check on real client programs: a correct client in Node and in Python (Debian's
// python3-requests, /usr/bin/python3) passes every caller rule, and each deliberate mistake is caught by
// its own rule and by no unrelated one. Commands that make no request, are not found, hang or are killed
// end with a report and a clear exit code, never a pass.
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { type ClientCheckRun, clientCheck, deleteRoleHint } from "../../src/commands/client/check.ts";
import { packagePath } from "../../src/package-root.ts";
import { buildCtrf } from "../../src/report/ctrf.ts";
import { renderHtml, renderJunit, renderMarkdown } from "../../src/report/index.ts";
import { writeReport } from "../../src/report-folder/write.ts";
import { COMMAND_CHECK_ID } from "../../src/result/client-verdict.ts";
import { CALLER_RULES } from "../../src/rules/caller/caller-rules.ts";
import { captureIo } from "../cli/capture-io.ts";
import { reportValidator } from "../report/report-schema.ts";
import { ensurePythonRequests } from "./python.ts";

const NODE_CLIENT = packagePath("examples", "clients", "lookup-client.mjs");
const PYTHON_CLIENT = packagePath("examples", "clients", "lookup_client.py");
let python = "/usr/bin/python3";

beforeAll(() => {
  python = ensurePythonRequests();
}, 300_000);

const LANGUAGES = {
  node: () => [process.execPath, NODE_CLIENT],
  python: () => [python, PYTHON_CLIENT],
} as const;

/** Each mistake of the example clients (FAULT=...), the caller rules that must catch it (and no other),
 *  and what the first failure must say. */
const FAULTS: [string, string[], RegExp][] = [
  ["no-bearer", ["client/bearer-on-every-request"], /without an Authorization header/],
  [
    "lower-case-bearer",
    ["client/bearer-scheme-as-shown"],
    /with Authorization "bearer \.\.\.": HTTP reads the scheme in any case/,
  ],
  ["first-body", ["client/scan-first-request-without-body"], /opened a scan with a body/],
  ["wrong-scroll", ["client/scan-passes-previous-scroll-id"], /not the scrollId the previous answer gave/],
  [
    "scroll-in-query",
    ["client/scan-passes-previous-scroll-id"],
    /passed the scroll id in the query string \(scrollId=[^)]+\) with no body/,
  ],
  ["past-end", ["client/scan-stops-at-end"], /whose end was already answered/],
  [
    "offset-as-page",
    ["client/blocked-values-offset-counts-records"],
    /asked offset=1 \(advanced by one, as a page number\) after the page at offset 0 gave 2 records: the next page starts at offset 2/,
  ],
  [
    "big-page",
    ["client/request-within-contract"],
    /\(scanAutopilotStats\): query limit=500; the maximum is 100; the document: "limit \| integer/,
  ],
  [
    "order-word",
    ["client/request-within-contract"],
    /\(scanLookups\): query order=ascending; expected one of asc, desc; the document: "order \(asc or desc\)"/,
  ],
  [
    "type-uri-in-path",
    ["client/request-within-contract"],
    /the path carries a lookup type URI \(rdm\/lookupTypes\/<type_name>\) where the lookup type name goes/,
  ],
  [
    "task-body",
    ["client/request-within-contract"],
    /parameters\.uris is "shop\/|type is "remove", expected "delete"/,
  ],
  [
    "task-typo",
    ["client/request-within-contract"],
    /"parameters\.uri".*neither type nor uris: deletes all lookups of tenant shop\. Send \{"type": "delete", "parameters": \{"uris"/,
  ],
  [
    "task-type-name",
    ["client/request-within-contract"],
    /expected a lookup type URI rdm\/lookupTypes\/<type_name>/,
  ],
  [
    "task-uri-shape",
    ["client/request-within-contract"],
    /expected a lookup URI <tenant_id>\/<type_name>\/<code>/,
  ],
  [
    "task-uri-rdm",
    ["client/request-within-contract"],
    /\(createTask\): parameters\.uris\[0\] is "rdm\/lookupTypes\/[^"]+", expected a lookup URI <tenant_id>\/<type_name>\/<code> \("shop\/[^"]+"\): it has the lookup's rdm\/lookupTypes\/<type_name>\/<code> form/,
  ],
  ["task-whole-tenant", ["client/delete-task-whole-tenant"], /deletes all lookups of tenant shop/],
  ["task-foreign-uri", ["client/delete-task-uris-of-its-tenant"], /is a lookup of tenant "not-shop"/],
  [
    "token-per-call",
    ["client/token-reuse", "client/token-quota"],
    /requested a new token at #\d+ while it held/,
  ],
  ["token-hoard", ["client/token-quota"], /ran into its token quota/],
  [
    "expired-token-reused",
    ["client/token-dropped-when-expired"],
    /GET \/status at #\d+ carried a token the service had answered at #\d+ had expired/,
  ],
  ["no-backoff", ["client/backoff-after-refusal"], /should have waited/],
  [
    "size-param",
    ["client/query-parameters-defined"],
    /sent size=50, a query parameter the operation does not define/,
  ],
  [
    "first-page-only",
    ["client/scan-read-to-end"],
    /your client left the scroll after 1 page: the answer at #\d+ gave 100 records/,
  ],
];

/** Mistakes no example client makes, each in a small client of the kit's tests (test/workbench/clients/):
 *  [file, FAULT, the rules that must catch it (and no other), what the first failure must say]. */
const QUOTA_CLIENT = join(import.meta.dirname, "clients", "quota-client.mjs");
const QUOTA_AT_START_CLIENT = join(import.meta.dirname, "clients", "quota-at-start-client.mjs");
const QUOTA_RULE = "client/token-waits-after-quota-refusal";
const TEST_CLIENT_FAULTS: [string, string, string[], RegExp][] = [
  [
    QUOTA_CLIENT,
    "retry-at-once",
    ["client/token-waits-after-quota-refusal", "client/token-quota", "client/backoff-after-refusal"],
    /asked for a token again at #\d+, \d+ ms after its token request at #\d+ was declined at the quota \(429, limit exceeded\), before any of the 5 tokens/,
  ],
];

function run(argv: string[], env: Record<string, string> = {}, extra = {}): Promise<ClientCheckRun> {
  // The default world: every scan pages at the documented 100, so the scroll rules have opportunities.
  return clientCheck({
    argv,
    clientId: "nightly-sync",
    env: { ...process.env, ...env },
    timeoutMs: 60_000,
    ...extra,
  });
}

const ruleIds = new Set(CALLER_RULES.map((r) => r.id));
const failedRules = (r: ClientCheckRun) =>
  r.result.checks.filter((c) => c.status === "failed" && ruleIds.has(c.id)).map((c) => c.id);
const statusOf = (r: ClientCheckRun, id: string) => r.result.checks.find((c) => c.id === id)?.status;

it("every caller rule has a faulty client that proves it", () => {
  const proven = [...FAULTS.map(([, rules]) => rules), ...TEST_CLIENT_FAULTS.map(([, , rules]) => rules)];
  expect([...new Set(proven.flat())].sort()).toEqual(CALLER_RULES.map((r) => r.id).sort());
});

describe.each(Object.entries(LANGUAGES))("the %s example client", (_language, command) => {
  it("passes every caller rule, each of them exercised, and its command's own check, exit 0", async () => {
    const r = await run(command());
    expect(r.result.checks.map((c) => [c.id, c.status])).toEqual([
      [COMMAND_CHECK_ID, "passed"],
      ...CALLER_RULES.map((rule) => [rule.id, "passed"]),
    ]);
    // The default world never declines its token request: the quota rule says where its refusal is met.
    expect(r.result.checks.find((c) => c.id === QUOTA_RULE)?.message).toMatch(/quota-held-elsewhere/);
    expect(r.outcome.exitCode).toBe(0);
    expect(r.exitCode).toBe(0);
    expect(r.result.verdict).toBe("CONFORMANT");
    expect(r.result.client).toMatchObject({ exitCode: 0, variant: "default", timedOut: false });
  }, 60_000);

  it("meets its quota held by other sessions (world quota-held-elsewhere), waits as told and passes every rule, the quota's exercised", async () => {
    const r = await run(command(), {}, { variant: "quota-held-elsewhere" });
    expect(r.result.checks.find((c) => c.id === QUOTA_RULE)).toMatchObject({ status: "passed" });
    expect(r.result.checks.find((c) => c.id === QUOTA_RULE)?.message ?? "").not.toMatch(/not seen/);
    expect(failedRules(r)).toEqual([]);
    expect(r.exitCode).toBe(0);
  }, 60_000);

  it.each(FAULTS)(
    "with FAULT=%s is caught by %j and by no other rule",
    async (fault, rules, says) => {
      const r = await run(command(), { FAULT: fault });
      expect(failedRules(r).sort()).toEqual([...rules].sort());
      const failed = r.result.checks.find((c) => c.id === rules[0]);
      expect(failed?.evidence?.length).toBeGreaterThan(0);
      expect(failed?.message).toMatch(says);
      // The command's own check is failed exactly when the command did not exit 0.
      expect(statusOf(r, COMMAND_CHECK_ID)).toBe(r.outcome.exitCode === 0 ? "passed" : "failed");
      const must = rules.some((id) => CALLER_RULES.find((c) => c.id === id)?.level === "MUST");
      // A MUST rule broken fails the job; a SHOULD is reported and fails it only through the command's own exit.
      if (must) expect(r.exitCode).toBe(1);
      else expect(r.exitCode).toBe(r.outcome.exitCode === 0 ? 0 : 1);
    },
    60_000,
  );

  it("that sends no delete task: the delete rules are not exercised, in the client's words, never passed", async () => {
    const r = await run(command(), { FAULT: "no-task" });
    for (const id of ["client/delete-task-whole-tenant", "client/delete-task-uris-of-its-tenant"])
      expect(statusOf(r, id), id).toBe("not-exercised");
    expect(r.result.checks.find((c) => c.id === "client/delete-task-whole-tenant")?.reason).toMatch(
      /your client sent no delete task .*if it never deletes lookups, this rule does not apply to it/,
    );
    // The contract-derived request rule judged its other requests: a client that never deletes breaks none.
    expect(statusOf(r, "client/request-within-contract")).toBe("passed");
    expect(r.exitCode).toBe(0);
  }, 60_000);

  it("with a MUST rule not exercised: INCOMPLETE, exit 0, and exit 1 when exercise is required, in every format", async () => {
    // The data file as it is (the default world grows it so that every scan pages): no scan pages.
    const small = { data: "examples/sandbox-data.yaml" };
    const r = await run(command(), {}, small);
    expect(r.outcome.exitCode).toBe(0);
    expect(r.result.verdict).toBe("INCOMPLETE");
    expect(r.result.verdictReason).toMatch(
      /^1 MUST rule not exercised \(client\/scan-passes-previous-scroll-id\): your client's traffic gave it nothing to judge/,
    );
    expect(r.result.verdictReason).not.toMatch(/safety settings|credentials|capabilities of the target/);
    expect(r.exitCode).toBe(0);
    expect(renderMarkdown(r.result)).toMatch(
      /### Rules not exercised \(3\)\n\n.*\n.*\n\| <code>client\/scan-passes-previous-scroll-id<\/code> \| MUST \| no answer your client got carried a scrollId/,
    );
    // Required, the same run fails, in every format.
    const required = await run(command(), {}, { ...small, requireExercised: true });
    expect(required.exitCode).toBe(1);
    const junit = renderJunit(required.result);
    expect(junit).toMatch(
      /<testcase name="client\/scan-passes-previous-scroll-id"[^>]*>\s*<failure message="not exercised: no answer your client got carried a scrollId/,
    );
    // A SHOULD rule not exercised stays a skipped testcase even then.
    expect(junit).toMatch(
      /<testcase name="client\/scan-stops-at-end"[^>]*>\s*<skipped message="not exercised/,
    );
    expect(
      buildCtrf(required.result).results.tests.find((t) => t.name === "client/scan-passes-previous-scroll-id")
        ?.status,
    ).toBe("failed");
  }, 60_000);

  it("that reads only the first page: the scroll rule is not exercised, and says the client never asked for a next page", async () => {
    const r = await run(command(), { FAULT: "first-page-only" });
    expect(statusOf(r, "client/scan-passes-previous-scroll-id")).toBe("not-exercised");
    expect(r.result.checks.find((c) => c.id === "client/scan-passes-previous-scroll-id")?.reason).toMatch(
      /carried a scrollId, but it never asked for a next page/,
    );
    expect(statusOf(r, "client/scan-stops-at-end")).toBe("not-exercised");
    expect(r.result.verdict).not.toBe("CONFORMANT");
  }, 60_000);
});

describe("the kit's small test clients: one mistake each, and the same client without it", () => {
  it.each(TEST_CLIENT_FAULTS)(
    "%s with FAULT=%s is caught by %j and by no other rule",
    async (file, fault, rules, says) => {
      const r = await run([process.execPath, file], { FAULT: fault });
      expect(failedRules(r).sort()).toEqual([...rules].sort());
      expect(r.result.checks.find((c) => c.id === rules[0])?.message).toMatch(says);
      expect(r.exitCode).toBe(1);
    },
    60_000,
  );

  describe("a client that meets its quota held by other sessions when it starts (world quota-held-elsewhere)", () => {
    const atQuota = (env: Record<string, string>) =>
      run([process.execPath, QUOTA_AT_START_CLIENT], env, { variant: "quota-held-elsewhere" });

    it("asks again at once, in a loop: the MUST rule fails at each request sent at once, exit 1", async () => {
      const r = await atQuota({ FAULT: "retry-in-a-loop" });
      // Running into a quota others hold is not its doing (no client/token-quota); asking at once is.
      expect(failedRules(r).sort()).toEqual([QUOTA_RULE, "client/backoff-after-refusal"].sort());
      expect(r.result.checks.find((c) => c.id === QUOTA_RULE)?.message).toMatch(
        /asked for a token again at #\d+, \d+ ms after its token request at #\d+ was declined at the quota \(429, limit exceeded\): at once \(\d+ ms after the answer\), while other sessions of the client held 5 tokens of its quota/,
      );
      expect(r.exitCode).toBe(1);
    }, 60_000);

    it.each([
      ["honours Retry-After", { WAIT: "retry-after" }, []],
      // Retry-After unread: the wait it took is shorter than stated, which is the back-off rule's SHOULD.
      ["waits half a second, then longer", { WAIT: "backoff" }, ["client/backoff-after-refusal"]],
    ])(
      "%s: the MUST rule passes on the declined states it judged, exit 0",
      async (_name, env, should) => {
        const r = await atQuota(env);
        expect(r.result.checks.find((c) => c.id === QUOTA_RULE)).toMatchObject({ status: "passed" });
        // A declined state was judged: no note that the refusal was never met.
        expect(r.result.checks.find((c) => c.id === QUOTA_RULE)?.message ?? "").not.toMatch(/not seen/);
        expect(failedRules(r)).toEqual(should);
        expect(r.exitCode).toBe(0);
      },
      60_000,
    );
  });

  it("the quota client that stops asking after the refusal and uses the tokens it holds passes the MUST rule", async () => {
    const r = await run([process.execPath, QUOTA_CLIENT]);
    expect(statusOf(r, "client/token-waits-after-quota-refusal")).toBe("passed");
    // Running into the quota is still the SHOULD finding of its own.
    expect(failedRules(r)).toEqual(["client/token-quota"]);
    expect(r.exitCode).toBe(0);
  }, 60_000);
});

describe("a failing command is never green in a report", () => {
  const failing = (exit: number, fault = "") =>
    run(
      ["/bin/sh", "-c", `"$0" "$1"; echo "the team's tests: 3 failed"; exit ${exit}`, ...LANGUAGES.node()],
      {
        FAULT: fault,
      },
    );

  it("its own failed check with its exit and output tail, and a headline naming it, in every format", async () => {
    const r = await failing(1);
    expect(r.exitCode).toBe(1);
    expect(r.result.verdict).toBe("NOT CONFORMANT");
    expect(r.result.verdictReason).toMatch(/^your command failed \(exit 1\); \d+ request\(s\) recorded$/);
    const command = r.result.checks.find((c) => c.id === COMMAND_CHECK_ID);
    expect(command).toMatchObject({ status: "failed", level: "MUST" });
    expect(command?.message).toMatch(
      /^your command failed \(exit 1\): .*last 2 lines of its output:\n.*\nthe team's tests: 3 failed$/s,
    );
    expect(r.result.client?.outputTail).toMatch(/the team's tests: 3 failed$/);
    const validate = reportValidator();
    expect(validate(r.result), JSON.stringify(validate.errors)).toBe(true);

    const junit = renderJunit(r.result);
    expect(junit).toMatch(
      /<testsuites name="lckit client check [^"]*: NOT CONFORMANT \(your command failed \(exit 1\)\)" tests="\d+" failures="1"/,
    );
    expect(junit).toContain('<property name="commandExit" value="1"/>');
    expect(junit).not.toContain('<property name="seed"');
    expect(junit).toMatch(
      /<testcase name="client\/command"[^>]*>\s*<failure message="your command failed \(exit 1\)[^"]*the team&apos;s tests: 3 failed"/,
    );
    const ctrf = buildCtrf(r.result);
    expect(ctrf.results.summary.failed).toBe(1);
    expect(ctrf.results.tests.find((t) => t.name === COMMAND_CHECK_ID)).toMatchObject({
      status: "failed",
      message: expect.stringContaining("the team's tests: 3 failed"),
    });
    const md = renderMarkdown(r.result);
    expect(md).toMatch(/^## ❌ NOT CONFORMANT: your command failed \(exit 1\) · client: /);
    expect(md).toContain("the team's tests: 3 failed");
    expect(md).not.toMatch(/CONFORMANT: client|seed|runs per property|Target \/version/);
    const html = renderHtml(r.result);
    expect(html).toContain("<h1>NOT CONFORMANT: your command failed (exit 1)</h1>");
    expect(html).toContain("the team&#39;s tests: 3 failed");
  }, 60_000);

  it("lckit report verify agrees: junit.xml and ctrf.json show the failed command and the rules not exercised as report.json does", async () => {
    const io = captureIo();
    const dir = mkdtempSync(join(tmpdir(), "lckit-client-verify-"));
    const code = await main(
      [
        "client",
        "check",
        "--quiet",
        "--client",
        "nightly-sync",
        "--fail-on",
        "not-exercised",
        "--report-dir",
        dir,
        "--",
        "/bin/sh",
        "-c",
        `FAULT=first-page-only "$0" "$1"; exit 5`,
        ...LANGUAGES.node(),
      ],
      io,
    );
    expect(code).toBe(1);
    expect(io.stdout()).toMatch(/^NOT CONFORMANT: your command failed \(exit 5\)/);
    expect(io.stdout()).toMatch(
      /---- client\/scan-passes-previous-scroll-id \(CALLER-SCAN-02\) not exercised \(required: --fail-on not-exercised\): 2 answers your client got carried a scrollId/,
    );
    const folder = /report: (\S+)/.exec(io.stderr())?.[1] ?? "";
    const junit = readFileSync(join(folder, "junit.xml"), "utf8");
    expect(junit).toMatch(/failures="2"/);
    const verify = captureIo();
    expect(await main(["report", "verify", folder], verify)).toBe(0);
  }, 60_000);

  it("with a MUST rule broken too, the headline names both", async () => {
    const r = await failing(3, "task-typo");
    expect(r.result.verdictReason).toMatch(
      /^your command failed \(exit 3\); MUST rule broken \(client\/request-within-contract\)/,
    );
    expect(renderMarkdown(r.result)).toMatch(
      /^## ❌ NOT CONFORMANT: your command failed \(exit 3\); MUST rule broken \(client\/request-within-contract\) · /,
    );
  }, 60_000);
});

describe("what a report of a client check holds", () => {
  it("validates against report.schema.json, renders in every format and keeps no secret or token", async () => {
    const r = await run(LANGUAGES.node(), { FAULT: "token-per-call" });
    const text = JSON.stringify(r.result) + JSON.stringify(r.exchanges);
    expect(r.exchanges.length).toBe(r.result.requestsSent);
    expect(text).not.toContain("nightly-sync-secret");
    // The report redacts by one placeholder; exchanges.ndjson labels each token and secret (redacted-token-1).
    expect(text).not.toMatch(/Bearer (?!\[redacted\]|redacted-(?:token|unissued)-\d)[A-Za-z0-9_-]{8,}/);
    for (const [, pair] of text.matchAll(/Basic ([A-Za-z0-9+/=]{8,})/g))
      expect(Buffer.from(pair as string, "base64").toString()).toMatch(/:redacted-secret-\d+$/);
    expect(text).toContain("[redacted]");
    const validate = reportValidator();
    expect(validate(r.result), JSON.stringify(validate.errors)).toBe(true);
    expect(renderJunit(r.result)).toContain("client/token-reuse");
    expect(renderMarkdown(r.result)).toContain("client/token-reuse");
    expect(renderHtml(r.result)).toContain("client/token-reuse");
    const written = writeReport(r.result, mkdtempSync(join(tmpdir(), "lckit-client-")));
    expect(existsSync(written.files.junit)).toBe(true);
    // Coverage: the caller requirements are proven or failing here, the provider ones are elsewhere.
    const coverage = r.result.coverage.requirements;
    expect(coverage.find((c) => c.id === "CALLER-TOKEN-01")?.status).toBe("failing");
    expect(coverage.find((c) => c.id === "CALLER-AUTH-01")?.status).toBe("proven");
    expect(coverage.find((c) => c.id === "TOKEN-STATE-01")?.status).toBe("elsewhere");
  }, 60_000);
});

describe("a 403 on a delete task names the client that may delete and the flag that picks it", () => {
  it("the default client (ROLE_RDM) is refused: the headline and report say --client nightly-sync; with it, no refusal and no advice", async () => {
    const refused = await clientCheck({ argv: [process.execPath, NODE_CLIENT], timeoutMs: 60_000 });
    const task = refused.traffic.exchanges.find((x) => x.operation === "createTask");
    expect(task?.status).toBe(403);
    expect(refused.result.verdictReason).toMatch(
      /the sandbox refused a delete task with 403 \(#\d+ POST \/tasks\/shop\): client order-service has ROLE_RDM, which may not delete; .*run it as nightly-sync \(ROLE_RDM_EDIT\) with --client nightly-sync$/,
    );
    const allowed = await run([process.execPath, NODE_CLIENT]);
    expect(allowed.traffic.exchanges.find((x) => x.operation === "createTask")?.status).toBe(202);
    expect(allowed.result.verdictReason).not.toMatch(/refused a delete task/);
  }, 120_000);

  it("with no client of the data that may delete, it says to add one to the --data file", () => {
    const traffic = {
      exchanges: [{ operation: "createTask", status: 403, seq: 3, method: "POST", pathname: "/tasks/t" }],
    } as unknown as Parameters<typeof deleteRoleHint>[0];
    const clients = [
      { clientId: "a", authorities: ["ROLE_RDM"] },
      { clientId: "b", authorities: ["ROLE_RDM"] },
    ];
    expect(deleteRoleHint(traffic, clients, "a", "t", false)).toMatch(
      /client a has ROLE_RDM, which may not delete; no client of the data has ROLE_RDM_EDIT or ROLE_ADMIN_TENANT_t: add one to your --data file and pick it with --client$/,
    );
    // The tenant's admin role may delete too.
    expect(
      deleteRoleHint(
        traffic,
        [...clients, { clientId: "admin", authorities: ["ROLE_ADMIN_TENANT_t"] }],
        "a",
        "t",
        false,
      ),
    ).toMatch(/with --client admin$/);
    expect(deleteRoleHint({ exchanges: [] }, clients, "a", "t", false)).toBeUndefined();
  });
});

describe("commands that do not get judged", () => {
  it("a command that makes no request is no pass: exit 2, naming the LCKIT_ variables", async () => {
    const r = await run([process.execPath, "-e", "process.exit(0)"]);
    expect(r.exitCode).toBe(2);
    expect(
      r.result.checks.filter((c) => c.id !== COMMAND_CHECK_ID).every((c) => c.status === "skipped"),
    ).toBe(true);
    expect(r.result.verdictReason).toMatch(/made no request to the sandbox.*LCKIT_BASE_URL/);
    expect(r.result.verdict).not.toBe("CONFORMANT");
  });

  it("a command that is not found: exit 2 and a report saying so", async () => {
    const r = await run(["lckit-no-such-command-xyz"]);
    expect(r.exitCode).toBe(2);
    expect(r.outcome.startError).toMatch(/lckit-no-such-command-xyz: command not found/);
    // The headline names the real cause first (the spawn error), not "made no request" nor INTERRUPTED.
    expect(r.result.verdictReason).toMatch(
      /^the command could not start: spawn lckit-no-such-command-xyz ENOENT: .*check its spelling/,
    );
    expect(r.result.verdict).not.toBe("INTERRUPTED");
    expect(r.result.interruption).toBeUndefined();
    expect(r.result.checks.find((c) => c.id === COMMAND_CHECK_ID)?.status).toBe("failed");
  });

  it("a whole command line given as one quoted word: says to split the words or use sh -c", async () => {
    const r = await run(["npm test"]);
    expect(r.exitCode).toBe(2);
    expect(r.outcome.startError).toBe(
      'spawn npm test ENOENT: "npm test": no program has that name: the command was given as one quoted word, and the kit runs no shell; give its words apart (lckit client check -- npm test) or through a shell (lckit client check -- sh -c "npm test")',
    );
    expect(r.outcome.startError).not.toMatch(/give the command after --/);
  });

  it("a command that hangs is stopped with its whole process group at the time limit: exit 3", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lckit-hang-"));
    const pidFile = join(dir, "child.pid");
    // The command starts a grandchild that would outlive it, then waits forever.
    const script = `const { spawn } = require("node:child_process");
      const c = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
      require("node:fs").writeFileSync(${JSON.stringify(pidFile)}, String(c.pid));
      setInterval(() => {}, 1000);`;
    const r = await run([process.execPath, "-e", script], {}, { timeoutMs: 1_500 });
    expect(r.outcome.timedOut).toBe(true);
    expect(r.exitCode).toBe(3);
    expect(r.result.verdict).toBe("INTERRUPTED");
    expect(r.result.verdictReason).toMatch(/time limit; its process group was stopped/);
    const grandchild = Number(readFileSync(pidFile, "utf8"));
    let alive = true;
    for (let i = 0; i < 50 && alive; i++) {
      try {
        process.kill(grandchild, 0);
        await new Promise((resolve) => setTimeout(resolve, 100));
      } catch {
        alive = false;
      }
    }
    expect(alive).toBe(false);
  }, 30_000);

  it("a command killed by a signal: exit 3, the signal named", async () => {
    const r = await run(["/bin/sh", "-c", "kill -9 $$"]);
    expect(r.outcome.signal).toBe("SIGKILL");
    expect(r.exitCode).toBe(3);
    expect(r.result.verdictReason).toMatch(/killed by SIGKILL/);
  });
});

describe("lckit client check (CLI)", () => {
  it("prints the verdict, writes the report and exits with the run's code", async () => {
    const io = captureIo();
    const dir = mkdtempSync(join(tmpdir(), "lckit-client-cli-"));
    const code = await main(
      [
        "client",
        "check",
        "--quiet",
        "--client",
        "nightly-sync",
        "--report-dir",
        dir,
        "--",
        process.execPath,
        NODE_CLIENT,
      ],
      io,
    );
    expect(code).toBe(0);
    expect(io.stdout()).toMatch(/^CONFORMANT: /);
    // A provider's requirements that no command can check are said beside a provider's verdict, not a client's.
    expect(io.stdout()).not.toMatch(/not checkable|TOKEN-QUOTA-05/);
    expect(io.stderr()).toMatch(/report: /);
    const folder = /report: (\S+)/.exec(io.stderr())?.[1] ?? "";
    const lines = readFileSync(join(folder, "exchanges.ndjson"), "utf8").trim().split("\n");
    // A token, two pages of lookups and two of statistics (the default world pages at 100), blocked values,
    // a delete task, a status call after the clock passed the token's validity (refused: expired), a new
    // token and the status call again, two health checks under a rate limit (the second refused, then retried).
    expect(lines.length).toBe(13);
    const summaryMd = readFileSync(join(folder, "summary.md"), "utf8");
    expect(summaryMd).toMatch(/^## ✅ CONFORMANT: client: /);
    expect(summaryMd).not.toMatch(/Target \/version|seed|runs per property|Not checkable/);
    expect(lines.join("\n")).not.toContain("nightly-sync-secret");
  }, 60_000);

  it("proves the report folder writable before it runs the command, and lists exchanges.ndjson in the manifest", async () => {
    const io = captureIo();
    const marker = join(mkdtempSync(join(tmpdir(), "lckit-client-ran-")), "ran");
    const touch = ["-e", `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "")`];
    const refused = await main(
      ["client", "check", "--report-dir", "/proc/lckit-reports", "--", process.execPath, ...touch],
      io,
    );
    expect(refused).toBe(2);
    expect(io.stderr()).toMatch(/--report-dir \/proc\/lckit-reports is under \/proc/);
    expect(existsSync(marker)).toBe(false);

    const written = captureIo();
    const dir = mkdtempSync(join(tmpdir(), "lckit-client-manifest-"));
    await main(
      ["client", "check", "--quiet", "--report-dir", dir, "--", process.execPath, NODE_CLIENT],
      written,
    );
    const folder = /report: (\S+)/.exec(written.stderr())?.[1] ?? "";
    const manifest = JSON.parse(readFileSync(join(folder, "manifest.json"), "utf8")) as {
      files: { path: string }[];
    };
    expect(manifest.files.map((f) => f.path)).toContain("exchanges.ndjson");
  }, 60_000);

  it.each([
    [["client", "check"], /no command to run: give it after --/],
    [
      ["client", "check", "--variants", "no-such", "--", "true"],
      /--variants expects all, all,-NAME,... or a comma list of variant names: unknown variant name "no-such"/,
    ],
    [
      ["client", "check", "--fail-on", "never", "--", "true"],
      /--fail-on expects a comma-separated list of must, inconclusive, incomplete, not-exercised/,
    ],
    [["client", "check", "--client", "nobody", "--", "true"], /client "nobody" is not in the sandbox's data/],
    [
      ["client", "check", "--data", "/nonexistent.yaml", "--", "true"],
      /--data \/nonexistent.yaml: cannot be read/,
    ],
  ])("refuses %j as a usage error (exit 2) naming the fix", async (argv, want) => {
    const io = captureIo();
    expect(await main(argv, io)).toBe(2);
    expect(io.stderr()).toMatch(want);
  });
});
