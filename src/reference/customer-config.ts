// PUT/POST {base_url}/oauth/customers/{customerId} and PUT .../clients (docs/assumptions.md, "Customer and
// client configuration"). Everything is validated before anything is stored.
import type { Hono } from "hono";
import { authenticate, isTenantAdmin, type Principal, TENANT_ADMIN_PREFIX } from "./auth.ts";
import type { ReferenceContext } from "./context.ts";
import { forbidden, jsonResponse, notFound, validationError } from "./errors.ts";
import { describeType, readJson } from "./http-body.ts";
import { DEFAULT_VALIDITY_SECONDS, MAX_ACTIVE_TOKENS_LIMIT } from "./token-quota.ts";
import type { Client, Customer, StoredClient } from "./types.ts";

const QUOTA_FIELD = "multitokenConfig.clientCredentialsMultiTokenConfig.maxActiveTokensAllowed";

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function checkStrings(field: string, value: unknown, nonEmpty = false): string[] {
  if (!Array.isArray(value))
    throw validationError(field, `expected an array of strings, got ${describeType(value)}`);
  value.forEach((item, i) => {
    if (typeof item !== "string" || (nonEmpty && item === "")) {
      throw validationError(
        `${field}[${i}]`,
        `expected a${nonEmpty ? " non-empty" : ""} string, got ${describeType(item)}`,
      );
    }
  });
  return value as string[];
}

function requireAdmin(
  ctx: ReferenceContext,
  principal: Principal,
  customerId: string,
  tenants: readonly string[],
): void {
  if (principal.anonymous || tenants.some((t) => isTenantAdmin(principal, t))) return;
  const onList = tenants.some((t) => principal.tenants.includes(t));
  if (onList && ctx.faults.has("configuration-open-to-viewer")) return;
  throw forbidden(
    `client "${principal.clientId}" may not configure customer "${customerId}"; this needs ROLE_ADMIN_TENANT_<t> for one of its tenants (${tenants.join(", ") || "none"})`,
  );
}

/**
 * Configuration stays within what the caller administers: every tenant a change adds to or removes from a
 * customer, and every ROLE_ADMIN_TENANT_{t} it gives a client, needs ROLE_ADMIN_TENANT_{t} of the caller.
 */
function requireAdministers(principal: Principal, tenants: Iterable<string>, what: string): void {
  if (principal.anonymous) return;
  const foreign = [...new Set(tenants)].filter((t) => !isTenantAdmin(principal, t));
  if (foreign.length === 0) return;
  throw forbidden(
    `client "${principal.clientId}" may not ${what} ${foreign.map((t) => `"${t}"`).join(", ")}: that needs ROLE_ADMIN_TENANT_<t> for each, and the caller administers only ${
      administeredBy(principal.authorities).join(", ") || "no tenant"
    }`,
  );
}

/** Tenants named by ROLE_ADMIN_TENANT_{t} authorities. */
function administeredBy(authorities: unknown): string[] {
  if (!Array.isArray(authorities)) return [];
  return authorities
    .filter((a): a is string => typeof a === "string" && a.startsWith(TENANT_ADMIN_PREFIX))
    .map((a) => a.slice(TENANT_ADMIN_PREFIX.length));
}

