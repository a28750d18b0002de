// Customer and client configuration: PUT/POST of a customer and PUT of its clients.

import { type Check, type CheckContext, explore, fail } from "../src/check/index.ts";
import { type Customer, describeResponse } from "../src/client/index.ts";
import { withCustomerRestored } from "./support/customer-restore.ts";
import { noClientUpserts } from "./support/data-operations.ts";
import { type CheckDefinition, defineCheck } from "./support/define.ts";
import { ensure, judgeSuccess } from "./support/response-judges.ts";
import { clientOf, credentialOf, customerIdOf } from "./support/target-client.ts";

/** What a check that changes the customer works with: the admin's client, the customer and how it was. */
interface CustomerChange {
  client: ReturnType<typeof clientOf>;
  customerId: string;
  original: Customer;
}

/** A check that writes the target's customer as the admin, put back as it was when the check ends. */
const customerCheck = (
  definition: Omit<CheckDefinition, "safety" | "needs" | "run"> & {
    run(ctx: CheckContext, change: CustomerChange): Promise<void>;
  },
) =>
  defineCheck({
    ...definition,
    safety: "write",
    needs: { roles: ["admin"] },
    async run(ctx) {
      const customerId = customerIdOf(ctx);
      await withCustomerRestored(ctx, "admin", customerId, (original) =>
        definition.run(ctx, { client: clientOf(ctx), customerId, original }),
      );
    },
  });

export const configurationChecks: Check[] = [
  customerCheck({
    id: "configuration/customer-put-post-accepted",
    title: "MUST accept a Customer object by PUT and by POST",
    requirements: ["CONFIG-CUSTOMER-01", "CONFIG-CUSTOMER-02", "AUTH-ROLES-01"],
    async run(ctx, { client, customerId, original }) {
      // The stored customer sent back: a change of nothing, under either semantics.
      ensure(
        judgeSuccess(
          await client.putCustomer(await ctx.token("admin"), customerId, original),
          "PUT of the customer",
        ),
      );
      explore(ctx, "method", "PUT customer");
      ensure(
        judgeSuccess(
          await client.postCustomer(await ctx.token("admin"), customerId, original),
          "POST of the customer",
        ),
      );
      explore(ctx, "method", "POST customer");
    },
  }),
  customerCheck({
    id: "configuration/put-replaces-post-merges",
    title:
      "SHOULD replace the customer on PUT and merge top-level fields on POST, answering the stored customer",
    requirements: ["CONFIG-CUSTOMER-03"],
    async run(ctx, { client, customerId, original }) {
      const description = `lckit check ${ctx.seed}`;
      const merged = await client.postCustomer(await ctx.token("admin"), customerId, { description });
      const body = merged.body as Record<string, unknown> | undefined;
      if (
        merged.status !== 200 ||
        body?.description !== description ||
        JSON.stringify(body?.tenants) !== JSON.stringify(original.tenants)
      )
        fail(
          `POST {description} should merge (description set, tenants kept) and answer 200 with the customer, got ${describeResponse(merged)}`,
        );
      const { description: _dropped, ...withoutDescription } = original;
      const replaced = await client.putCustomer(await ctx.token("admin"), customerId, withoutDescription);
      const stored = replaced.body as Record<string, unknown> | undefined;
      if (replaced.status !== 200 || stored === undefined || "description" in stored)
        fail(
          `PUT without description should replace the customer (no description left) and answer 200 with it, got ${describeResponse(replaced)}`,
        );
    },
  }),
  defineCheck({
    id: "configuration/clients-answer-without-secrets",
    title: "SHOULD answer PUT .../clients with 200 and the stored clients, secrets omitted",
    requirements: ["CONFIG-CLIENT-04", "CONFIG-CLIENT-01"],
    safety: "write",
    needs: { roles: ["admin", "viewer"] },
    async run(ctx) {
      const customerId = customerIdOf(ctx);
      const { clientId } = credentialOf(ctx, "viewer");
      // An upsert of the clientId alone: nothing changes under upsert semantics.
      const response = await clientOf(ctx).putClients(await ctx.token("admin"), customerId, [{ clientId }]);
      const clients = Array.isArray(response.body) ? (response.body as Record<string, unknown>[]) : undefined;
      if (response.status !== 200 || !clients?.some((c) => c.clientId === clientId))
        fail(
          `expected 200 with the stored clients (including ${clientId}), got ${describeResponse(response)}`,
        );
      if (clients.some((c) => "clientSecret" in c))
        fail("the answer carries clientSecret; secrets must be omitted");
    },
  }),
  defineCheck({
    id: "configuration/unknown-customer-404",
    title: "SHOULD refuse clients of an unknown customer with 404",
    requirements: ["CONFIG-CLIENT-06"],
    safety: "read",
    harmlessCalls: [noClientUpserts],
    needs: { roles: ["admin"] },
    async run(ctx) {
      const response = await clientOf(ctx).putClients(await ctx.token("admin"), "lckit-absent-customer", []);
      if (response.status !== 404)
        fail(`expected 404 for an unknown customer, got ${describeResponse(response)}`);
    },
  }),
];
