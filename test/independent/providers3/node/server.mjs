#!/usr/bin/env node
// "Heron": an independent provider of the lookup-data, token-quota and autopilot HTTP interface (batch 3).
// Written from the interface document alone, Node 20, node:http only.
//
// Design: every change of state is an event appended to a journal and folded into projections by one
// reducer (customers, clients, tokens, lookups, tasks). Reads never touch the journal: scans compile their
// query (filter, sort, order, limit) into a plan and compute each page lazily from the live projection,
// resuming after the sort key of the last record served (keyset cursor), so deletes between pages never
// shift a page boundary.
//
// FAULT=<name> switches on one deliberate fault, CHOICES=<a,b> legal variants where the document is silent.
import { createHash, createHmac, randomBytes, randomUUID } from "node:crypto";
import http from "node:http";

const FAULT_NAMES = [
  "fresh-token-per-request",
  "quota-off-by-one",
  "quota-counts-expired",
  "quota-shared-across-clients",
  "quota-raise-ignored",
  "multitoken-sticky-after-removal",
  "validity-change-ignored",
  "expiry-from-first-token",
  "expired-token-accepted",
  "scroll-cursor-per-client",
  "continuation-drops-filter",
  "continuation-skips-record",
  "scan-cache-after-delete",
  "delete-type-across-tenants",
  "filter-default-limit",
  "blocked-limit-default-with-offset",
  "health-no-auth",
  "version-key-renamed",
  "autopilot-limit-uncapped",
  "blocked-offset-ignored",
  "quota-max-unchecked",
  "rdbms-multitoken-accepted",
  "viewer-can-delete",
  "type-scan-prefix-match",
];
const CHOICE_NAMES = [
  "version-numeric",
  "limit-over-max-rejected",
  "scroll-id-per-page",
  "scroll-end-drops-id",
  "delete-task-deferred",
  "quota-error-400",
  "customer-post-merges",
  "status-open-set",
];

const FAULT = process.env.FAULT ?? "";
const CHOICES = new Set((process.env.CHOICES ?? "").split(",").filter(Boolean));
if (FAULT !== "" && !FAULT_NAMES.includes(FAULT)) {
  console.error(`unknown FAULT ${FAULT}; valid names: ${FAULT_NAMES.join(", ")}`);
  process.exit(2);
}
for (const c of CHOICES) {
  if (!CHOICE_NAMES.includes(c)) {
    console.error(`unknown CHOICES entry ${c}; valid names: ${CHOICE_NAMES.join(", ")}`);
    process.exit(2);
  }
}
const fault = (name) => FAULT === name;
const choice = (name) => CHOICES.has(name);

const now = () => Date.now();
const TYPE_PREFIX = "rdm/lookupTypes/";
const typeName = (t) => (typeof t === "string" && t.startsWith(TYPE_PREFIX) ? t.slice(TYPE_PREFIX.length) : t);
const MAX_QUOTA = 200;
const DEFAULT_QUOTA = 50; // the document does not show the default of maxActiveTokensAllowed
const PAGE_DEFAULT = 100;
const PAGE_MAX = 100;
const LOOKUP_PAGE_MAX = 1000; // bounds of the lookup scan's limit: not shown

// ---------------------------------------------------------------------------------------------------------
// Errors: API errors carry {errorCode, errorMessage}; the token endpoint speaks RFC 6749 section 5.2.
class HttpError extends Error {
  constructor(status, body, headers = {}) {
    super(typeof body === "string" ? body : JSON.stringify(body));
    this.status = status;
    this.body = typeof body === "string" ? { errorCode: status, errorMessage: body } : body;
    this.headers = headers;
  }
}
const bad = (message) => new HttpError(400, message);

// ---------------------------------------------------------------------------------------------------------
// Journal and projections.
const journal = [];
const state = {
  tenants: new Map(), // tenant -> { authMode }
  customers: new Map(), // id -> customer document (without applicationClients)
  clients: new Map(), // clientId -> { ...Client, customerId, roles, tenantList }
  tokens: new Map(), // token -> { token, clientId, issuedAt, expiresAt, multi }
  tokensByClient: new Map(), // clientId -> [token record] in issue order
  lookups: new Map(), // tenant -> Map(uri -> lookup)
  tasks: new Map(), // id -> task
  stats: new Map(), // tenant -> [statistic]
  blocked: new Map(), // tenant -> [blocked value]
};

function record(kind, data) {
  const event = { seq: journal.length + 1, at: now(), kind, data };
  journal.push(event);
  reduce(event);
  return event;
}

function reduce({ kind, data, at }) {
  switch (kind) {
    case "tenant.registered":
      state.tenants.set(data.tenant, { authMode: data.authMode });
      state.lookups.set(data.tenant, state.lookups.get(data.tenant) ?? new Map());
      break;
    case "customer.configured":
      state.customers.set(data.id, data.document);
      break;
    case "client.configured": {
      const previous = state.clients.get(data.clientId) ?? {};
      state.clients.set(data.clientId, { ...previous, ...data.fields });
      break;
    }
    case "token.issued": {
      state.tokens.set(data.token, { ...data });
      const list = state.tokensByClient.get(data.clientId) ?? [];
      list.push(state.tokens.get(data.token));
      state.tokensByClient.set(data.clientId, list);
      break;
    }
    case "lookup.stored":
      state.lookups.get(data.lookup.tenantId).set(uriOf(data.lookup), data.lookup);
      break;
    case "lookups.removed":
      for (const [tenant, uris] of Object.entries(data.byTenant)) {
        const table = state.lookups.get(tenant);
        for (const uri of uris) table?.delete(uri);
      }
      break;
    case "task.recorded":
      state.tasks.set(data.task.id, { ...data.task });
      break;
    case "task.finished":
      Object.assign(state.tasks.get(data.id), { status: "COMPLETED", finishedTime: at, deleted: data.deleted });
      break;
    case "stats.seeded":
      state.stats.set(data.tenant, data.records);
      break;
    case "blocked.seeded":
      state.blocked.set(data.tenant, data.values);
      break;
    default:
      throw new Error(`unknown event ${kind}`);
  }
}

const uriOf = (lookup) => `${lookup.tenantId}/${typeName(lookup.type)}/${lookup.code}`;

