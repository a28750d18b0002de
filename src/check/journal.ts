// Configuration changes a check is about to make, journalled so that they can be put back.
import type { CredentialRole } from "./target.ts";

/** One configuration change a check is about to make, with what puts it back (never a secret). */
export type ConfigChange =
  | {
      kind: "customer";
      customerId: string;
      /** Role whose token PUTs the customer back. */
      role: CredentialRole;
      /** The customer as it was: PUT back as it stands. */
      restore: Record<string, unknown>;
    }
  | {
      kind: "client";
      customerId: string;
      clientId: string;
      role: CredentialRole;
      /** The client's fields as they were: upserted back through PUT .../clients. */
      restore: Record<string, unknown>;
    };

/** The run's journal of configuration changes: written to disk before a change is made, so the change can
 *  be undone by the runner (check timeout, interruption) or by `lckit restore` after the kit was killed. */
export interface ConfigJournal {
  /** Records the undo of a change about to be made; returns its id. Call before sending the change. */
  open(change: ConfigChange): number;
  /** The change was undone (by the check itself, the runner or lckit restore). */
  settle(id: number): void;
  /** Open (not yet undone) changes of this check's journal, oldest first. */
  pending(): readonly { id: number; change: ConfigChange }[];
}
