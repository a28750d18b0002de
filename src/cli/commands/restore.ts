// lckit restore: puts back the configuration changes a run journalled and could not undo itself
// (src/session/restore.ts). This file parses the flags, prints what was put back (or would be, or that
// nothing was left) and exits 0, or 3 when a change could not be put back.
import { resolve } from "node:path";
import { restoreJournal } from "../../session/restore.ts";
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

async function restore(journal: string, target: string, dryRun: boolean, io: CliIo): Promise<number> {
  const done = await restoreJournal({ journal, target, cwd: io.cwd, env: io.env, dryRun });
  if (done.kind === "nothing-pending") {
    io.out(`nothing to restore: every change journalled by run ${done.runId} was put back\n`);
    return 0;
  }
  if (done.kind === "dry-run") {
    for (const e of done.pending)
      io.out(
        `would put back ${e.change.kind} ${e.change.kind === "client" ? `${e.change.clientId} of customer ` : ""}${e.change.customerId} (changed by ${e.check})\n`,
      );
    return 0;
  }
  const { outcomes } = done;
  for (const o of outcomes) io.out(`${o.ok ? "restored" : "NOT RESTORED"}: ${o.message}\n`);
  const failed = outcomes.filter((o) => !o.ok).length;
  if (failed === 0) {
    io.out(`every change of run ${done.runId} is back (${outcomes.length})\n`);
    return 0;
  }
  io.err(
    `lckit restore: ${failed} of ${outcomes.length} changes could not be put back; fix what the messages ` +
      "say and run the command again (the changes put back are marked in the journal)\n",
  );
  return 3;
}