/** Type checks of the customer fields present in a body; absent fields are fine (POST merges). */
function checkCustomerFields(
  ctx: ReferenceContext,
  customerId: string,
  body: Record<string, unknown>,
  method: "PUT" | "POST",
): void {
  if (body.id !== undefined && body.id !== customerId) {
    throw validationError(
      "id",
      `must equal the customerId of the path ("${customerId}"), got ${describeType(body.id)}`,
    );
  }
  if (body.tenants !== undefined) {
    checkStrings("tenants", body.tenants, true).forEach((tenant, i) => {
      if (!ctx.state.tenants.has(tenant)) {
        throw validationError(
          `tenants[${i}]`,
          `unknown tenant "${tenant}"; known tenants: ${[...ctx.state.tenants.keys()].join(", ")}`,
        );
      }
    });
  }
  if (body.externalProviderConfig !== undefined && !Array.isArray(body.externalProviderConfig)) {
    throw validationError(
      "externalProviderConfig",
      `expected an array, got ${describeType(body.externalProviderConfig)}`,
    );
  }
  if (body.description !== undefined && typeof body.description !== "string") {
    throw validationError("description", `expected a string, got ${describeType(body.description)}`);
  }
  if (body.caseSensitiveLoginEnabled !== undefined && typeof body.caseSensitiveLoginEnabled !== "boolean") {
    throw validationError(
      "caseSensitiveLoginEnabled",
      `expected a boolean, got ${describeType(body.caseSensitiveLoginEnabled)}`,
    );
  }
  if (body.applicationClients !== undefined) checkStrings("applicationClients", body.applicationClients);
  if (body.customerSpecificRoles !== undefined)
    checkStrings("customerSpecificRoles", body.customerSpecificRoles);
  const mt = body.multitokenConfig;
  if (mt === undefined || mt === null) return;
  if (!isObject(mt)) throw validationError("multitokenConfig", `expected an object, got ${describeType(mt)}`);
  const cc = mt.clientCredentialsMultiTokenConfig;
  if (cc === undefined || cc === null) return;
  if (!isObject(cc)) {
    throw validationError(
      "multitokenConfig.clientCredentialsMultiTokenConfig",
      `expected an object, got ${describeType(cc)}`,
    );
  }
  const max = cc.maxActiveTokensAllowed;
  if (max === undefined) return;
  // The second fault enforces the ceiling on one of the two ways of writing a customer only.
  const over =
    ctx.faults.has("quota-201-accepted") ||
    (method === "POST" && ctx.faults.has("quota-201-accepted-by-post"));
  const limit = over ? MAX_ACTIVE_TOKENS_LIMIT + 1 : MAX_ACTIVE_TOKENS_LIMIT;
  const least = ctx.faults.has("quota-0-accepted") ? 0 : 1;
  if (typeof max !== "number" || !Number.isInteger(max) || max < least || max > limit) {
    throw validationError(
      QUOTA_FIELD,
      `expected an integer from 1 to ${MAX_ACTIVE_TOKENS_LIMIT} (${MAX_ACTIVE_TOKENS_LIMIT} is the platform limit), got ${describeType(max)}`,
    );
  }
}

/** Rules on the customer as it would be stored. */
function checkCustomer(ctx: ReferenceContext, customer: Customer): void {
  if (customer.multitokenConfig === undefined || ctx.faults.has("rdbms-rule-ignored")) return;
  const rdbms = (customer.tenants ?? []).filter(
    (t) => ctx.state.tenants.get(t)?.authMigrationMode === "rdbms",
  );
  if (rdbms.length > 0) {
    throw validationError(
      "multitokenConfig",
      `multi-token support needs Cassandra-based authorization, but tenant ${rdbms.map((t) => `"${t}"`).join(", ")} uses auth.migration.mode=rdbms; remove multitokenConfig`,
    );
  }
}

