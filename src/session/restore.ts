// lckit restore from request to outcome, below the CLI: the configuration changes a run journalled and could
// not undo itself (it was killed with -9, the machine went down) put back, newest first, each one put back
// marked in the journal. The credentials come from the same target file as the run's, so the journal never
// holds a secret. `lckit restore` parses its flags, prints what this returns and exits by it.
import { createClient } from "../client/index.ts";
import { Redactor } from "../redaction/redact.ts";
import { RUN_DEFAULTS } from "../run-defaults.ts";
import {
  type JournalEntry,
  markUndone,
  readJournal,
  type UndoOutcome,
  undoChanges,
} from "../runner/config-journal.ts";
import { systemClock } from "../target/system-clock.ts";
import { TokenCache } from "../transport/token-cache.ts";
import { CheckScope, RESTORE_SCOPE, TargetTransport } from "../transport/transport.ts";
import { UsageError } from "../usage-error.ts";
import { readTargetFile } from "./run-session.ts";

export interface RestoreRequest {
  /** The journal.ndjson of the run's report folder (absolute). */
  journal: string;
  /** The target file of that run, as the user gave it (relative to `cwd`). */
  target: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Say what would be put back; send nothing. */
  dryRun: boolean;
}

/** What a restore did: nothing left to do, what it would put back (a dry run), or each change's outcome
 *  (its message redacted). */
export type RestoreOutcome = { runId: string } & (
  | { kind: "nothing-pending" }
  | { kind: "dry-run"; pending: JournalEntry[] }
  | { kind: "restored"; outcomes: UndoOutcome[] }
);

export async function restoreJournal(request: RestoreRequest): Promise<RestoreOutcome> {
  // A journal that cannot be read is a JournalError: the user's input (exit 2).
  const journal = readJournal(request.journal);
  const config = readTargetFile(request.target, request.cwd, request.env);
  const { target } = config;
  const runId = journal.header.runId;
  if (journal.header.target.baseUrl !== target.baseUrl)
    throw new UsageError(
      `the journal records changes to ${journal.header.target.baseUrl} (target "${journal.header.target.name}"), ` +
        `but ${request.target} points at ${target.baseUrl}; pass the target file of that run`,
    );
  const { pending } = journal;
  if (pending.length === 0) return { runId, kind: "nothing-pending" };
  if (request.dryRun) return { runId, kind: "dry-run", pending: [...pending].reverse() };
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
  let outcomes: UndoOutcome[];
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
    request.journal,
    outcomes.filter((o) => o.ok).map((o) => o.entry.id),
    "lckit restore",
  );
  return {
    runId,
    kind: "restored",
    outcomes: outcomes.map((o) => ({ ...o, message: redactor.text(o.message) })),
  };
}