// ---------------------------------------------------------------------------------------------------------
// Seed data (deterministic).
/** Seed data's randomness: successive SHA-256 digests of a counter, the same on every start. */
function prng(seed) {
  let n = 0;
  return () => createHash("sha256").update(`${seed}:${n++}`).digest().readUInt32BE(0) / 4294967296;
}
const rand = prng(20261207);
const pick = (list) => list[Math.floor(rand() * list.length)];
const SEED_TIME = Date.UTC(2026, 10, 2, 8, 0, 0);

const TENANTS = { orchard: "cassandra", quarry: "cassandra", vault: "rdbms" };
const CUSTOMERS = {
  "cus-orchard": { tenants: ["orchard"], description: "Orchard Foods" },
  "cus-quarry": { tenants: ["quarry"], description: "Quarry Mining" },
  "cus-vault": { tenants: ["vault"], description: "Vault Archive (rdbms authorization)" },
};
const SCOPES = [
  "clients_api",
  "configuration_api",
  "entities_api",
  "graphs_api",
  "groups_api",
  "interactions_api",
  "relations_api",
  "users_api",
];
const CLIENTS = [
  ["hrn-orchard-admin", "hrn-s3cr-admin-77a1", "cus-orchard", ["ROLE_ADMIN_TENANT_orchard"], ["orchard"]],
  ["hrn-orchard-editor", "hrn-s3cr-editor-2c94", "cus-orchard", ["ROLE_RDM_EDIT"], ["orchard"]],
  ["hrn-orchard-viewer", "hrn-s3cr-viewer-e5d0", "cus-orchard", ["ROLE_RDM"], ["orchard"]],
  ["hrn-orchard-batch", "hrn-s3cr-batch-91f3", "cus-orchard", ["ROLE_RDM"], ["orchard"]],
  ["hrn-quarry-admin", "hrn-s3cr-quarry-4b08", "cus-quarry", ["ROLE_ADMIN_TENANT_quarry"], ["quarry"]],
  ["hrn-vault-admin", "hrn-s3cr-vault-d62e", "cus-vault", ["ROLE_ADMIN_TENANT_vault"], ["vault"]],
];

function seed() {
  for (const [tenant, authMode] of Object.entries(TENANTS)) record("tenant.registered", { tenant, authMode });
  for (const [id, document] of Object.entries(CUSTOMERS))
    record("customer.configured", {
      id,
      document: { ...document, externalProviderConfig: [], caseSensitiveLoginEnabled: false, customerSpecificRoles: [] },
    });
  for (const [clientId, secret, customerId, roles, tenantList] of CLIENTS)
    record("client.configured", {
      clientId,
      fields: {
        clientId,
        clientSecret: secret,
        scope: SCOPES,
        authorities: ["ROLE_API"],
        resourceIds: [],
        authorizedGrantTypes: ["client_credentials", "refresh_token"],
        redirectUri: [],
        accessTokenValidity: 3600,
        refreshTokenValidity: 86400,
        customerId,
        roles,
        tenantList,
      },
    });
  const lookupPlan = {
    orchard: { Country: 120, CountrySubdivision: 60, Currency: 40, Gender: 4 },
    quarry: { Country: 20, Currency: 10 },
    vault: { Currency: 5 },
  };
  for (const [tenant, types] of Object.entries(lookupPlan)) {
    for (const [type, count] of Object.entries(types)) {
      for (let i = 0; i < count; i++) {
        const code = `${type.slice(0, 3).toUpperCase()}-${String(((i * 37) % count) + 1).padStart(3, "0")}`;
        record("lookup.stored", { lookup: makeLookup(tenant, type, code, i) });
      }
    }
  }
  const statPlan = { orchard: { Country: 140, CountrySubdivision: 30, Currency: 45, Gender: 8 }, quarry: { Country: 12 } };
  for (const [tenant, types] of Object.entries(statPlan)) {
    const records = [];
    for (const [type, count] of Object.entries(types))
      for (let i = 0; i < count; i++) records.push(makeStat(tenant, type, i, records.length));
    // interleave lookup types so that the all-types scan mixes them
    records.sort((a, b) => a._order - b._order);
    record("stats.seeded", { tenant, records });
  }
  const blockedPlan = { orchard: { Country: 130, Currency: 5, CountrySubdivision: 12 }, quarry: { Country: 3 } };
  for (const [tenant, types] of Object.entries(blockedPlan)) {
    const values = [];
    for (const [type, count] of Object.entries(types))
      for (let i = 0; i < count; i++)
        values.push({
          tenantId: tenant,
          lookupType: `${TYPE_PREFIX}${type}`,
          value: `${type.toLowerCase()}-blocked-${String(i + 1).padStart(3, "0")}`,
          createdAt: SEED_TIME - (count - i) * 60_000,
          createdBy: pick(["ana.reyes", "j.okafor", "svc-autopilot"]),
        });
    record("blocked.seeded", { tenant, values });
  }
}

function makeLookup(tenant, type, code, i) {
  const updateDate = SEED_TIME - Math.floor(rand() * 86_400_000 * 30);
  return {
    tenantId: tenant,
    updatedBy: pick(["ana.reyes", "j.okafor", "m.lindqvist"]),
    updateDate,
    version: 1 + (i % 4),
    type: `${TYPE_PREFIX}${type}`,
    code,
    enabled: i % 11 !== 5,
    sourceMappings: [
      {
        source: pick(["SAP", "Salesforce", "Reltio"]),
        values: [
          {
            code,
            value: `${type} value ${code}`,
            enabled: true,
            canonicalValue: true,
            downStreamDefaultValue: i % 3 === 0,
          },
        ],
      },
    ],
    localizations: [],
    parents: type === "CountrySubdivision" ? [`${TYPE_PREFIX}Country/COU-${String((i % 20) + 1).padStart(3, "0")}`] : [],
    attributes: [{ name: "weight", value: String(Math.floor(rand() * 1000)) }],
    startDate: SEED_TIME - 400 * 86_400_000,
    endDate: SEED_TIME + 4000 * 86_400_000,
  };
}