async function writeCustomer(
  ctx: ReferenceContext,
  request: Request,
  customerId: string,
  method: "PUT" | "POST",
  merge: boolean,
) {
  const principal = authenticate(ctx, request);
  const stored = ctx.state.customers.get(customerId);
  if (stored) requireAdmin(ctx, principal, customerId, stored.tenants ?? []);
  const body = await readJson(request);
  if (!isObject(body))
    throw validationError(
      "body",
      `expected a Customer object, got ${body === undefined ? "no body" : describeType(body)}`,
    );
  if (merge && body.id !== undefined && ctx.faults.has("customer-post-with-id-refused")) {
    throw validationError("id", "must not be given on POST; the customer id is the path's customerId");
  }
  checkCustomerFields(ctx, customerId, body, method);
  const next: Record<string, unknown> = merge
    ? { ...stored, ...body, id: customerId }
    : { ...body, id: customerId };
  // The fault: a POST that sets a quota where one is stored keeps the stored one (a change reaches the
  // token endpoint by PUT only).
  if (
    method === "POST" &&
    isObject(body.multitokenConfig) &&
    stored?.multitokenConfig &&
    ctx.faults.has("quota-change-ignored-on-post")
  )
    next.multitokenConfig = stored.multitokenConfig;
  if (next.multitokenConfig === null) delete next.multitokenConfig;
  const customer = next as Customer;
  if (!stored) requireAdmin(ctx, principal, customerId, customer.tenants ?? []);
  const before = new Set(stored?.tenants ?? []);
  const after = new Set(customer.tenants ?? []);
  const changed = [...after].filter((t) => !before.has(t)).concat([...before].filter((t) => !after.has(t)));
  // The document's validation rule first, so its error names the field whoever asks; then the tenants.
  try {
    checkCustomer(ctx, customer);
  } catch (error) {
    // The fault: the validation error is answered, but the customer is stored first.
    if (ctx.faults.has("rdbms-refusal-still-stored")) ctx.state.customers.set(customerId, customer);
    throw error;
  }
  requireAdministers(principal, changed, `add or remove, for customer "${customerId}", the tenant`);
  ctx.state.customers.set(customerId, customer);
  if (ctx.variants.has("customer-answer-no-body")) return new Response(null, { status: 204 });
  return jsonResponse(merge && ctx.faults.has("customer-post-answers-201") ? 201 : 200, customer);
}

function checkClient(
  ctx: ReferenceContext,
  customerId: string,
  raw: unknown,
  i: number,
  seen: Set<string>,
): Client {
  const at = (field: string) => `[${i}].${field}`;
  if (!isObject(raw)) throw validationError(`[${i}]`, `expected a Client object, got ${describeType(raw)}`);
  const id = raw.clientId;
  if (typeof id !== "string" || id === "")
    throw validationError(at("clientId"), `expected a non-empty string, got ${describeType(id)}`);
  if (seen.has(id)) throw validationError(at("clientId"), `"${id}" appears twice in the body`);
  seen.add(id);
  const owner = ctx.state.clients.get(id);
  if (owner && owner.customerId !== customerId) {
    throw validationError(at("clientId"), `client "${id}" belongs to customer "${owner.customerId}"`);
  }
  for (const field of ["scope", "authorities", "resourceIds", "authorizedGrantTypes", "redirectUri"]) {
    if (raw[field] !== undefined) checkStrings(at(field), raw[field]);
  }
  if (raw.clientSecret !== undefined && (typeof raw.clientSecret !== "string" || raw.clientSecret === "")) {
    throw validationError(
      at("clientSecret"),
      `expected a non-empty string, got ${describeType(raw.clientSecret)}`,
    );
  }
  if (raw.clientSecret === undefined && !owner) {
    throw validationError(at("clientSecret"), `required for the new client "${id}"`);
  }
  for (const [field, min] of [
    ["accessTokenValidity", 1],
    ["refreshTokenValidity", 0],
  ] as const) {
    const value = raw[field];
    if (value !== undefined && (typeof value !== "number" || !Number.isInteger(value) || value < min)) {
      throw validationError(
        at(field),
        `expected an integer number of seconds >= ${min}, got ${describeType(value)}`,
      );
    }
  }
  // Upsert: fields of the body replace the stored ones; absent fields keep their stored (or default) value.
  const base: Client = owner?.client ?? {
    clientId: id,
    clientSecret: "",
    scope: [],
    authorities: [],
    resourceIds: [],
    authorizedGrantTypes: ["client_credentials"],
    redirectUri: [],
    accessTokenValidity: DEFAULT_VALIDITY_SECONDS,
  };
  return { ...base, ...raw, clientId: id } as Client;
}

