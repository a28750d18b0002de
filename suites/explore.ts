// The model-based explorer of the data operations: random sequences of reads (and, where the run allows
// destruction, delete tasks each followed by reads, with scrolls open across them), each observation judged
// against a model built from what the target's own read endpoints showed at the start
// (suites/support/data-oracle.ts). The read alphabet: explorer-reads.ts, explorer-defaults.ts (documented
// defaults against the answer naming them), explorer-continuations.ts (queries opened again, continuation
// pages in other token states); the destructive one: explorer-deletes.ts and explorer-across.ts. A failing
// sequence is shrunk and shown step by step with its exchanges, and replays with --seed and --path.
import fc from "fast-check";
import { type Check, type CheckContext, type CredentialRole, depthOf, explore } from "../src/check/index.ts";
import { observe } from "./support/data-oracle.ts";
import { defineCheck } from "./support/define.ts";
import { runShares, shareGone, tenantBeforeDeletes } from "./support/deleting-shares.ts";
import { AcrossPage, finishAcross, openAcross } from "./support/explorer-across.ts";
import { readAlphabet, readExamples } from "./support/explorer-continuations.ts";
import {
  type DeleteModel,
  DeleteType,
  deleteCommands,
  judgeLater,
  observeOtherTenant,
  settleAndJudge,
} from "./support/explorer-deletes.ts";
import { READING_ROLES, type ReadModel } from "./support/explorer-reads.ts";
import {
  type ExplorerReal,
  newBudget,
  noteBudget,
  sequence,
  startSequence,
} from "./support/explorer-steps.ts";
import { checkProperty } from "./support/property.ts";
import { scrollIdEncodingFact } from "./support/scroll-encoding.ts";
import { clientOf } from "./support/target-client.ts";

/** How far the explorer goes, per depth: sequences, their longest length, the requests each may send
 *  (the budget ends a sequence early) and all together, shrinking a failure included (the reads of the
 *  model at the start are not counted: about 10 requests on the embedded reference). The reads' fixed
 *  walks (readExamples: every continuation, default and tie once) come first, each with `walk` requests;
 *  a passing run sends at most runs x perSequence more. */
export const EXPLORER_DEPTH = {
  reads: {
    default: { runs: 7, commands: 10, perSequence: 8, walk: 40, cap: 600 },
    deep: { runs: 40, commands: 40, perSequence: 40, walk: 40, cap: 3000 },
  },
  deletes: {
    default: { runs: 1, commands: 10, perSequence: 75, cap: 75, laterMs: 5_000 },
    deep: { runs: 2, commands: 14, perSequence: 180, cap: 360, laterMs: 15_000 },
  },
} as const;

/** A page of a scroll opened before the tasks, read between them. */
const acrossPage = { weight: 1, arbitrary: fc.nat().map((s) => new AcrossPage(s)) };

/** Reading clients the target file names. */
function readingRoles(ctx: CheckContext): CredentialRole[] {
  return READING_ROLES.filter((role) => ctx.target.credentials[role] !== undefined);
}

const READ_REQUIREMENTS = [
  "SCAN-01",
  "SCAN-03",
  "SCAN-04",
  "SCAN-05",
  "SCAN-06",
  "SCAN-07",
  "LOOKUP-SCAN-03",
  "AUTOPILOT-02",
  "AUTOPILOT-03",
  "BLOCKED-02",
  "BLOCKED-03",
  "BLOCKED-05",
  "AUTH-ROLES-04",
  "AUTH-01",
  "AUTH-03",
];

export const exploreReads: Check = defineCheck({
  id: "explore/reads",
  title:
    "MUST answer any sequence of scans, continuations and blocked-values reads as the data read whole shows: each scroll exactly its records, in order, undisturbed by the others, never on another path nor without a valid token; a documented default as the answer naming it",
  requirements: READ_REQUIREMENTS,
  safety: "read",
  needs: { roles: ["admin"] },
  facts: [scrollIdEncodingFact],
  async run(ctx) {
    const depth = EXPLORER_DEPTH.reads[depthOf(ctx)];
    const client = clientOf(ctx);
    const observed = await observe(ctx, client);
    explore(
      ctx,
      "model",
      `${observed.lookups.length} lookups, ${observed.statistics.length} statistics, ${observed.types.length} types`,
    );
    const budget = newBudget(depth.perSequence, depth.cap);
    const roles = readingRoles(ctx);
    const other =
      ctx.target.otherTenant && ctx.target.credentials.otherAdmin ? ctx.target.otherTenant : undefined;
    // Tried first, on top of the drawn sequences (which stay the same): a few requests.
    const examples = readExamples(observed).map((c) => [c] as [typeof c]);
    const walks = new Set(examples.map(([c]) => c));
    try {
      await checkProperty(
        ctx,
        fc.asyncProperty(sequence(readAlphabet, depth.commands), async (commands) => {
          startSequence(budget, walks.has(commands) ? depth.walk : depth.perSequence);
          const model: ReadModel = {
            observed,
            roles,
            scrolls: [],
            opened: 0,
            budget,
            ...(other ? { otherTenant: other } : {}),
          };
          const real: ExplorerReal = { ctx, client, steps: [], budget };
          await fc.asyncModelRun(() => ({ model, real }), commands);
        }),
        // A replay (--path) runs the counterexample as it was shown: shrinking stopped where the request
        // cap ended it, and going on from there would show another, shorter sequence.
        { numRuns: depth.runs + examples.length, noShrink: ctx.replayPath !== undefined, examples },
      );
    } finally {
      noteBudget(ctx, budget, "reads");
      const { runs, commands, perSequence } = EXPLORER_DEPTH.reads.deep;
      explore(
        ctx,
        "explorer sequences",
        `reads, ${depthOf(ctx)}: ${examples.length} fixed walks of up to ${depth.walk} requests, then ${depth.runs} drawn sequences of up to ${depth.commands} commands and ${depth.perSequence} requests (deep: ${runs} of up to ${commands} and ${perSequence})`,
      );
    }
  },
});