function makeStat(tenant, type, i, n) {
  const statuses = ["LOOKUP_CREATED", "MISSPELLED", "AUTOMAPPED", "MANUALLY_MAPPED"];
  let status = statuses[(i * 7 + n) % 4];
  if (choice("status-open-set") && i % 9 === 4) status = i % 2 ? "TRACKING" : "REJECTED";
  const createdAt = SEED_TIME - Math.floor(rand() * 86_400_000 * 20);
  const hour = 3_600_000;
  const bucket = Math.floor(createdAt / hour) * hour;
  const currentFrequency = 1 + Math.floor(rand() * 50);
  const stat = {
    _id: `${tenant}:${type}:${i}`,
    _order: rand(),
    tenantId: tenant,
    lookupType: type,
    source: pick(["SAP", "Salesforce", "Workday"]),
    unmappedValue: `${type.toLowerCase()} raw ${i + 1}`,
    candidateLookupCode: `${type.slice(0, 3).toUpperCase()}-${String((i % 40) + 1).padStart(3, "0")}`,
    candidateValue: `${type} value ${i % 40}`,
    semanticScore: Math.round(rand() * 1000) / 1000,
    centroidMatch: rand() > 0.5,
    currentFrequency,
    requiredFrequency: 5,
    frequencyAtMapping: Math.max(1, currentFrequency - 2),
    frequencyWindowHours: 24,
    status,
    mappedAt: createdAt + 3 * hour,
    mappedBy: status === "AUTOMAPPED" ? "SYSTEM" : pick(["ana.reyes", "j.okafor"]),
    createdAt,
    sourceFrequency: { totalCount: currentFrequency + 3, hourlyFrequency: { [bucket]: currentFrequency, [bucket - hour]: 3 } },
    updateDate: createdAt + 4 * hour,
    aiConfidence: Math.round(rand() * 100) / 100,
    aiReasoning: `closest canonical value by embedding distance for ${type}`,
    configVersion: 3,
  };
  if (status === "LOOKUP_CREATED") {
    delete stat.candidateLookupCode;
    delete stat.candidateValue;
    stat.dcrId = `dcr-${createHash("sha1").update(stat._id).digest("hex").slice(0, 12)}`;
  }
  if (status === "MISSPELLED" || status === "TRACKING" || status === "REJECTED") {
    delete stat.mappedAt;
    delete stat.mappedBy;
  }
  return stat;
}

// ---------------------------------------------------------------------------------------------------------
// Token service.
const faultMemory = { multiOnce: new Set(), quotaSeen: new Map(), validitySeen: new Map() };

function customerOfClient(client) {
  return state.customers.get(client.customerId);
}

/** The multi-token and validity settings the token service applies to one client now. */
function settingsFor(client) {
  const customer = customerOfClient(client);
  const config = customer?.multitokenConfig;
  let on = config !== undefined && config !== null;
  let max = config?.clientCredentialsMultiTokenConfig?.maxActiveTokensAllowed ?? DEFAULT_QUOTA;
  let validity = client.accessTokenValidity ?? 3600;
  if (fault("multitoken-sticky-after-removal")) {
    if (on) faultMemory.multiOnce.add(client.clientId);
    else if (faultMemory.multiOnce.has(client.clientId)) on = true;
  }
  if (fault("quota-raise-ignored") && on) {
    if (!faultMemory.quotaSeen.has(client.clientId)) faultMemory.quotaSeen.set(client.clientId, max);
    max = faultMemory.quotaSeen.get(client.clientId);
  }
  if (fault("validity-change-ignored")) {
    if (!faultMemory.validitySeen.has(client.clientId)) faultMemory.validitySeen.set(client.clientId, validity);
    validity = faultMemory.validitySeen.get(client.clientId);
  }
  return { on, max, validity };
}

const activeTokens = (clientId, at) => (state.tokensByClient.get(clientId) ?? []).filter((t) => t.expiresAt > at);

function quotaError(client, max) {
  const body = {
    error: choice("quota-error-400") ? "invalid_request" : "too_many_tokens",
    error_description: `Active token limit exceeded: client ${client.clientId} already holds the maximum of ${max} active tokens (maxActiveTokensAllowed). Wait for a token to expire or raise the quota.`,
  };
  return new HttpError(choice("quota-error-400") ? 400 : 429, body);
}

function issueToken(client) {
  const at = now();
  const { on, max, validity } = settingsFor(client);
  const active = activeTokens(client.clientId, at);
  if (!on) {
    const current = active.at(-1);
    if (current !== undefined && !fault("fresh-token-per-request")) return current;
  } else {
    let count = active.length;
    if (fault("quota-counts-expired")) count = (state.tokensByClient.get(client.clientId) ?? []).length;
    if (fault("quota-shared-across-clients"))
      count = [...state.clients.values()]
        .filter((c) => c.customerId === client.customerId)
        .reduce((sum, c) => sum + activeTokens(c.clientId, at).length, 0);
    const limit = fault("quota-off-by-one") ? max + 1 : max;
    if (count >= limit) throw quotaError(client, max);
  }
  let expiresAt = at + validity * 1000;
  if (fault("expiry-from-first-token") && on && active.length > 0) expiresAt = active[0].expiresAt;
  const token = `hrn.${randomUUID().replaceAll("-", "")}`;
  record("token.issued", { token, clientId: client.clientId, issuedAt: at, expiresAt, multi: on });
  return state.tokens.get(token);
}

function tokenEndpointError(status, error, description, headers = {}) {
  return new HttpError(status, { error, error_description: description }, headers);
}

