// lckit restore: puts back the configuration changes a run journalled and could not undo itself (it was
// killed with -9, the machine went down). The journal holds what to put back; the credentials come from
// the same target file as the run's, so the journal never holds a secret.
import { resolve } from "node:path";
import { createClient } from "../../client/index.ts";
import { Redactor } from "../../redaction/redact.ts";
import { RUN_DEFAULTS } from "../../run-defaults.ts";
import { markUndone, readJournal, undoChanges } from "../../runner/config-journal.ts";
import { readTargetFile } from "../../session/run-session.ts";
import { systemClock } from "../../target/system-clock.ts";
import { TokenCache } from "../../transport/token-cache.ts";
import { CheckScope, RESTORE_SCOPE, TargetTransport } from "../../transport/transport.ts";
import { option, toggle } from "../argv.ts";
import { defineCommand } from "../command.ts";
import { text } from "../flags.ts";
import { type CliIo, UsageError } from "../io.ts";

export const command = defineCommand(
  {
    name: "restore",
    summary: "put back the configuration changes a killed run left (from its journal)",
    positionals: "JOURNAL",
    synopsis: "--target FILE [--dry-run]",
    about: `Puts back the configuration changes (customers, clients) that a run of lckit run made and did not undo,
for example because it was killed with kill -9. JOURNAL is the journal.ndjson in the run's report folder
(lckit run prints its path when it starts); FILE is the target file of that run, whose credentials the
restore uses (the journal holds no secret). Changes are put back newest first; each one put back is
marked in the journal, so running the command again is safe.`,
    flags: {
      target: option("FILE", text, "the target file of the run (required)", { example: "target.yaml" }),
      "dry-run": toggle("print what would be put back; send nothing"),
    },
    notes: `Exit codes: 0 everything is back (or nothing was left to do), 2 usage or configuration error,
3 some changes could not be put back (the messages say why; run the command again once fixed).`,
  },
  async ({ values, positionals }, io) => {
    const [journalArg, ...extra] = positionals;
    if (journalArg === undefined || extra.length > 0)
      throw new UsageError(
        "expected exactly one JOURNAL (the journal.ndjson of the run's report folder); see lckit restore --help",
      );
    if (values.target === undefined)
      throw new UsageError(
        "--target FILE is required: the target file of the run, for its URL and credentials (the journal holds no secret)",
      );
    return restore(resolve(io.cwd, journalArg), values.target, values["dry-run"], io);
  },
);

async function restore(file: string, targetFile: string, dryRun: boolean, io: CliIo): Promise<number> {
  // A journal that cannot be read is a JournalError: the user's input (exit 2).
  const journal = readJournal(file);
  const config = readTargetFile(targetFile, io.cwd, io.env);
  const { target } = config;
  if (journal.header.target.baseUrl !== target.baseUrl)
    throw new UsageError(
      `the journal records changes to ${journal.header.target.baseUrl} (target "${journal.header.target.name}"), ` +
        `but ${targetFile} points at ${target.baseUrl}; pass the target file of that run`,
    );
  const { pending } = journal;
  if (pending.length === 0) {
    io.out(`nothing to restore: every change journalled by run ${journal.header.runId} was put back\n`);
    return 0;
  }
  if (dryRun) {
    for (const e of [...pending].reverse())
      io.out(
        `would put back ${e.change.kind} ${e.change.kind === "client" ? `${e.change.clientId} of customer ` : ""}${e.change.customerId} (changed by ${e.check})\n`,
      );
    return 0;
  }
  const redactor = new Redactor();
  for (const credential of Object.values(target.credentials)) redactor.addSecret(credential?.clientSecret);
  const transport = new TargetTransport({
    fetch: (request) => fetch(request),
    redactor,
    rateLimit: config.rateLimit,
    timeoutMs: config.timeoutMs ?? RUN_DEFAULTS.timeoutMs,
  });
  const scope = new CheckScope(RESTORE_SCOPE, "write");
  const scoped = transport.bind(scope);
  const client = createClient({ fetch: scoped, baseUrl: target.baseUrl, rdmUrl: target.rdmUrl });
  const tokens = new TokenCache(target, redactor);
  const clock = systemClock();
  let outcomes: Awaited<ReturnType<typeof undoChanges>>;
  try {
    outcomes = await undoChanges(pending, {
      putCustomer: (token, id, customer) => client.putCustomer(token, id, customer),
      putClients: (token, id, clients) => client.putClients(token, id, clients),
      token: (role) => tokens.token(role, scoped, clock, RESTORE_SCOPE),
    });
  } finally {
    scope.close();
  }
  markUndone(
    file,
    outcomes.filter((o) => o.ok).map((o) => o.entry.id),
    "lckit restore",
  );
  for (const o of outcomes) io.out(`${o.ok ? "restored" : "NOT RESTORED"}: ${redactor.text(o.message)}\n`);
  const failed = outcomes.filter((o) => !o.ok).length;
  if (failed === 0) {
    io.out(`every change of run ${journal.header.runId} is back (${outcomes.length})\n`);
    return 0;
  }
  io.err(
    `lckit restore: ${failed} of ${outcomes.length} changes could not be put back; fix what the messages ` +
      "say and run the command again (the changes put back are marked in the journal)\n",
  );
  return 3;
}
