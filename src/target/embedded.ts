// The embedded target: the reference implementation in this process, on a manual clock, reached through
// its fetch handler (no socket). `lckit run` without a target file certifies it.

import type { Clock, Target } from "../check/index.ts";
import { manualClock, type ReferenceClock } from "../reference/clock.ts";
import type { FaultName, Reference, ReferenceOptions, VariantName } from "../reference/index.ts";
import { lenientProfile, referenceProfile } from "./profile.ts";

export const EMBEDDED_URL = "http://reference.embedded";

/** What the runner needs of a reference implementation: its in-memory fetch and its clock (a test double
 *  provides just these). */
export type EmbeddedReference = Pick<Reference, "fetch" | "clock">;

/** Makes the reference, from the reference's own options; the embedded target always sets its clock (a
 *  manual one, which sleep() moves). */
export type ReferenceFactory = (
  options: ReferenceOptions & { clock: ReferenceClock },
) => EmbeddedReference | Promise<EmbeddedReference>;

export interface EmbeddedTarget {
  target: Target;
  /** Routed to reference.fetch. */
  fetch: (request: Request) => Promise<Response>;
  /** The reference's manual clock: sleep() moves it instead of waiting. A check's Clock whose advance is
   *  always there. */
  clock: Required<Pick<Clock, "now" | "sleep" | "advance">>;
  reference: EmbeddedReference;
}

export interface EmbeddedOptions {
  /** Seeded faults (src/reference/faults.ts) to certify a faulty variant. */
  faults?: string[];
  /** Variants (src/reference/variants.ts): correct choices other than the kit's where the document is
   *  silent. With any on, the target is described with the lenient profile, as an unknown target would be. */
  variants?: string[];
  /** Another reference (a test double, a wrapped reference); default: src/reference. */
  createReference?: ReferenceFactory;
}

/** The fixture world of docs/assumptions.md: tenant acme, second tenant globex, rdbms tenant legacy. */
export function embeddedTargetDescription(): Target {
  const credential = (clientId: string) => ({ clientId, clientSecret: `${clientId}-secret` });
  return {
    name: "embedded reference",
    baseUrl: EMBEDDED_URL,
    rdmUrl: EMBEDDED_URL,
    tenant: "acme",
    otherTenant: "globex",
    // The fixture's acme clients hold nothing of globex.
    otherTenantLackedBy: ["admin", "editor", "viewer"],
    rdbmsTenant: "legacy",
    customerId: "cust-acme",
    quotaCustomerId: "cust-acme",
    rdbmsCustomerId: "cust-legacy",
    // A second quota client in a customer of its own (also of tenant acme, administered by acme-admin):
    // a live run of the reference runs the quota checks in two lanes.
    quotaAlt: { customerId: "cust-acme-lab", credential: credential("acme-lab-quota") },
    credentials: {
      admin: credential("acme-admin"),
      editor: credential("acme-editor"),
      viewer: credential("acme-viewer"),
      quota: credential("acme-quota"),
      otherAdmin: credential("globex-admin"),
      rdbmsAdmin: credential("legacy-admin"),
    },
    profile: { ...referenceProfile },
    loopback: true,
    // In this process and gone when it ends: the kit may change and delete anything in it.
    disposable: true,
  };
}

export async function startEmbeddedTarget(options: EmbeddedOptions = {}): Promise<EmbeddedTarget> {
  const create = options.createReference ?? (await defaultFactory());
  // Names as the user gave them: the reference checks them and refuses an unknown one naming the known
  // ones (lckit run reports that as a usage error); checking here would load the reference for a test
  // double too.
  const reference = await create({
    clock: manualClock(),
    ...(options.faults === undefined ? {} : { faults: options.faults as FaultName[] }),
    ...(options.variants === undefined ? {} : { variants: options.variants as VariantName[] }),
  });
  const refClock = reference.clock;
  const clock: EmbeddedTarget["clock"] = {
    now: () => refClock.now(),
    advance: (ms) => refClock.advance(ms),
    // Waiting on a manual clock means moving it; the short real pause lets work the reference queued
    // (an asynchronous delete task) take its turn.
    async sleep(ms) {
      refClock.advance(Math.max(0, ms));
      await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(0, ms), 2)));
    },
  };
  const target = embeddedTargetDescription();
  if ((options.variants ?? []).length > 0) target.profile = { ...lenientProfile };
  // A variant whose admin client also administers globex: the description says so, as a target file would.
  if (options.variants?.includes("admin-administers-other-tenant"))
    target.otherTenantLackedBy = target.otherTenantLackedBy?.filter((role) => role !== "admin");
  return {
    target,
    fetch: (request) => reference.fetch(request),
    clock,
    reference,
  };
}

/** Loaded on first use, so the runner (and its tests with a test double) load without the reference. */
async function defaultFactory(): Promise<ReferenceFactory> {
  const { createReference } = await import("../reference/index.ts");
  return createReference;
}