async function handleToken(req, url, rawBody) {
  const form = new URLSearchParams();
  for (const [k, v] of url.searchParams) form.set(k, v);
  const type = String(req.headers["content-type"] ?? "");
  if (rawBody.length > 0) {
    if (type.includes("application/json")) {
      let parsed;
      try {
        parsed = JSON.parse(rawBody);
      } catch {
        throw tokenEndpointError(400, "invalid_request", "Malformed JSON body");
      }
      for (const [k, v] of Object.entries(parsed ?? {})) form.set(k, String(v));
    } else for (const [k, v] of new URLSearchParams(rawBody)) form.set(k, v);
  }
  let clientId = form.get("client_id");
  let clientSecret = form.get("client_secret");
  let usedBasic = false;
  const auth = String(req.headers.authorization ?? "");
  if (/^basic /i.test(auth)) {
    usedBasic = true;
    const decoded = Buffer.from(auth.slice(6).trim(), "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    clientId = decodeURIComponent(colon < 0 ? decoded : decoded.slice(0, colon));
    clientSecret = colon < 0 ? "" : decodeURIComponent(decoded.slice(colon + 1));
  }
  const client = clientId ? state.clients.get(clientId) : undefined;
  if (client === undefined || client.clientSecret !== clientSecret)
    throw tokenEndpointError(401, "invalid_client", "Bad client credentials", {
      "WWW-Authenticate": usedBasic ? 'Basic realm="oauth", error="invalid_client"' : 'Bearer realm="oauth"',
    });
  const grant = form.get("grant_type");
  if (!grant) throw tokenEndpointError(400, "invalid_request", "Missing grant_type");
  if (grant === "password") throw tokenEndpointError(400, "invalid_grant", "Bad user credentials");
  if (grant !== "client_credentials") throw tokenEndpointError(400, "unsupported_grant_type", `Unsupported grant type: ${grant}`);
  if (!(client.authorizedGrantTypes ?? []).includes("client_credentials"))
    throw tokenEndpointError(400, "unauthorized_client", "Client is not authorized for client_credentials");
  const token = issueToken(client);
  return {
    status: 200,
    headers: { "Cache-Control": "no-store", Pragma: "no-cache" },
    body: {
      access_token: token.token,
      token_type: "bearer",
      expires_in: Math.max(0, Math.ceil((token.expiresAt - now()) / 1000)),
      scope: (client.scope ?? []).join(" "),
    },
  };
}

/** The client behind the request's bearer token, or a 401. */
function authenticate(req) {
  const auth = String(req.headers.authorization ?? "");
  const bearer = /^bearer\s+(\S+)\s*$/i.exec(auth);
  const challenge = (error, description) =>
    new HttpError(
      401,
      { error, error_description: description },
      { "WWW-Authenticate": `Bearer realm="heron", error="${error}", error_description="${description}"` },
    );
  if (bearer === null) throw challenge("unauthorized", "Full authentication is required to access this resource");
  const token = state.tokens.get(bearer[1]);
  if (token === undefined) throw challenge("invalid_token", "Invalid access token");
  const grace = fault("expired-token-accepted") ? 60_000 : 0;
  if (now() >= token.expiresAt + grace) throw challenge("invalid_token", "Access token expired");
  return state.clients.get(token.clientId);
}

const isAdminOf = (client, tenant) => (client.roles ?? []).includes(`ROLE_ADMIN_TENANT_${tenant}`);
const listsTenant = (client, tenant) => (client.tenantList ?? []).includes(tenant);
const hasRole = (client, role) => (client.roles ?? []).includes(role);

function requireRead(client, tenant) {
  if (isAdminOf(client, tenant)) return;
  if ((hasRole(client, "ROLE_RDM") || hasRole(client, "ROLE_RDM_EDIT")) && listsTenant(client, tenant)) return;
  throw new HttpError(403, `Access denied: client ${client.clientId} has no access to tenant ${tenant}`);
}
function requireEdit(client, tenant) {
  if (fault("viewer-can-delete")) return requireRead(client, tenant);
  if (isAdminOf(client, tenant)) return;
  if (hasRole(client, "ROLE_RDM_EDIT") && listsTenant(client, tenant)) return;
  throw new HttpError(403, `Access denied: client ${client.clientId} may not change lookups of tenant ${tenant}`);
}
function requireTenant(tenant) {
  // unknown tenants answer like forbidden ones: they are in nobody's tenant list
  if (!state.tenants.has(tenant)) throw new HttpError(403, `Access denied to tenant ${tenant}`);
}

// ---------------------------------------------------------------------------------------------------------
// Customer and client configuration.
function requireCustomerAdmin(client, tenants) {
  if (tenants.length === 0 || !tenants.every((t) => isAdminOf(client, t)))
    throw new HttpError(403, `Access denied: configuration update needs ROLE_ADMIN_TENANT of ${tenants.join(", ") || "the customer's tenants"}`);
}

function validateCustomer(body) {
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw bad("Customer object expected");
  const arrays = ["tenants", "externalProviderConfig", "applicationClients", "customerSpecificRoles"];
  for (const key of arrays)
    if (body[key] !== undefined && body[key] !== null && !Array.isArray(body[key])) throw bad(`${key} must be an array`);
  if (body.tenants) for (const t of body.tenants) if (typeof t !== "string") throw bad("tenants must be strings");
  if (body.description !== undefined && body.description !== null && typeof body.description !== "string")
    throw bad("description must be a string");
  if (
    body.caseSensitiveLoginEnabled !== undefined &&
    body.caseSensitiveLoginEnabled !== null &&
    typeof body.caseSensitiveLoginEnabled !== "boolean"
  )
    throw bad("caseSensitiveLoginEnabled must be a boolean");
  const mt = body.multitokenConfig;
  if (mt === undefined || mt === null) return;
  if (typeof mt !== "object" || Array.isArray(mt)) throw bad("multitokenConfig must be an object");
  const cc = mt.clientCredentialsMultiTokenConfig;
  if (cc === undefined || cc === null) return;
  if (typeof cc !== "object" || Array.isArray(cc)) throw bad("clientCredentialsMultiTokenConfig must be an object");
  const max = cc.maxActiveTokensAllowed;
  if (max === undefined || max === null) return;
  if (!Number.isInteger(max) || max < 1) throw bad("Validation error: maxActiveTokensAllowed must be a positive integer");
  if (max > MAX_QUOTA && !fault("quota-max-unchecked"))
    throw bad(`Validation error: maxActiveTokensAllowed must not exceed ${MAX_QUOTA}`);
}

function customerView(id) {
  const document = state.customers.get(id);
  const clients = [...state.clients.values()].filter((c) => c.customerId === id).map((c) => c.clientId);
  const listed = document.applicationClients ?? [];
  return { id, ...document, applicationClients: [...new Set([...listed, ...clients])] };
}

function handleCustomer(method, customerId, client, body) {
  validateCustomer(body);
  const stored = state.customers.get(customerId);
  const tenants = body.tenants ?? stored?.tenants ?? [];
  requireCustomerAdmin(client, [...new Set([...(stored?.tenants ?? []), ...tenants])]);
  if (body.multitokenConfig !== undefined && body.multitokenConfig !== null && !fault("rdbms-multitoken-accepted")) {
    const rdbms = tenants.filter((t) => state.tenants.get(t)?.authMode === "rdbms");
    if (rdbms.length > 0)
      throw bad(
        `Validation error: multitokenConfig is supported only for tenants with Cassandra-based authorization; tenant ${rdbms.join(", ")} uses auth.migration.mode=rdbms`,
      );
  }
  const { id: _ignored, applicationClients, ...fields } = body;
  let document;
  if (method === "POST" && choice("customer-post-merges") && stored !== undefined) {
    document = { ...stored };
    for (const [k, v] of Object.entries(fields)) {
      if (v === null) delete document[k];
      else document[k] = v;
    }
  } else {
    document = {};
    for (const [k, v] of Object.entries(fields)) if (v !== null) document[k] = v;
  }
  document.tenants = tenants;
  if (applicationClients) document.applicationClients = applicationClients;
  record("customer.configured", { id: customerId, document });
  return { status: 200, body: customerView(customerId) };
}

const CLIENT_FIELDS = {
  clientId: "string",
  scope: "array",
  authorities: "array",
  resourceIds: "array",
  authorizedGrantTypes: "array",
  redirectUri: "array",
  clientSecret: "string",
  accessTokenValidity: "integer",
  refreshTokenValidity: "integer",
};

function handleClients(customerId, client, body) {
  const customer = state.customers.get(customerId);
  if (customer === undefined) throw new HttpError(404, `Customer ${customerId} not found`);
  requireCustomerAdmin(client, customer.tenants ?? []);
  if (!Array.isArray(body)) throw bad("An array of Client objects is expected");
  const changes = [];
  for (const entry of body) {
    if (entry === null || typeof entry !== "object" || typeof entry.clientId !== "string" || entry.clientId === "")
      throw bad("Every client needs a clientId");
    const fields = {};
    for (const [key, kind] of Object.entries(CLIENT_FIELDS)) {
      const value = entry[key];
      if (value === undefined || value === null) continue;
      const ok =
        kind === "array"
          ? Array.isArray(value)
          : kind === "integer"
            ? Number.isInteger(value) && value > 0
            : typeof value === "string";
      if (!ok) throw bad(`Validation error: ${key} must be ${kind === "integer" ? "a positive integer" : `a ${kind}`}`);
      fields[key] = value;
    }
    const existing = state.clients.get(entry.clientId);
    if (existing !== undefined && existing.customerId !== customerId)
      throw bad(`Client ${entry.clientId} belongs to another customer`);
    if (existing === undefined) {
      if (fields.clientSecret === undefined) throw bad(`Validation error: new client ${entry.clientId} needs a clientSecret`);
      Object.assign(fields, {
        customerId,
        roles: [],
        tenantList: [...(customer.tenants ?? [])],
        authorizedGrantTypes: fields.authorizedGrantTypes ?? ["client_credentials"],
        accessTokenValidity: fields.accessTokenValidity ?? 3600,
      });
    }
    changes.push({ clientId: entry.clientId, fields });
  }
  for (const change of changes) record("client.configured", change);
  return {
    status: 200,
    body: changes.map(({ clientId }) => {
      const { clientSecret: _s, customerId: _c, roles: _r, tenantList: _t, ...shown } = state.clients.get(clientId);
      return shown;
    }),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Query planner: filter expressions, sort, order, limit.
function tokenize(text) {
  const tokens = [];
  const re = /\s*(?:(\()|(\))|(,)|'((?:[^'\\]|\\.|'')*)'|"((?:[^"\\]|\\.)*)"|([^\s(),'"]+))/y;
  let m;
  let index = 0;
  while (index < text.length) {
    re.lastIndex = index;
    m = re.exec(text);
    if (m === null || m[0] === "") {
      if (/^\s*$/.test(text.slice(index))) break;
      throw bad(`Invalid filter near: ${text.slice(index, index + 20)}`);
    }
    index = re.lastIndex;
    if (m[1]) tokens.push({ t: "(" });
    else if (m[2]) tokens.push({ t: ")" });
    else if (m[3]) tokens.push({ t: "," });
    else if (m[4] !== undefined) tokens.push({ t: "str", v: m[4].replace(/''/g, "'").replace(/\\(.)/g, "$1") });
    else if (m[5] !== undefined) tokens.push({ t: "str", v: m[5].replace(/\\(.)/g, "$1") });
    else tokens.push({ t: "word", v: m[6] });
  }
  return tokens;
}

const OPERATORS = {
  equals: (vals, v) => vals.some((x) => loose(x) === loose(v)),
  startswith: (vals, v) => vals.some((x) => loose(x).startsWith(loose(v))),
  contains: (vals, v) => vals.some((x) => loose(x).includes(loose(v))),
  fulltext: (vals, v) => vals.some((x) => loose(x).includes(loose(v))),
  lt: (vals, v) => vals.some((x) => order(x, v) < 0),
  lte: (vals, v) => vals.some((x) => order(x, v) <= 0),
  gt: (vals, v) => vals.some((x) => order(x, v) > 0),
  gte: (vals, v) => vals.some((x) => order(x, v) >= 0),
  exists: (vals) => vals.length > 0,
  missing: (vals) => vals.length === 0,
};
const loose = (x) => String(x).toLowerCase();
function order(a, b) {
  const na = Number(a);
  const nb = Number(b);
  if (a !== "" && b !== "" && !Number.isNaN(na) && !Number.isNaN(nb)) return na - nb;
  return String(a).localeCompare(String(b));
}

function valuesAt(record, path, normalize) {
  let current = [record];
  for (const part of path.split(".")) {
    const next = [];
    for (const item of current) {
      const v = item?.[part];
      if (v === undefined || v === null) continue;
      if (Array.isArray(v)) next.push(...v);
      else next.push(v);
    }
    current = next;
  }
  return current.filter((v) => typeof v !== "object").map((v) => normalize(path, v));
}

function compileFilter(text, normalize) {
  if (text === undefined || text === null || text.trim() === "") return () => true;
  const tokens = tokenize(text);
  let i = 0;
  const peek = () => tokens[i];
  const expect = (t) => {
    if (tokens[i]?.t !== t) throw bad(`Invalid filter: expected ${t} in ${text}`);
    return tokens[i++];
  };
  /** A left-associative chain of `next` terms joined by the keyword `word` ("or" binds looser than "and"). */
  const chain = (word, next, join) => () => {
    let left = next();
    while (peek()?.t === "word" && peek().v.toLowerCase() === word) {
      i++;
      const right = next();
      const l = left;
      left = (r) => join(l(r), right(r));
    }
    return left;
  };
  const parseAnd = chain("and", () => parseTerm(), (a, b) => a && b);
  const parseOr = chain("or", parseAnd, (a, b) => a || b);
  function parseTerm() {
    const token = peek();
    if (token?.t === "(") {
      i++;
      const inner = parseOr();
      expect(")");
      return inner;
    }
    if (token?.t !== "word") throw bad(`Invalid filter: ${text}`);
    const name = token.v.toLowerCase();
    i++;
    if (name === "not") {
      const inner = parseTerm();
      return (r) => !inner(r);
    }
    const op = OPERATORS[name];
    if (op === undefined) throw bad(`Unsupported filter function ${token.v}`);
    expect("(");
    const field = expect("word").v;
    let value;
    if (peek()?.t === ",") {
      i++;
      const v = peek();
      if (v?.t !== "str" && v?.t !== "word") throw bad(`Invalid filter value in ${text}`);
      i++;
      value = normalize(field, v.v);
    } else if (name !== "exists" && name !== "missing") throw bad(`Filter ${token.v} needs a value`);
    expect(")");
    return (r) => op(valuesAt(r, field, normalize), value);
  }
  const predicate = parseOr();
  if (i !== tokens.length) throw bad(`Invalid filter: unexpected text in ${text}`);
  return predicate;
}

function parseLimit(raw, { defaultSize, max, name = "limit" }) {
  if (raw === null || raw === undefined || raw === "") return defaultSize;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw bad(`${name} must be a positive integer`);
  const n = Number(raw);
  if (n > max) {
    if (choice("limit-over-max-rejected")) throw bad(`${name} must not exceed ${max}`);
    return max;
  }
  return n;
}

/** A plan: which records, in which order, how many per page. */
function makePlan(params, { normalize, defaultSize, max, limitOverride }) {
  const sort = params.get("sort") || null;
  const direction = (params.get("order") || "asc").toLowerCase();
  if (direction !== "asc" && direction !== "desc") throw bad("order must be asc or desc");
  if (sort !== null && !/^[A-Za-z_][\w.]*$/.test(sort)) throw bad(`Invalid sort field ${sort}`);
  const filter = params.get("filter") ?? "";
  compileFilter(filter, normalize); // reject a bad filter on the first request
  const limit = limitOverride ?? parseLimit(params.get("limit"), { defaultSize, max });
  return { filter, sort, direction, limit };
}

function sortKey(plan, item, normalize) {
  if (plan.sort === null) return { missing: 0, value: item.id, id: item.id };
  const values = valuesAt(item.record, plan.sort, normalize);
  return values.length === 0 ? { missing: 1, value: null, id: item.id } : { missing: 0, value: values[0], id: item.id };
}

function compareKeys(plan, a, b) {
  if (a.missing !== b.missing) return a.missing - b.missing; // records without the field come last either way
  if (a.missing === 0) {
    const c = typeof a.value === "number" && typeof b.value === "number" ? a.value - b.value : order(a.value, b.value);
    if (c !== 0) return plan.direction === "desc" ? -c : c;
  }
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** One page of a source computed now, after the cursor's position. */
function computePage(source, cursor, { skipFilter = false, skipOne = false } = {}) {
  const { plan, normalize } = cursor;
  const predicate = skipFilter ? () => true : compileFilter(plan.filter, normalize);
  const items = source()
    .filter((item) => predicate(item.record))
    .map((item) => ({ item, key: sortKey(plan, item, normalize) }))
    .sort((a, b) => compareKeys(plan, a.key, b.key));
  let start = cursor.after === null ? 0 : items.findIndex((x) => compareKeys(plan, x.key, cursor.after) > 0);
  if (start < 0) start = items.length;
  if (skipOne && cursor.after !== null && start < items.length) start += 1;
  const page = items.slice(start, start + plan.limit);
  const more = start + plan.limit < items.length;
  return { values: page.map((x) => x.item.record), after: page.at(-1)?.key ?? cursor.after, more };
}

// ---------------------------------------------------------------------------------------------------------
// Scroll registry: stateful ids by default, signed stateless ids per page with CHOICES=scroll-id-per-page.
const scrolls = new Map();
const latestScrollOf = new Map(); // FAULT scroll-cursor-per-client
const SIGNING_KEY = randomBytes(16);

function readScrollId(rawBody) {
  const text = rawBody.trim();
  if (text === "" || text === "null") return null;
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text; // the raw scroll id as the body
  }
  if (parsed === null) return null;
  if (typeof parsed === "string") return parsed === "" ? null : parsed;
  if (typeof parsed === "object" && !Array.isArray(parsed)) {
    const id = parsed.scrollId ?? parsed.scroll_id;
    if (id === undefined || id === null || id === "") return null;
    if (typeof id !== "string") throw bad("scrollId must be a string");
    return id;
  }
  throw bad("The body must be empty, null, or a scroll id");
}

function encodeStateless(cursor) {
  const payload = Buffer.from(JSON.stringify({ s: cursor.scope, p: cursor.plan, a: cursor.after, d: cursor.done })).toString(
    "base64url",
  );
  const mac = createHmac("sha256", SIGNING_KEY).update(payload).digest("base64url").slice(0, 22);
  return `${payload}.${mac}`;
}
function decodeStateless(id) {
  const [payload, mac] = id.split(".");
  if (!payload || !mac || createHmac("sha256", SIGNING_KEY).update(payload).digest("base64url").slice(0, 22) !== mac)
    return undefined;
  const { s, p, a, d } = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  return { scope: s, plan: p, after: a, done: d };
}

/**
 * Serves one scan request: a first page (no scroll id) opens a cursor from the query parameters, a later one
 * resumes the cursor named by the body. `scope` ties a cursor to its tenant and endpoint.
 */
function scan({ scope, clientId, params, rawBody, source, normalize, defaultSize, max, limitOverride, project, faults = {} }) {
  const scrollId = readScrollId(rawBody);
  let cursor;
  let id;
  if (scrollId === null) {
    cursor = { scope, plan: makePlan(params, { normalize, defaultSize, max, limitOverride }), after: null, done: false };
    id = randomUUID();
    if (!choice("scroll-id-per-page")) scrolls.set(id, cursor);
    latestScrollOf.set(`${clientId}|${scope.split("|")[0]}`, cursor);
  } else {
    cursor = choice("scroll-id-per-page") ? decodeStateless(scrollId) : scrolls.get(scrollId);
    if (fault("scroll-cursor-per-client") && cursor !== undefined)
      cursor = latestScrollOf.get(`${clientId}|${scope.split("|")[0]}`) ?? cursor;
    if (cursor === undefined || cursor.scope !== scope) throw bad("Unknown or expired scroll id");
    id = scrollId;
  }
  cursor.normalize = normalize;
  const first = cursor.after === null && scrollId === null;
  let page;
  if (cursor.done) page = { values: [], after: cursor.after, more: false };
  else if (first && faults.firstPageCache) page = faults.firstPageCache(() => computePage(source, cursor));
  else
    page = computePage(source, cursor, {
      skipFilter: !first && faults.continuationDropsFilter,
      skipOne: !first && faults.continuationSkipsRecord,
    });
  cursor.after = page.after;
  cursor.done = !page.more;
  if (choice("scroll-id-per-page")) {
    const { normalize: _n, ...plain } = cursor;
    id = encodeStateless(plain);
  }
  const body = { values: page.values.map(project) };
  const ended = choice("scroll-end-drops-id") && !page.more;
  return ended ? body : { scrollId: id, ...body };
}

// ---------------------------------------------------------------------------------------------------------
// Lookups.
const lookupNormalize = (field, v) => (field === "type" || field === "parents" ? typeName(v) : v);
const firstPageCache = new Map(); // FAULT scan-cache-after-delete

function handleLookupScan(tenant, client, url, rawBody) {
  requireTenant(tenant);
  requireRead(client, tenant);
  const source = () =>
    [...(state.lookups.get(tenant)?.values() ?? [])].map((lookup) => ({ id: uriOf(lookup), record: lookup }));
  const cacheKey = `${tenant}?${url.searchParams.toString()}`;
  return {
    status: 200,
    body: scan({
      scope: `lookups|${tenant}`,
      clientId: client.clientId,
      params: url.searchParams,
      rawBody,
      source,
      normalize: lookupNormalize,
      defaultSize: PAGE_DEFAULT,
      max: LOOKUP_PAGE_MAX,
      project: (lookup) => structuredClone(lookup),
      faults: {
        continuationDropsFilter: fault("continuation-drops-filter"),
        firstPageCache: fault("scan-cache-after-delete")
          ? (compute) => {
              if (!firstPageCache.has(cacheKey)) firstPageCache.set(cacheKey, compute());
              return firstPageCache.get(cacheKey);
            }
          : undefined,
      },
    }),
  };
}

function handleTask(tenant, client, body) {
  requireTenant(tenant);
  requireEdit(client, tenant);
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw bad("Task object expected");
  if (typeof body.type !== "string" || body.type.toLowerCase() !== "delete") throw bad("Task type must be delete");
  const parameters = body.parameters ?? {};
  if (typeof parameters !== "object" || Array.isArray(parameters)) throw bad("parameters must be an object");
  const { type, uris } = parameters;
  if (type !== undefined && type !== null && typeof type !== "string") throw bad("parameters.type must be a string");
  if (uris !== undefined && uris !== null && (!Array.isArray(uris) || uris.some((u) => typeof u !== "string")))
    throw bad("parameters.uris must be an array of strings");
  const task = {
    id: `task-${randomUUID().slice(0, 8)}`,
    type: "delete",
    tenantId: tenant,
    createdBy: client.clientId,
    createdTime: now(),
    status: choice("delete-task-deferred") ? "NOT_STARTED" : "COMPLETED",
    parameters: structuredClone(parameters),
  };
  record("task.recorded", { task });
  const run = () => {
    const byTenant = {};
    const table = state.lookups.get(tenant);
    const add = (t, uri) => {
      byTenant[t] = byTenant[t] ?? [];
      if (!byTenant[t].includes(uri)) byTenant[t].push(uri);
    };
    // no parameters (neither type nor uris): every lookup of the tenant
    if (!type && (uris === undefined || uris === null)) for (const uri of table.keys()) add(tenant, uri);
    if (type) {
      const wanted = typeName(type);
      const tenants = fault("delete-type-across-tenants") ? [...state.lookups.keys()] : [tenant];
      for (const t of tenants)
        for (const [uri, lookup] of state.lookups.get(t)) if (typeName(lookup.type) === wanted) add(t, uri);
    }
    for (const raw of uris ?? []) {
      const uri = raw.startsWith(TYPE_PREFIX) ? `${tenant}/${raw.slice(TYPE_PREFIX.length)}` : raw;
      if (uri.startsWith(`${tenant}/`) && table.has(uri)) add(tenant, uri);
    }
    record("lookups.removed", { byTenant });
    const deleted = Object.values(byTenant).reduce((n, list) => n + list.length, 0);
    record("task.finished", { id: task.id, deleted });
  };
  if (choice("delete-task-deferred")) {
    setTimeout(run, 1000).unref();
    return { status: 202, body: { ...state.tasks.get(task.id) } };
  }
  run();
  return { status: 200, body: { ...state.tasks.get(task.id) } };
}

// ---------------------------------------------------------------------------------------------------------
// Autopilot.
const statNormalize = (field, v) => (field === "lookupType" ? typeName(v) : v);

function projectStat(withDcr) {
  return (stat) => {
    const { _id, _order, ...shown } = stat;
    if (!withDcr) delete shown.dcrId;
    return structuredClone(shown);
  };
}

function handleStatsScan(tenant, lookupType, client, url, rawBody) {
  requireTenant(tenant);
  requireRead(client, tenant);
  const all = state.stats.get(tenant) ?? [];
  const wanted = lookupType === null ? null : typeName(lookupType);
  const source = () =>
    all
      .filter(
        (s) =>
          wanted === null ||
          (fault("type-scan-prefix-match") ? s.lookupType.startsWith(wanted) : s.lookupType === wanted),
      )
      .map((s) => ({ id: s._id, record: s }));
  const filtered = (url.searchParams.get("filter") ?? "") !== "";
  const limitOverride =
    fault("filter-default-limit") && filtered && !url.searchParams.get("limit")
      ? 25
      : fault("autopilot-limit-uncapped") && /^\d+$/.test(url.searchParams.get("limit") ?? "")
        ? Number(url.searchParams.get("limit"))
        : undefined;
  return {
    status: 200,
    body: scan({
      scope: `stats|${tenant}|${wanted ?? "*"}`,
      clientId: client.clientId,
      params: url.searchParams,
      rawBody,
      source,
      normalize: statNormalize,
      defaultSize: PAGE_DEFAULT,
      max: PAGE_MAX,
      limitOverride,
      project: projectStat(wanted === null),
      faults: { continuationSkipsRecord: fault("continuation-skips-record") && wanted !== null },
    }),
  };
}

function handleBlocked(tenant, lookupType, client, url) {
  requireTenant(tenant);
  requireRead(client, tenant);
  const rawOffset = url.searchParams.get("offset");
  let offset = 0;
  if (rawOffset !== null && rawOffset !== "") {
    if (!/^\d+$/.test(rawOffset)) throw bad("offset must be a non-negative integer");
    offset = Number(rawOffset);
  }
  if (fault("blocked-offset-ignored")) offset = 0;
  const limitGiven = (url.searchParams.get("limit") ?? "") !== "";
  const limit =
    fault("blocked-limit-default-with-offset") && !limitGiven && rawOffset
      ? 20
      : parseLimit(url.searchParams.get("limit"), { defaultSize: PAGE_DEFAULT, max: PAGE_MAX });
  const wanted = typeName(lookupType);
  const values = (state.blocked.get(tenant) ?? []).filter((b) => typeName(b.lookupType) === wanted);
  return { status: 200, body: values.slice(offset, offset + limit).map((b) => ({ ...b })) };
}

// ---------------------------------------------------------------------------------------------------------
// Service endpoints.
function handleVersion() {
  if (fault("version-key-renamed")) return { status: 200, body: { version: "2026.4.11.0" } };
  if (choice("version-numeric")) return { status: 200, raw: '{"rdm-service": 2026.4}' };
  return { status: 200, body: { "rdm-service": "2026.4.11.0" } };
}

// ---------------------------------------------------------------------------------------------------------
// HTTP.
function parseJson(rawBody, { optional = false } = {}) {
  if (rawBody.trim() === "") {
    if (optional) return undefined;
    throw bad("A JSON body is required");
  }
  try {
    return JSON.parse(rawBody);
  } catch {
    throw bad("Malformed JSON body");
  }
}

function route(method, path) {
  const p = path.replace(/\/+$/, "") || "/";
  let seg;
  try {
    seg = p.split("/").slice(1).map(decodeURIComponent);
  } catch {
    throw bad("Malformed path");
  }
  const is = (...parts) => parts.length === seg.length && parts.every((x, i) => x === "*" || x === seg[i]);
  if (is("oauth", "token")) return { name: "token", methods: ["POST"] };
  if (is("oauth", "customers", "*")) return { name: "customer", methods: ["PUT", "POST", "GET"], customerId: seg[2] };
  if (is("oauth", "customers", "*", "clients")) return { name: "clients", methods: ["PUT"], customerId: seg[2] };
  if (is("healthcheck")) return { name: "health", methods: ["GET"] };
  if (is("status")) return { name: "status", methods: ["GET"] };
  if (is("version")) return { name: "version", methods: ["GET"] };
  if (is("tasks", "*")) return { name: "task", methods: ["POST"], tenant: seg[1] };
  if (is("tasks", "*", "*")) return { name: "taskGet", methods: ["GET"], tenant: seg[1], id: seg[2] };
  if (is("lookups", "*", "_scan")) return { name: "lookupScan", methods: ["POST"], tenant: seg[1] };
  if (is("configuration", "*", "autopilot", "stats", "_scan"))
    return { name: "statsScan", methods: ["POST"], tenant: seg[1], lookupType: null };
  if (is("configuration", "*", "autopilot", "stats", "*", "_scan"))
    return { name: "statsScan", methods: ["POST"], tenant: seg[1], lookupType: seg[4] };
  if (is("configuration", "*", "autopilot", "*", "blockedValues"))
    return { name: "blocked", methods: ["GET"], tenant: seg[1], lookupType: seg[3] };
  return undefined;
}

async function dispatch(req, url, rawBody) {
  const target = route(req.method, url.pathname);
  if (target === undefined) throw new HttpError(404, `No endpoint ${url.pathname}`);
  if (!target.methods.includes(req.method))
    throw new HttpError(405, `Method ${req.method} not allowed`, { Allow: target.methods.join(", ") });
  if (target.name === "token") return handleToken(req, url, rawBody);
  if (target.name === "health" && fault("health-no-auth")) return { status: 200, body: { status: "OK" } };
  const client = authenticate(req);
  switch (target.name) {
    case "health":
    case "status":
      return { status: 200, body: { status: "OK" } };
    case "version":
      return handleVersion();
    case "customer":
      if (req.method === "GET") {
        if (!state.customers.has(target.customerId)) throw new HttpError(404, `Customer ${target.customerId} not found`);
        requireCustomerAdmin(client, state.customers.get(target.customerId).tenants ?? []);
        return { status: 200, body: customerView(target.customerId) };
      }
      return handleCustomer(req.method, target.customerId, client, parseJson(rawBody));
    case "clients":
      return handleClients(target.customerId, client, parseJson(rawBody));
    case "task":
      return handleTask(target.tenant, client, parseJson(rawBody));
    case "taskGet": {
      requireTenant(target.tenant);
      requireRead(client, target.tenant);
      const task = state.tasks.get(target.id);
      if (task === undefined || task.tenantId !== target.tenant) throw new HttpError(404, `Task ${target.id} not found`);
      return { status: 200, body: { ...task } };
    }
    case "lookupScan":
      return handleLookupScan(target.tenant, client, url, rawBody);
    case "statsScan":
      return handleStatsScan(target.tenant, target.lookupType, client, url, rawBody);
    case "blocked":
      return handleBlocked(target.tenant, target.lookupType, client, url);
    default:
      throw new HttpError(404, "No such endpoint");
  }
}

function send(res, status, payload, headers = {}) {
  const text = payload.raw ?? JSON.stringify(payload.body);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  let size = 0;
  req.on("data", (chunk) => {
    size += chunk.length;
    if (size <= 1_000_000) chunks.push(chunk);
  });
  req.on("end", async () => {
    try {
      if (size > 1_000_000) throw new HttpError(413, "Body too large");
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const result = await dispatch(req, url, Buffer.concat(chunks).toString("utf8"));
      send(res, result.status, result, result.headers);
    } catch (error) {
      if (error instanceof HttpError) send(res, error.status, { body: error.body }, error.headers);
      else {
        console.error(error);
        send(res, 500, { body: { errorCode: 500, errorMessage: "Internal error" } });
      }
    }
  });
});

seed();
const portArg = process.argv.indexOf("--port");
const port = portArg >= 0 ? Number(process.argv[portArg + 1]) : Number(process.env.PORT ?? 0);
server.listen(port, "127.0.0.1", () => {
  console.log(`listening ${server.address().port}`);
});
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => server.close(() => process.exit(0)));
