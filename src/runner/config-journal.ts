// The journal of configuration changes a run makes (customers, clients): one NDJSON file, appended and
// flushed to disk BEFORE each change is sent, so that whatever ends the run (a check timeout, Ctrl-C,
// kill -9) the change can be undone: by the check itself, by the runner after the check, or by
// `lckit restore JOURNAL` from another process. It holds what to put back, never a credential.
import { closeSync, fsyncSync, openSync, readFileSync, writeSync } from "node:fs";
import type { ConfigChange, ConfigJournal, CredentialRole } from "../check/index.ts";
import { UserInputError } from "../usage-error.ts";

export const JOURNAL_FORMAT = "lckit-config-journal";
export const JOURNAL_FILE = "journal.ndjson";

export interface JournalHeader {
  format: typeof JOURNAL_FORMAT;
  version: 1;
  runId: string;
  /** Where the changes were made: lckit restore refuses a target file that points elsewhere. */
  target: { name: string; baseUrl: string; tenant: string };
  startedAt: string;
}

export interface JournalEntry {
  id: number;
  check: string;
  change: ConfigChange;
}

type JournalLine =
  | ({ op: "run" } & JournalHeader)
  | ({ op: "change"; id: number; check: string; at: string } & ConfigChange)
  | { op: "undone"; id: number; at: string; by: string };

/** The journal of one run. Without a file (library use, tests) it keeps the entries in memory only. */
export class RunJournal {
  private readonly open = new Map<number, JournalEntry>();
  private next = 1;
  /** Changes recorded in this run. */
  opened = 0;
  private fd: number | undefined;

  constructor(
    readonly file: string | undefined,
    header: JournalHeader,
    /** Applied to every change before it is written: the run's redactor, so no secret reaches the disk. */
    private readonly scrub: <T>(value: T) => T = (value) => value,
  ) {
    if (file !== undefined) {
      this.fd = openSync(file, "a", 0o600);
      this.write({ op: "run", ...header });
    }
  }

  /** The view a check gets: it opens and settles its own changes. */
  forCheck(checkId: string): ConfigJournal {
    return {
      open: (change) => this.record(checkId, change),
      settle: (id) => this.settle(id, "check"),
      pending: () => this.pending().filter((e) => e.check === checkId),
    };
  }

  record(checkId: string, change: ConfigChange): number {
    const id = this.next++;
    this.opened += 1;
    const clean = this.scrub(change);
    // Flushed before the caller sends the change: a kill right after still leaves the undo on disk.
    this.write({ op: "change", id, check: checkId, at: new Date().toISOString(), ...clean });
    this.open.set(id, { id, check: checkId, change: clean });
    return id;
  }

  settle(id: number, by: string): void {
    if (!this.open.delete(id)) return;
    this.write({ op: "undone", id, at: new Date().toISOString(), by });
  }

  /** Changes not undone yet, oldest first. */
  pending(): JournalEntry[] {
    return [...this.open.values()];
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private write(line: JournalLine): void {
    if (this.fd === undefined) return;
    writeSync(this.fd, `${JSON.stringify(line)}\n`);
    fsyncSync(this.fd);
  }
}

/** Appends "undone" lines to an existing journal (lckit restore, from another process than the run's). */
export function markUndone(file: string, ids: readonly number[], by: string): void {
  const fd = openSync(file, "a");
  try {
    for (const id of ids) {
      const line: JournalLine = { op: "undone", id, at: new Date().toISOString(), by };
      writeSync(fd, `${JSON.stringify(line)}\n`);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** A journal file that cannot be used; lckit restore prints it (exit 2). */
export class JournalError extends UserInputError {
  override name = "JournalError";
}

/** Reads a journal file: its header and the changes no line marks as undone, oldest first. A last line
 *  cut by a kill is ignored (it was never complete, so its change was never sent). */
export function readJournal(file: string): { header: JournalHeader; pending: JournalEntry[] } {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new JournalError(
      `cannot read journal ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)}); ` +
        `pass the journal.ndjson the interrupted run named (in its report folder)`,
    );
  }
  const lines = text.split("\n");
  let header: JournalHeader | undefined;
  const open = new Map<number, JournalEntry>();
  for (const [index, raw] of lines.entries()) {
    if (raw.trim() === "") continue;
    let line: JournalLine;
    try {
      line = JSON.parse(raw) as JournalLine;
    } catch {
      if (index >= lines.length - 2) continue; // the torn last line of a killed run
      throw new JournalError(
        `${file}:${index + 1} is not a JSON line; is this a journal written by lckit run?`,
      );
    }
    if (line.op === "run") {
      if (line.format !== JOURNAL_FORMAT)
        throw new JournalError(`${file} is not an lckit configuration journal (format "${line.format}")`);
      const { op: _op, ...rest } = line;
      header = rest;
    } else if (line.op === "change") {
      const { op: _op, id, check, at: _at, ...change } = line;
      open.set(id, { id, check, change: change as ConfigChange });
    } else if (line.op === "undone") open.delete(line.id);
  }
  if (header === undefined)
    throw new JournalError(
      `${file} has no header line; expected a journal.ndjson written by lckit run (first line "op":"run")`,
    );
  return { header, pending: [...open.values()] };
}

/** What undoing needs: PUT a customer, upsert clients, a token per role (src/client provides the calls). */
export interface UndoDeps {
  putCustomer(token: string, customerId: string, customer: unknown): Promise<{ ok: boolean; status: number }>;
  putClients(token: string, customerId: string, clients: unknown): Promise<{ ok: boolean; status: number }>;
  token(role: CredentialRole): Promise<string>;
}

export interface UndoOutcome {
  entry: JournalEntry;
  ok: boolean;
  /** What was sent and how it went, for the report, the log and lckit restore's output. */
  message: string;
}

/** Undoes entries newest first (a later change may rest on an earlier one); one failure does not stop
 *  the others. The caller settles the entries that were undone. */
export async function undoChanges(entries: readonly JournalEntry[], deps: UndoDeps): Promise<UndoOutcome[]> {
  const outcomes: UndoOutcome[] = [];
  for (const entry of [...entries].reverse()) {
    const { change } = entry;
    const what =
      change.kind === "customer"
        ? `PUT customer ${change.customerId} as it was`
        : `PUT .../customers/${change.customerId}/clients with client ${change.clientId} as it was (${JSON.stringify(change.restore)})`;
    try {
      const token = await deps.token(change.role);
      const response =
        change.kind === "customer"
          ? await deps.putCustomer(token, change.customerId, change.restore)
          : await deps.putClients(token, change.customerId, [
              { clientId: change.clientId, ...change.restore },
            ]);
      outcomes.push({
        entry,
        ok: response.ok,
        message: `${what}: ${response.ok ? "restored" : `answered ${response.status}`} (change ${entry.id} of check ${entry.check})`,
      });
    } catch (error) {
      outcomes.push({
        entry,
        ok: false,
        message: `${what}: ${error instanceof Error ? error.message : String(error)} (change ${entry.id} of check ${entry.check})`,
      });
    }
  }
  return outcomes;
}
