// Each seeded fault breaks its rule when switched on, and the reference keeps the rule when it is off.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  createReference,
  FAULTS,
  type FaultName,
  type Lookup,
  type Task,
} from "../../src/reference/index.ts";
import { basic, type Harness, HOUR, setup } from "./harness.ts";

const ids = (h: Harness, tenant: string) =>
  (h.ref.state.lookups.get(tenant)?.inIdentityOrder() ?? []).map((l) => `${l.type}/${l.code}`);

async function quota(h: Harness, max: number, customer = "cust-acme", admin = "acme-admin") {
  return h.call("POST", `/oauth/customers/${customer}`, {
    token: await h.token(admin),
    body: { multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: max } } },
  });
}

async function firstPage(h: Harness, path: string, caller = "acme-viewer") {
  const a = await h.call("POST", path, { token: await h.token(caller) });
  return a.body as { scrollId?: string; values: Record<string, unknown>[] };
}

/** Runs a delete task and waits (bounded) for it to finish; false when it never completes. */
async function deleteAndWait(h: Harness, body: unknown): Promise<boolean> {
  const token = await h.token("acme-editor");
  const task = (await h.call("POST", "/tasks/acme", { token, body })).body as Task;
  for (let i = 0; i < 20; i++) {
    const s = (await h.call("GET", `/tasks/acme/${task.id}`, { token })).body as Task;
    if (s.status === "COMPLETED") return true;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return false;
}

/** For each fault: a scenario that answers "did the rule break?" */
const SCENARIOS: Record<FaultName, (h: Harness) => Promise<boolean>> = {
  "scan-repeats-record-at-page-boundary": async (h) => {
    const { values } = await h.scanAll("/lookups/acme/_scan?limit=50", await h.token("acme-viewer"));
    return new Set((values as Lookup[]).map((l) => l.type + l.code)).size !== values.length;
  },
  "scan-loses-record-at-page-boundary": async (h) => {
    const { values } = await h.scanAll("/lookups/acme/_scan?limit=50", await h.token("acme-viewer"));
    return values.length !== ids(h, "acme").length;
  },
  "scan-ignores-order": async (h) => {
    const page = await firstPage(h, "/lookups/acme/_scan?limit=1&order=desc");
    return `${page.values[0]?.type}/${page.values[0]?.code}` !== ids(h, "acme").at(-1);
  },
  "scan-ignores-sort": async (h) => {
    const versions = (await firstPage(h, "/lookups/acme/_scan?limit=50&sort=version")).values.map(
      (l) => l.version as number,
    );
    return versions.some((v, i) => i > 0 && v < (versions[i - 1] as number));
  },
  "scan-keyset-loses-ties": async (h) => {
    const { values } = await h.scanAll(
      "/lookups/acme/_scan?sort=type&limit=100",
      await h.token("acme-viewer"),
    );
    return values.length !== ids(h, "acme").length;
  },
  "scan-first-page-ties-reversed": async (h) => {
    // The first scroll sorted by updatedBy (four values over 415 lookups) at limit 3: the first page is
    // picked apart from the full order, and its ties disagree with the later pages'.
    const { values } = await h.scanAll(
      "/lookups/acme/_scan?sort=updatedBy&limit=3",
      await h.token("acme-viewer"),
    );
    const codes = (values as Lookup[]).map((l) => `${l.type}/${l.code}`);
    return new Set(codes).size !== codes.length || codes.length !== ids(h, "acme").length;
  },
  "scan-filtered-sorted-repeats-at-boundary": async (h) => {
    const filter = encodeURIComponent("equals(type,'Country')");
    const { values } = await h.scanAll(
      `/lookups/acme/_scan?filter=${filter}&sort=updatedBy&limit=60`,
      await h.token("acme-viewer"),
    );
    return new Set((values as Lookup[]).map((l) => l.code)).size !== values.length;
  },
  "scan-filtered-full-last-page-repeated": async (h) => {
    // 250 lookups of type Country: five full pages of 50.
    const filter = encodeURIComponent("equals(type,'Country')");
    const { values } = await h.scanAll(
      `/lookups/acme/_scan?filter=${filter}&limit=50`,
      await h.token("acme-viewer"),
    );
    return values.length !== 250;
  },
  "scan-filter-dropped-under-sort": async (h) => {
    const filter = encodeURIComponent("equals(type,'Gender')");
    const page = await firstPage(h, `/lookups/acme/_scan?filter=${filter}&sort=code`);
    return page.values.some((l) => l.type !== "rdm/lookupTypes/Gender");
  },
  "autopilot-scan-short-pages": async (h) => {
    // Without limit the page size is 100: a first page of fewer records with a scrollId ends short.
    const page = await firstPage(h, "/configuration/acme/autopilot/stats/_scan", "acme-admin");
    return page.scrollId !== undefined && page.values.length < 100;
  },
  "autopilot-type-scan-sorts-each-page": async (h) => {
    const { values } = await h.scanAll(
      "/configuration/acme/autopilot/stats/Country/_scan?sort=unmappedValue&limit=20",
      await h.token("acme-admin"),
    );
    const names = (values as { unmappedValue: string }[]).map((s) => s.unmappedValue);
    return names.some((v, i) => i > 0 && v < (names[i - 1] as string));
  },
  "scan-exceeds-limit": async (h) => (await firstPage(h, "/lookups/acme/_scan?limit=10")).values.length > 10,
  "scan-ignores-filter": async (h) => {
    const page = await firstPage(
      h,
      `/lookups/acme/_scan?filter=${encodeURIComponent("equals(type,'Gender')")}`,
    );
    return page.values.some((l) => l.type !== "rdm/lookupTypes/Gender");
  },
  "scan-never-ends": async (h) => {
    const page = await firstPage(
      h,
      `/lookups/acme/_scan?filter=${encodeURIComponent("equals(type,'Gender')")}`,
    );
    if (page.scrollId === undefined) return false;
    const next = await h.call("POST", "/lookups/acme/_scan", {
      token: await h.token("acme-viewer"),
      body: { scrollId: page.scrollId },
    });
    return (next.body as { scrollId?: string }).scrollId !== undefined;
  },
  "autopilot-type-scan-returns-other-types": async (h) =>
    (await firstPage(h, "/configuration/acme/autopilot/stats/Gender/_scan")).values.some(
      (s) => s.lookupType !== "Gender",
    ),
  "quota-off-by-one": async (h) => {
    await quota(h, 2);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await h.requestToken("acme-quota")).status);
    return statuses[2] === 200;
  },
  "quota-refused-early": async (h) => {
    await quota(h, 4);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await h.requestToken("acme-quota")).status);
    return statuses[2] === 200 && statuses[3] !== 200;
  },
  "quota-not-enforced": async (h) => {
    await quota(h, 2);
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await h.requestToken("acme-quota")).status);
    return statuses.every((s) => s === 200);
  },
  "expired-token-accepted": async (h) => {
    const token = await h.token("acme-viewer");
    h.clock.advance(HOUR);
    return (await h.call("GET", "/healthcheck", { token })).status === 200;
  },
  "expired-token-still-counted": async (h) => {
    await quota(h, 1);
    await h.requestToken("acme-quota");
    h.clock.advance(HOUR);
    return (await h.requestToken("acme-quota")).status === 429;
  },
  "same-token-with-multitoken-on": async (h) => {
    await quota(h, 5);
    const a = (await h.requestToken("acme-quota")).body as { access_token: string };
    const b = (await h.requestToken("acme-quota")).body as { access_token: string };
    return a.access_token === b.access_token;
  },
  "new-token-with-multitoken-off": async (h) => {
    const a = (await h.requestToken("acme-quota")).body as { access_token: string };
    const b = (await h.requestToken("acme-quota")).body as { access_token: string };
    return a.access_token !== b.access_token;
  },
  "quota-201-accepted": async (h) => (await quota(h, 201)).status === 200,
  "quota-201-accepted-by-post": async (h) => (await quota(h, 201)).status === 200,
  "quota-change-ignored-on-post": async (h) => {
    await quota(h, 1);
    await h.requestToken("acme-quota");
    await quota(h, 2);
    return (await h.requestToken("acme-quota")).status === 429;
  },
  "multitoken-stays-on-after-off": async (h) => {
    await quota(h, 5);
    await h.requestToken("acme-quota");
    const admin = await h.token("acme-admin");
    const stored = (await h.call("POST", "/oauth/customers/cust-acme", { token: admin, body: {} }))
      .body as Record<string, unknown>;
    const { multitokenConfig: _off, ...off } = stored;
    await h.call("PUT", "/oauth/customers/cust-acme", { token: admin, body: off });
    const a = (await h.requestToken("acme-quota")).body as { access_token: string };
    const b = (await h.requestToken("acme-quota")).body as { access_token: string };
    return a.access_token !== b.access_token;
  },
  "refused-token-request-counted": async (h) => {
    await quota(h, 1);
    await h.requestToken("acme-quota");
    h.clock.advance(HOUR / 2);
    await h.requestToken("acme-quota");
    // The token expires an hour after issue; the declined request half an hour later took nothing.
    h.clock.advance(HOUR / 2 + 1000);
    return (await h.requestToken("acme-quota")).status === 429;
  },
  "refused-token-request-renews-token": async (h) => {
    await quota(h, 1);
    const token = await h.requestToken("acme-quota");
    h.clock.advance(HOUR / 2);
    await h.requestToken("acme-quota");
    h.clock.advance(HOUR / 2 + 1000);
    const value = (token.body as { access_token: string }).access_token;
    return (await h.call("GET", "/healthcheck", { token: value })).status === 200;
  },
  "token-expires-early": async (h) => {
    const token = await h.token("acme-viewer");
    const validity = h.ref.state.clients.get("acme-viewer")?.client.accessTokenValidity ?? 3600;
    // Just inside the 1 s of rounding a correct implementation may take.
    h.clock.advance(validity * 1000 - 1001);
    return (await h.call("GET", "/healthcheck", { token })).status === 401;
  },
  "rdbms-rule-ignored": async (h) => (await quota(h, 10, "cust-legacy", "legacy-admin")).status === 200,
  "rdbms-refusal-still-stored": async (h) => {
    await quota(h, 10, "cust-legacy", "legacy-admin");
    return h.ref.state.customers.get("cust-legacy")?.multitokenConfig !== undefined;
  },
  "validity-set-for-whole-customer": async (h) => {
    await h.call("PUT", "/oauth/customers/cust-acme/clients", {
      token: await h.token("acme-admin"),
      body: [{ clientId: "acme-quota", accessTokenValidity: 60 }],
    });
    const viewer = (await h.requestToken("acme-viewer")).body as { expires_in: number };
    return viewer.expires_in === 60;
  },
  "reissued-token-renewed": async (h) => {
    const a = (await h.requestToken("acme-quota")).body as { access_token: string };
    h.clock.advance(HOUR / 2);
    await h.requestToken("acme-quota");
    h.clock.advance(HOUR / 2 + 1_000);
    return (await h.call("GET", "/healthcheck", { token: a.access_token })).status === 200;
  },
  "multitoken-config-reaches-other-customers": async (h) => {
    await quota(h, 5);
    const a = (await h.requestToken("globex-admin")).body as { access_token: string };
    const b = (await h.requestToken("globex-admin")).body as { access_token: string };
    return a.access_token !== b.access_token;
  },
  "delete-by-type-removes-other-types": async (h) => {
    await deleteAndWait(h, { type: "delete", parameters: { type: "rdm/lookupTypes/Gender" } });
    return !ids(h, "acme").some((id) => id.includes("/Country/"));
  },
  "delete-by-type-first-page-only": async (h) => {
    await deleteAndWait(h, { type: "delete", parameters: { type: "rdm/lookupTypes/Country" } });
    return ids(h, "acme").some((id) => id.includes("/Country/"));
  },
  "delete-by-uris-removes-more": async (h) => {
    const before = ids(h, "acme").length;
    await deleteAndWait(h, { type: "delete", parameters: { uris: ["acme/Country/DE"] } });
    return ids(h, "acme").length !== before - 1;
  },
  "delete-touches-other-tenant": async (h) => {
    const before = ids(h, "globex");
    await deleteAndWait(h, { type: "delete", parameters: { type: "rdm/lookupTypes/Gender" } });
    return ids(h, "globex").length !== before.length;
  },
  // A URI of another tenant must delete nothing in the task's tenant (the reference refuses it outright).
  "delete-uri-tenant-ignored": async (h) => {
    const before = ids(h, "acme").length;
    await deleteAndWait(h, { type: "delete", parameters: { uris: ["globex/Country/DE"] } });
    return ids(h, "acme").length !== before;
  },
  "delete-task-follows-foreign-uris": async (h) => {
    const before = ids(h, "globex").length;
    await deleteAndWait(h, { type: "delete", parameters: { uris: ["globex/Country/AD"] } });
    return ids(h, "globex").length !== before;
  },
  "editor-task-follows-foreign-uris": async (h) => {
    const before = ids(h, "globex").length;
    await deleteAndWait(h, { type: "delete", parameters: { uris: ["globex/Country/AD"] } });
    return ids(h, "globex").length !== before;
  },
  "deleted-lookups-come-back": async (h) => {
    await deleteAndWait(h, { type: "delete", parameters: { uris: ["acme/Country/DE"] } });
    h.clock.advance(60_000);
    // The reference runs what is due before each request: one request after the time passed.
    await firstPage(h, "/lookups/acme/_scan?limit=1");
    return ids(h, "acme").includes("rdm/lookupTypes/Country/DE");
  },
  "deleted-type-still-matches-by-name": async (h) => {
    await deleteAndWait(h, { type: "delete", parameters: { type: "rdm/lookupTypes/Gender" } });
    const page = await firstPage(h, "/lookups/acme/_scan?filter=equals(type,'Gender')");
    return page.values.length > 0;
  },
  "delete-task-clears-blocked-values": async (h) => {
    await deleteAndWait(h, { type: "delete", parameters: { uris: ["acme/Currency/EUR"] } });
    const listed = await h.call("GET", "/configuration/acme/autopilot/Country/blockedValues?limit=1", {
      token: await h.token("acme-viewer"),
    });
    return (listed.body as unknown[]).length === 0;
  },
  "status-degraded-when-tenant-empty": async (h) => {
    await deleteAndWait(h, { type: "delete" });
    const status = await h.call("GET", "/status", { token: await h.token("acme-viewer") });
    return (status.body as { status: string }).status !== "OK";
  },
  "delete-task-never-completes": async (h) => {
    const before = ids(h, "acme").length;
    const completed = await deleteAndWait(h, { type: "delete", parameters: { uris: ["acme/Country/DE"] } });
    return !completed && ids(h, "acme").length === before;
  },
  "blocked-values-offset-ignored": async (h) => {
    const token = await h.token("acme-viewer");
    const a = await h.call("GET", "/configuration/acme/autopilot/Country/blockedValues?limit=1", { token });
    const b = await h.call("GET", "/configuration/acme/autopilot/Country/blockedValues?limit=1&offset=100", {
      token,
    });
    return JSON.stringify(a.body) === JSON.stringify(b.body);
  },
  "blocked-values-limit-ignored": async (h) => {
    const a = await h.call("GET", "/configuration/acme/autopilot/Country/blockedValues?limit=10", {
      token: await h.token("acme-viewer"),
    });
    return (a.body as unknown[]).length !== 10;
  },
  "blocked-values-offset-past-end-repeats-last-page": async (h) => {
    const a = await h.call(
      "GET",
      "/configuration/acme/autopilot/Country/blockedValues?offset=1000&limit=10",
      {
        token: await h.token("acme-viewer"),
      },
    );
    return (a.body as unknown[]).length !== 0;
  },
  "blocked-values-offset-rounded-to-page": async (h) => {
    const token = await h.token("acme-viewer");
    const path = "/configuration/acme/autopilot/Country/blockedValues";
    const whole = (await h.call("GET", `${path}?offset=0&limit=20`, { token })).body as unknown[];
    const window = (await h.call("GET", `${path}?offset=5&limit=10`, { token })).body as unknown[];
    return JSON.stringify(window) !== JSON.stringify(whole.slice(5, 15));
  },
  "blocked-values-of-every-type": async (h) => {
    const a = await h.call("GET", "/configuration/acme/autopilot/Currency/blockedValues", {
      token: await h.token("acme-viewer"),
    });
    return (a.body as { lookupType: string }[]).some((v) => v.lookupType !== "rdm/lookupTypes/Currency");
  },
  "missing-auth-accepted": async (h) => (await h.call("POST", "/lookups/acme/_scan?limit=1")).status === 200,
  "cross-tenant-read": async (h) =>
    (await h.call("POST", "/lookups/globex/_scan?limit=1", { token: await h.token("acme-viewer") }))
      .status === 200,
  "viewer-allowed-to-delete": async (h) =>
    (
      await h.call("POST", "/tasks/acme", {
        token: await h.token("acme-viewer"),
        body: { type: "delete", parameters: { uris: [] } },
      })
    ).status === 202,
  "concurrent-quota-race": async (h) => {
    await quota(h, 200);
    const answers = await Promise.all(Array.from({ length: 1000 }, () => h.requestToken("acme-quota")));
    return answers.filter((a) => a.status === 200).length > 200;
  },
  "version-not-dotted": async (h) => {
    const a = await h.call("GET", "/version", { token: await h.token("acme-viewer") });
    return !/^\d+(\.\d+)+$/.test(String((a.body as Record<string, unknown>)["rdm-service"]));
  },
  "healthcheck-not-ok": async (h) =>
    (
      (await h.call("GET", "/healthcheck", { token: await h.token("acme-viewer") })).body as {
        status: string;
      }
    ).status !== "OK",
  "token-error-not-json": async (h) => {
    await quota(h, 1);
    await h.requestToken("acme-quota");
    const refused = await h.requestToken("acme-quota");
    return (
      !(refused.headers.get("content-type") ?? "").includes("json") &&
      !/limit|exceed|quota/i.test(refused.text)
    );
  },
  "limit-over-100-accepted-silently": async (h) => {
    const a = await h.call("POST", "/lookups/acme/_scan?limit=150", { token: await h.token("acme-viewer") });
    return a.status === 200 && (a.body as { values: unknown[] }).values.length === 150;
  },
  "status-not-ok": async (h) =>
    ((await h.call("GET", "/status", { token: await h.token("acme-viewer") })).body as { status: string })
      .status !== "OK",
  "malformed-token-accepted": async (h) =>
    (await h.call("POST", "/lookups/acme/_scan?limit=1", { token: "never-issued-token" })).status === 200,
  "viewer-read-refused": async (h) =>
    (
      await h.call("GET", "/configuration/acme/autopilot/Country/blockedValues?limit=1", {
        token: await h.token("acme-viewer"),
      })
    ).status === 403,
  "editor-delete-refused": async (h) =>
    (
      await h.call("POST", "/tasks/acme", {
        token: await h.token("acme-editor"),
        body: { type: "delete", parameters: { uris: [] } },
      })
    ).status === 403,
  "admin-config-refused": async (h) =>
    (
      await h.call("PUT", "/oauth/customers/cust-acme/clients", {
        token: await h.token("acme-admin"),
        body: [],
      })
    ).status === 403,
  "configuration-open-to-viewer": async (h) =>
    (
      await h.call("PUT", "/oauth/customers/cust-acme/clients", {
        token: await h.token("acme-viewer"),
        body: [],
      })
    ).status === 200,
  // The one-slice faults: broken on that slice, kept on the rest (so a check of one slice passes them).
  "expired-token-accepted-outside-lookups": async (h) => {
    const token = await h.token("acme-viewer");
    h.clock.advance(HOUR);
    const autopilot = await h.call("POST", "/configuration/acme/autopilot/stats/_scan?limit=1", { token });
    const lookups = await h.call("POST", "/lookups/acme/_scan?limit=1", { token });
    return autopilot.status === 200 && lookups.status === 401;
  },
  "expired-admin-token-accepted": async (h) => {
    const admin = await h.token("acme-admin");
    const viewer = await h.token("acme-viewer");
    h.clock.advance(HOUR);
    const byAdmin = await h.call("POST", "/lookups/acme/_scan?limit=1", { token: admin });
    const byViewer = await h.call("POST", "/lookups/acme/_scan?limit=1", { token: viewer });
    return byAdmin.status === 200 && byViewer.status === 401;
  },
  "malformed-token-accepted-on-blocked-values": async (h) => {
    const token = "never-issued-token";
    const blocked = await h.call("GET", "/configuration/acme/autopilot/Country/blockedValues?limit=1", {
      token,
    });
    const lookups = await h.call("POST", "/lookups/acme/_scan?limit=1", { token });
    return blocked.status === 200 && lookups.status === 401;
  },
  "service-endpoints-answer-without-token": async (h) => {
    const health = await h.call("GET", "/healthcheck");
    const lookups = await h.call("POST", "/lookups/acme/_scan?limit=1");
    return health.status === 200 && lookups.status === 401;
  },
  "other-tenant-delete-by-type-open": async (h) => {
    const token = await h.token("acme-editor");
    const task = (parameters: object) =>
      h.call("POST", "/tasks/globex", { token, body: { type: "delete", parameters } });
    const byType = await task({ type: "rdm/lookupTypes/LckitAbsentType" });
    const byUris = await task({ uris: ["globex/LckitAbsentType/absent"] });
    return byType.status === 202 && byUris.status === 403;
  },
  "viewer-delete-by-type-allowed": async (h) => {
    const token = await h.token("acme-viewer");
    const task = (parameters: object) =>
      h.call("POST", "/tasks/acme", { token, body: { type: "delete", parameters } });
    const byType = await task({ type: "rdm/lookupTypes/LckitAbsentType" });
    const byUris = await task({ uris: ["acme/LckitAbsentType/absent"] });
    return byType.status === 202 && byUris.status === 403;
  },
  "editor-delete-by-type-refused": async (h) => {
    const token = await h.token("acme-editor");
    const task = (parameters: object) =>
      h.call("POST", "/tasks/acme", { token, body: { type: "delete", parameters } });
    const byType = await task({
      type: "rdm/lookupTypes/LckitAbsentType",
      uris: ["acme/LckitAbsentType/absent"],
    });
    const byUris = await task({ uris: ["acme/LckitAbsentType/absent"] });
    return byType.status === 403 && byUris.status === 202;
  },
  "reissued-token-not-stored": async (h) => {
    await h.requestToken("acme-viewer");
    const again = (await h.requestToken("acme-viewer")).body as { access_token: string };
    return (await h.call("GET", "/healthcheck", { token: again.access_token })).status === 401;
  },
  "token-type-missing": async (h) =>
    !("token_type" in ((await h.requestToken("acme-viewer")).body as Record<string, unknown>)),
  "grant-in-query-refused": async (h) =>
    (
      await h.call("POST", "/oauth/token?grant_type=client_credentials", {
        headers: { authorization: basic("acme-viewer") },
      })
    ).status !== 200,
  "token-errors-not-rfc6749": async (h) => {
    const a = await h.call("POST", "/oauth/token", {
      headers: { authorization: basic("acme-viewer"), "content-type": "application/x-www-form-urlencoded" },
      body: "",
    });
    return (a.body as { error?: string }).error !== "invalid_request";
  },
  "quota-0-accepted": async (h) => (await quota(h, 0)).status === 200,
  "token-validity-ignored": async (h) => {
    await h.call("PUT", "/oauth/customers/cust-acme/clients", {
      token: await h.token("acme-admin"),
      body: [{ clientId: "acme-quota", accessTokenValidity: 60 }],
    });
    const a = (await h.requestToken("acme-quota")).body as { expires_in: number; access_token: string };
    h.clock.advance(61_000);
    const used = await h.call("GET", "/healthcheck", { token: a.access_token });
    return a.expires_in === 3600 && used.status === 200;
  },
  "multitoken-needs-quota-value": async (h) => {
    await h.call("POST", "/oauth/customers/cust-acme", {
      token: await h.token("acme-admin"),
      body: { multitokenConfig: { clientCredentialsMultiTokenConfig: {} } },
    });
    const a = (await h.requestToken("acme-quota")).body as { access_token: string };
    const b = (await h.requestToken("acme-quota")).body as { access_token: string };
    return a.access_token === b.access_token;
  },
  "expired-token-returned-again": async (h) => {
    // Multi-token support off (the fixture's default), a short validity, every token expired, then a
    // token request.
    await h.call("PUT", "/oauth/customers/cust-acme/clients", {
      token: await h.token("acme-admin"),
      body: [{ clientId: "acme-quota", accessTokenValidity: 60 }],
    });
    const a = (await h.requestToken("acme-quota")).body as { access_token: string };
    h.clock.advance(2 * HOUR);
    const b = (await h.requestToken("acme-quota")).body as { access_token: string };
    return a.access_token === b.access_token;
  },
  "empty-multitoken-config-breaks-tokens": async (h) => {
    const admin = await h.token("acme-admin");
    const written = await h.call("POST", "/oauth/customers/cust-acme", {
      token: admin,
      body: { multitokenConfig: {} },
    });
    return written.status === 200 && (await h.requestToken("acme-quota")).status !== 200;
  },
  "first-page-null-body-refused": async (h) =>
    (await h.call("POST", "/lookups/acme/_scan?limit=1", { token: await h.token("acme-viewer"), body: null }))
      .status !== 200,
  "scan-restarts-after-end": async (h) => {
    const token = await h.token("acme-viewer");
    const page = await firstPage(
      h,
      `/lookups/acme/_scan?filter=${encodeURIComponent("equals(type,'Gender')")}`,
    );
    if (page.scrollId === undefined) return false;
    const sizes = [];
    for (let i = 0; i < 2; i++) {
      const next = await h.call("POST", "/lookups/acme/_scan", { token, body: { scrollId: page.scrollId } });
      sizes.push((next.body as { values: unknown[] }).values.length);
    }
    return sizes[0] === 0 && (sizes[1] ?? 0) > 0;
  },
  "raw-scroll-id-refused": async (h) => {
    const page = await firstPage(h, "/lookups/acme/_scan?limit=1");
    const next = await h.call("POST", "/lookups/acme/_scan", {
      token: await h.token("acme-viewer"),
      headers: { "content-type": "text/plain" },
      body: page.scrollId,
    });
    return next.status === 400;
  },
  "unknown-scroll-id-restarts": async (h) =>
    (
      await h.call("POST", "/lookups/acme/_scan", {
        token: await h.token("acme-viewer"),
        body: { scrollId: "no-such-scroll" },
      })
    ).status === 200,
  "lookup-record-field-wrong-type": async (h) =>
    typeof (await firstPage(h, "/lookups/acme/_scan?limit=1")).values[0]?.updateDate !== "number",
  "statistic-field-wrong-type": async (h) =>
    typeof (await firstPage(h, "/configuration/acme/autopilot/stats/_scan?limit=1")).values[0]
      ?.centroidMatch !== "boolean",
  "blocked-value-field-wrong-type": async (h) => {
    const a = await h.call("GET", "/configuration/acme/autopilot/Country/blockedValues?limit=1", {
      token: await h.token("acme-viewer"),
    });
    return typeof (a.body as Record<string, unknown>[])[0]?.createdAt !== "number";
  },
  "blocked-values-default-limit-wrong": async (h) => {
    const a = await h.call("GET", "/configuration/acme/autopilot/Country/blockedValues", {
      token: await h.token("acme-viewer"),
    });
    return (a.body as unknown[]).length !== 100;
  },
  "customer-post-with-id-refused": async (h) =>
    (
      await h.call("POST", "/oauth/customers/cust-acme", {
        token: await h.token("acme-admin"),
        body: { id: "cust-acme", description: "posted whole" },
      })
    ).status !== 200,
  "put-merges": async (h) => {
    const a = await h.call("PUT", "/oauth/customers/cust-acme", {
      token: await h.token("acme-admin"),
      body: { id: "cust-acme", tenants: ["acme"] },
    });
    return "description" in (a.body as Record<string, unknown>);
  },
  "customer-post-answers-201": async (h) =>
    (await h.call("POST", "/oauth/customers/cust-acme", { token: await h.token("acme-admin"), body: {} }))
      .status === 201,
  "clients-answer-with-secrets": async (h) => {
    const a = await h.call("PUT", "/oauth/customers/cust-acme/clients", {
      token: await h.token("acme-admin"),
      body: [{ clientId: "acme-viewer" }],
    });
    return (a.body as Record<string, unknown>[]).some((c) => "clientSecret" in c);
  },
  "clients-answer-validity-as-string": async (h) => {
    const a = await h.call("PUT", "/oauth/customers/cust-acme/clients", {
      token: await h.token("acme-admin"),
      body: [{ clientId: "acme-viewer" }],
    });
    return (a.body as Record<string, unknown>[]).some((c) => typeof c.accessTokenValidity === "string");
  },
  "unknown-customer-clients-created": async (h) =>
    (
      await h.call("PUT", "/oauth/customers/no-such-customer/clients", {
        token: await h.token("acme-admin"),
        body: [],
      })
    ).status === 200,
  "delete-task-without-type-refused": async (h) =>
    (
      await h.call("POST", "/tasks/acme", {
        token: await h.token("acme-editor"),
        body: { type: "delete", parameters: { uris: [] } },
      })
    ).status === 400,
  "task-without-id": async (h) => {
    const a = await h.call("POST", "/tasks/acme", {
      token: await h.token("acme-editor"),
      body: { type: "delete", parameters: { uris: [] } },
    });
    return (a.body as Partial<Task>).id === undefined;
  },
  "invalid-task-type-accepted": async (h) =>
    (
      await h.call("POST", "/tasks/acme", {
        token: await h.token("acme-editor"),
        body: { type: "archive", parameters: { uris: [] } },
      })
    ).status === 202,
  "task-status-created-time-as-string": async (h) => {
    const token = await h.token("acme-editor");
    const task = (
      await h.call("POST", "/tasks/acme", { token, body: { type: "delete", parameters: { uris: [] } } })
    ).body as Task;
    const read = await h.call("GET", `/tasks/acme/${task.id}`, { token });
    return typeof (read.body as Record<string, unknown>).createdTime === "string";
  },
  "malformed-json-500": async (h) =>
    (
      await h.call("POST", "/tasks/acme", {
        token: await h.token("acme-editor"),
        headers: { "content-type": "application/json" },
        body: '{"type": ',
      })
    ).status === 500,
  "oversized-body-500": async (h) =>
    (
      await h.call("POST", "/tasks/acme", {
        token: await h.token("acme-editor"),
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ type: "delete", padding: "x".repeat(1024 * 1024 + 1) }),
      })
    ).status === 500,
  "filter-equals-matches-missing-field": async (h) => {
    const path = `/configuration/acme/autopilot/stats/_scan?filter=${encodeURIComponent("equals(candidateLookupCode,'GD')")}`;
    const { values } = await h.scanAll(path, await h.token("acme-viewer"));
    return (values as Record<string, unknown>[]).some((s) => s.candidateLookupCode === undefined);
  },
  "scan-opening-closes-other-scrolls": async (h) => {
    const token = await h.token("acme-viewer");
    const first = await firstPage(h, "/lookups/acme/_scan?limit=1");
    await firstPage(h, "/configuration/acme/autopilot/stats/_scan?limit=1");
    const next = await h.call("POST", "/lookups/acme/_scan?limit=1", {
      token,
      body: { scrollId: first.scrollId },
    });
    return next.status !== 200;
  },
  "scan-opening-closes-indexed-scrolls": async (h) => {
    const path = `/lookups/acme/_scan?limit=1&filter=${encodeURIComponent("equals(type,'Country')")}`;
    const first = await firstPage(h, path);
    await firstPage(h, "/configuration/acme/autopilot/stats/_scan?limit=1");
    const next = await h.call("POST", path, {
      token: await h.token("acme-viewer"),
      body: { scrollId: first.scrollId },
    });
    return next.status !== 200;
  },
  "type-scroll-id-continues-on-other-type": async (h) => {
    const first = await firstPage(
      h,
      "/configuration/acme/autopilot/stats/Country/_scan?limit=1",
      "acme-admin",
    );
    const next = await h.call("POST", "/configuration/acme/autopilot/stats/Gender/_scan?limit=1", {
      token: await h.token("acme-admin"),
      body: { scrollId: first.scrollId },
    });
    const values = next.status === 200 ? (next.body as { values: Record<string, unknown>[] }).values : [];
    return values.some((s) => String(s.lookupType).replace(/^.*\//, "") === "Country");
  },
  "scroll-id-continues-on-any-path": async (h) => {
    const first = await firstPage(h, "/lookups/acme/_scan?limit=1");
    const next = await h.call("POST", "/lookups/globex/_scan?limit=1", {
      token: await h.token("globex-admin"),
      body: { scrollId: first.scrollId },
    });
    return next.status === 200 && (next.body as { values: Lookup[] }).values[0]?.tenantId === "acme";
  },
  "scan-continuation-without-token-served": async (h) => {
    const first = await firstPage(h, "/lookups/acme/_scan?limit=1");
    const next = await h.call("POST", "/lookups/acme/_scan?limit=1", { body: { scrollId: first.scrollId } });
    return next.status === 200;
  },
  "autopilot-sorted-default-limit-50": async (h) =>
    (await firstPage(h, "/configuration/acme/autopilot/stats/_scan?sort=createdAt", "acme-admin")).values
      .length !== 100,
  "autopilot-filtered-default-limit-25": async (h) => {
    const path = "/configuration/acme/autopilot/stats/_scan?filter=equals(lookupType,'Country')";
    const [plain, named] = [
      await firstPage(h, path, "acme-admin"),
      await firstPage(h, `${path}&limit=100`, "acme-admin"),
    ];
    return plain.values.length !== named.values.length;
  },
  "first-page-null-body-drops-query": async (h) => {
    const a = await h.call("POST", "/lookups/acme/_scan?limit=1", {
      token: await h.token("acme-viewer"),
      body: null,
    });
    return (a.body as { values: unknown[] }).values.length !== 1;
  },
  "blocked-values-offset-without-limit-unbounded": async (h) => {
    const a = await h.call("GET", "/configuration/acme/autopilot/Country/blockedValues?offset=1", {
      token: await h.token("acme-viewer"),
    });
    return (a.body as unknown[]).length > 100;
  },
  "empty-parameters-delete-nothing": async (h) => {
    await deleteAndWait(h, { type: "delete", parameters: {} });
    return ids(h, "acme").length > 0;
  },
};

describe("seeded faults", () => {
  it("catalogue: at least 61 kebab-case faults, each with a rule and a description, names unique", () => {
    expect(FAULTS.length).toBeGreaterThanOrEqual(61);
    expect(new Set(FAULTS.map((f) => f.name)).size).toBe(FAULTS.length);
    for (const f of FAULTS) {
      expect(f.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)+$/);
      expect(f.rule).toMatch(/^[A-Z]+(-[A-Z]+)*-\d{2}$/);
      expect(f.description.length).toBeGreaterThan(10);
    }
  });

  it("each fault is switched at exactly one place in the reference", () => {
    const dir = new URL("../../src/reference/", import.meta.url);
    const source = readdirSync(dir)
      .filter((f) => f.endsWith(".ts"))
      .map((f) => readFileSync(new URL(f, dir), "utf8"))
      .join("\n");
    for (const f of FAULTS) {
      const uses = source.split(`faults.has("${f.name}")`).length - 1;
      expect(uses, f.name).toBe(1);
    }
  });

  it("refuses an unknown fault name", () => {
    expect(() => createReference({ faults: ["no-such-fault" as FaultName] })).toThrow(
      /unknown fault "no-such-fault"/,
    );
  });

  it.each(FAULTS.map((f) => [f.name]))("%s breaks its rule only when switched on", async (name) => {
    const scenario = SCENARIOS[name as FaultName];
    expect(await scenario(setup())).toBe(false);
    expect(await scenario(setup({ faults: [name as FaultName] }))).toBe(true);
  });
});