/** A stored client as the clients endpoint answers it: without its secret. */
function answeredClient(ctx: ReferenceContext, client: Client): Record<string, unknown> {
  if (ctx.faults.has("clients-answer-with-secrets")) return { ...client };
  const { clientSecret: _secret, ...rest } = client;
  if (ctx.faults.has("clients-answer-validity-as-string")) {
    return { ...rest, accessTokenValidity: String(rest.accessTokenValidity) };
  }
  return rest;
}

export function customerConfigRoutes(app: Hono, ctx: ReferenceContext): void {
  app.put("/oauth/customers/:customerId", (c) =>
    writeCustomer(
      ctx,
      c.req.raw,
      c.req.param("customerId"),
      "PUT",
      ctx.faults.has("put-merges") || ctx.variants.has("put-customer-merges"),
    ),
  );
  app.post("/oauth/customers/:customerId", (c) =>
    writeCustomer(ctx, c.req.raw, c.req.param("customerId"), "POST", true),
  );

  app.put("/oauth/customers/:customerId/clients", async (c) => {
    const customerId = c.req.param("customerId");
    const principal = authenticate(ctx, c.req.raw);
    let customer = ctx.state.customers.get(customerId);
    if (!customer && ctx.faults.has("unknown-customer-clients-created")) {
      // The fault: the unknown customer is made up on the fly, with the caller's tenants.
      customer = { id: customerId, tenants: [...principal.tenants] };
      ctx.state.customers.set(customerId, customer);
    }
    if (!customer)
      throw notFound(
        `customer "${customerId}" does not exist; create it with PUT /oauth/customers/${customerId}`,
      );
    requireAdmin(ctx, principal, customerId, customer.tenants ?? []);
    if (ctx.faults.has("admin-config-refused") && !principal.anonymous) {
      throw forbidden(`client "${principal.clientId}" may not configure clients; this needs ROLE_ADMIN`);
    }
    const body = await readJson(c.req.raw);
    if (!Array.isArray(body)) {
      throw validationError(
        "body",
        `expected an array of Client objects, got ${body === undefined ? "no body" : describeType(body)}`,
      );
    }
    if (body.length === 0 && ctx.variants.has("clients-empty-list-refused"))
      throw validationError("body", "expected at least one Client object, got an empty array");
    const seen = new Set<string>();
    const clients = body.map((raw, i) => checkClient(ctx, customerId, raw, i, seen));
    // Admin roles a client gains (kept ones are no escalation): each needs the caller to hold it too.
    requireAdministers(
      principal,
      clients.flatMap((client) => {
        const had = new Set(administeredBy(ctx.state.clients.get(client.clientId)?.client.authorities));
        return administeredBy(client.authorities).filter((t) => !had.has(t));
      }),
      "give a client ROLE_ADMIN_TENANT of the tenant",
    );
    const known = new Set(customer.applicationClients ?? []);
    const added = clients.map((client) => client.clientId).filter((id) => !known.has(id));
    for (const client of clients)
      ctx.state.clients.set(client.clientId, { customerId, client } satisfies StoredClient);
    // The fault: a validity written for one client is stored for every client of the customer.
    const validity = body.find(
      (raw) => isObject(raw) && raw.accessTokenValidity !== undefined,
    )?.accessTokenValidity;
    if (typeof validity === "number" && ctx.faults.has("validity-set-for-whole-customer"))
      for (const stored of ctx.state.clients.values())
        if (stored.customerId === customerId)
          stored.client = { ...stored.client, accessTokenValidity: validity };
    if (added.length > 0) {
      ctx.state.customers.set(customerId, { ...customer, applicationClients: [...known, ...added] });
    }
    if (ctx.variants.has("clients-answer-no-body")) return new Response(null, { status: 204 });
    return jsonResponse(
      200,
      clients.map((client) => answeredClient(ctx, client)),
    );
  });
}
