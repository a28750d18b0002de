// What a check changed and did not put back, put back by the runner.
import type { CredentialRole } from "../check/index.ts";
import { createClient } from "../client/index.ts";
import { CheckScope, RESTORE_SCOPE } from "../transport/transport.ts";
import type { Breaker } from "./breaker.ts";
import { type JournalEntry, undoChanges } from "./config-journal.ts";
import type { RunServices } from "./context.ts";

/** Undoes journal entries through a scope of their own (the check's scope is closed by now), with the
 *  run's tokens; each request keeps the per-request time limit, so a dead target cannot hold the run. */
export async function undoPending(entries: JournalEntry[], services: RunServices, breaker: Breaker) {
  const scope = new CheckScope(RESTORE_SCOPE, "write");
  const fetch = services.transport.bind(scope);
  const client = createClient({ fetch, baseUrl: services.target.baseUrl, rdmUrl: services.target.rdmUrl });
  // The run may have given up on the target; undoing is worth the attempt all the same.
  breaker.pause();
  try {
    return await undoChanges(entries, {
      putCustomer: (token, id, customer) => client.putCustomer(token, id, customer),
      putClients: (token, id, clients) => client.putClients(token, id, clients),
      token: (role: CredentialRole) => services.tokens.token(role, fetch, services.clock, RESTORE_SCOPE),
    });
  } finally {
    breaker.resume();
    scope.close();
  }
}