export const exploreAfterDelete: Check = defineCheck({
  id: "explore/after-delete",
  title:
    "MUST show, after any sequence of delete tasks by URIs and by type, exactly the lookups the document's task semantics leave, every lookup of another tenant still there, and in scrolls opened before the tasks every record neither removed nor shown, once",
  requirements: ["TASK-04", "TASK-03", "TASK-01", "TASK-05", "SCAN-03", "SCAN-04", "SCAN-07"],
  safety: "destructive",
  changes: "data",
  needs: { roles: ["admin"] },
  facts: [scrollIdEncodingFact, tenantBeforeDeletes],
  async run(ctx) {
    const depth = EXPLORER_DEPTH.deletes[depthOf(ctx)];
    const client = clientOf(ctx);
    const observed = await observe(ctx, client);
    const budget = newBudget(depth.perSequence, depth.cap);
    try {
      // The data a sequence deletes is gone for the next one: no shrinking (noShrink), each run starts
      // from what the previous left (the model reads nothing again: it applies the tasks it sent).
      const shares = runShares(ctx, observed.lookups);
      if (!observed.lookups.some((l) => shares.uriShareOf(l) === "explorer"))
        shareGone(ctx, "explore/after-delete", "its third of the URIs");
      const model: DeleteModel = {
        observed,
        shares,
        remaining: [...observed.lookups],
        removed: new Map(),
        touched: new Set(),
        pending: [],
        budget,
      };
      // Another tenant's lookups, read before any task like the model's own (not in the sequences' budget).
      const setup: ExplorerReal = {
        ctx,
        client,
        steps: ["read the other tenant"],
        budget: newBudget(1e6, 1e6),
      };
      const other = await observeOtherTenant(setup, model);
      if (other) model.other = other;
      explore(ctx, "other tenant", other ? `${other.tenant}: ${other.lookups.size} lookups` : "none named");
      await checkProperty(
        ctx,
        fc.asyncProperty(
          sequence([...deleteCommands, acrossPage], depth.commands, 4),
          // Unbiased: a sequence runs once or twice a run, where a biased draw gives the smallest depth.
          fc.noBias(fc.nat()),
          fc.noBias(fc.constantFrom(1, 3, 10)),
          fc.noBias(fc.integer({ min: 1, max: 4 })),
          async (commands, typePick, limit, pagesBefore) => {
            startSequence(budget);
            const real: ExplorerReal = { ctx, client, steps: [], budget };
            // A scroll of every scan kind (and of the lookups of a type the URI tasks draw from) opened
            // before the run's first task and read to a drawn depth,
            // read on between the tasks and to its end after them.
            model.across = [];
            for (const kind of [0, 1, 2, 3]) {
              const scroll = await openAcross(model, real, kind, typePick, limit, pagesBefore);
              if (scroll) model.across.push(scroll);
            }
            await fc.asyncModelRun(
              () => ({ model, real }),
              [
                // Every run deletes the explorer's type first (or, once it is gone, a type the tenant holds
                // no lookup of): a fault of the task by type shows whatever else is drawn.
                new DeleteType(0),
                ...commands,
              ],
            );
            await settleAndJudge(model, real);
            for (const scroll of model.across) await finishAcross(model, real, scroll);
            model.across = [];
          },
        ),
        { numRuns: depth.runs, noShrink: true },
      );
      // Time passing: the whole tenant read again once the planned wait since the first task is over.
      const later: ExplorerReal = { ctx, client, steps: [], budget: newBudget(1e6, 1e6) };
      await judgeLater(model, later, depth.laterMs);
      budget.spent += later.budget.spent;
    } finally {
      noteBudget(ctx, budget, "after delete");
      const { runs, commands, perSequence } = EXPLORER_DEPTH.deletes.deep;
      explore(
        ctx,
        "explorer sequences",
        `after delete, ${depthOf(ctx)}: ${depth.runs} drawn sequences of up to ${depth.commands} commands and ${depth.perSequence} requests (deep: ${runs} of up to ${commands} and ${perSequence})`,
      );
    }
  },
});

export const exploreChecks: Check[] = [exploreReads, exploreAfterDelete];
