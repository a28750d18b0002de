// Each variant makes the reference take its choice when switched on, and the reference keeps its own
// choice when it is off; the catalogue is well formed and refuses two alternatives of one choice.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  createReference,
  type Lookup,
  type Task,
  VARIANTS,
  type VariantName,
} from "../../src/reference/index.ts";
import { type Answer, type Harness, HOUR, setup } from "./harness.ts";

const viewer = (h: Harness) => h.token("acme-viewer");

async function scan(
  h: Harness,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
): Promise<Answer> {
  return h.call("POST", path, { token: await viewer(h), body, ...(headers ? { headers } : {}) });
}

async function firstScrollId(h: Harness): Promise<string> {
  const a = await scan(h, "/lookups/acme/_scan?limit=1");
  return (a.body as { scrollId: string }).scrollId;
}

async function nextWith(h: Harness, body: string, type: string): Promise<number> {
  return (await scan(h, "/lookups/acme/_scan", body, { "content-type": type })).status;
}

/** Pages of a small filtered scan (Gender has few lookups) as they come, to the first answer without scrollId. */
async function endPages(h: Harness): Promise<unknown[]> {
  const path = `/lookups/acme/_scan?limit=100&filter=${encodeURIComponent("equals(type,'rdm/lookupTypes/Gender')")}`;
  const pages: unknown[] = [];
  let a = await scan(h, path);
  for (let i = 0; i < 5; i++) {
    pages.push(a.body);
    const id = (a.body as { scrollId?: string | null }).scrollId;
    if (typeof id !== "string") break;
    a = await scan(h, "/lookups/acme/_scan", { scrollId: id });
  }
  return pages;
}

async function quotaRefusal(h: Harness): Promise<Answer> {
  await h.call("POST", "/oauth/customers/cust-acme", {
    token: await h.token("acme-admin"),
    body: { multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: 1 } } },
  });
  await h.requestToken("acme-quota");
  return h.requestToken("acme-quota");
}

async function deleteTask(h: Harness): Promise<Answer> {
  return h.call("POST", "/tasks/acme", {
    token: await h.token("acme-admin"),
    body: { type: "delete", parameters: { uris: ["acme/Country/DE"] } },
  });
}

const hasDE = (h: Harness) =>
  h.ref.state.lookups.get("acme")?.get("rdm/lookupTypes/Country", "DE") !== undefined;

async function filtered(h: Harness, filter: string): Promise<Answer> {
  return scan(h, `/lookups/acme/_scan?filter=${encodeURIComponent(filter)}`);
}

const count = (a: Answer) => (a.body as { values?: unknown[] }).values?.length ?? -1;

/** For each variant: does the reference show the variant's choice? (true with it on, false without) */
const SHOWS: Record<VariantName, (h: Harness) => Promise<boolean>> = {
  "scroll-id-raw-text-only": async (h) =>
    (await nextWith(h, JSON.stringify({ scrollId: await firstScrollId(h) }), "application/json")) !== 200,
  "scroll-id-object-only": async (h) => (await nextWith(h, await firstScrollId(h), "text/plain")) !== 200,
  "scroll-id-json-string-only": async (h) =>
    (await nextWith(h, JSON.stringify({ scrollId: await firstScrollId(h) }), "application/json")) !== 200,
  "end-empty-page": async (h) => {
    const pages = await endPages(h);
    const last = pages.at(-1) as { values: unknown[]; scrollId?: unknown };
    return pages.length === 2 && last.values.length === 0 && !("scrollId" in last);
  },
  "end-empty-page-with-scroll-id": async (h) => {
    const pages = (await endPages(h)) as { values: unknown[]; scrollId?: unknown }[];
    return pages.length === 3 && pages[1]?.values.length === 0 && typeof pages[1]?.scrollId === "string";
  },
  "scroll-id-per-page": async (h) => {
    const first = await firstScrollId(h);
    const second = await scan(h, "/lookups/acme/_scan", { scrollId: first });
    const next = (second.body as { scrollId?: unknown }).scrollId;
    const stale = await scan(h, "/lookups/acme/_scan", { scrollId: first });
    const onward = await scan(h, "/lookups/acme/_scan", { scrollId: next });
    return typeof next === "string" && next !== first && stale.status === 400 && onward.status === 200;
  },
  "end-scroll-id-null": async (h) => {
    const pages = (await endPages(h)) as { scrollId?: unknown }[];
    return pages.at(-1)?.scrollId === null;
  },
  "unknown-scroll-id-404": async (h) =>
    (await scan(h, "/lookups/acme/_scan", { scrollId: "nope" })).status === 404,
  "unknown-scroll-id-410": async (h) =>
    (await scan(h, "/lookups/acme/_scan", { scrollId: "nope" })).status === 410,
  "limit-above-max-clamped": async (h) =>
    count(
      await h.call("POST", "/configuration/acme/autopilot/stats/_scan?limit=150", { token: await viewer(h) }),
    ) >= 0,
  "lookup-scan-limit-unbounded": async (h) => count(await scan(h, "/lookups/acme/_scan?limit=150")) > 100,
  "short-pages": async (h) => {
    const first = (await scan(h, "/lookups/acme/_scan?limit=100")).body as {
      scrollId?: string;
      values: unknown[];
    };
    return first.values.length === 25 && typeof first.scrollId === "string";
  },
  "equals-case-sensitive": async (h) => count(await filtered(h, "equals(code,'de')")) === 0,
  "equals-exact-stored-value": async (h) => count(await filtered(h, "equals(type,'Country')")) === 0,
  "filter-equals-only": async (h) => (await filtered(h, "startsWith(code,'D')")).status === 400,
  "sort-fields-limited": async (h) => (await scan(h, "/lookups/acme/_scan?sort=version")).status === 400,
  "sort-ties-reversed": async (h) => {
    const first = (await scan(h, "/lookups/acme/_scan?sort=type&limit=1")).body as { values: Lookup[] };
    const identityFirst = h.ref.state.lookups.get("acme")?.inIdentityOrder()[0];
    return first.values[0]?.code !== identityFirst?.code;
  },
  "sort-case-insensitive": async (h) => {
    const { values } = await h.scanAll(
      "/configuration/acme/autopilot/stats/_scan?sort=unmappedValue",
      await h.token("acme-admin"),
    );
    const names = (values as { unmappedValue: string }[]).map((s) => s.unmappedValue);
    const lower = names.findIndex((v) => /^[a-z]/.test(v));
    return lower >= 0 && names.slice(lower).some((v) => /^[A-Z]/.test(v));
  },
  "token-rate-limit": async (h) => {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await h.requestToken("acme-viewer")).status);
    h.clock.advance(1000);
    statuses.push((await h.requestToken("acme-viewer")).status);
    return statuses.join() === `${"200,".repeat(10)}429,200`;
  },
  "quota-refusal-400": async (h) => (await quotaRefusal(h)).status === 400,
  "quota-refusal-403": async (h) => (await quotaRefusal(h)).status === 403,
  "quota-refusal-409": async (h) => (await quotaRefusal(h)).status === 409,
  "missing-token-403": async (h) => (await h.call("GET", "/healthcheck")).status === 403,
  "tenant-refused-404": async (h) => (await scan(h, "/lookups/globex/_scan?limit=1")).status === 404,
  "expired-token-403": async (h) => {
    const token = await viewer(h);
    h.clock.advance(HOUR);
    return (await h.call("GET", "/healthcheck", { token })).status === 403;
  },
  "validation-error-422": async (h) => (await scan(h, "/lookups/acme/_scan?limit=0")).status === 422,
  "error-body-problem-json": async (h) => {
    const a = await scan(h, "/lookups/acme/_scan?limit=0");
    return (a.headers.get("content-type") ?? "").startsWith("application/problem+json");
  },
  "error-body-plain-text": async (h) => {
    const a = await scan(h, "/lookups/acme/_scan?limit=0");
    return (a.headers.get("content-type") ?? "").startsWith("text/plain") && a.text.includes("limit");
  },
  "delete-task-200": async (h) => (await deleteTask(h)).status === 200,
  "delete-task-201": async (h) => (await deleteTask(h)).status === 201,
  "delete-task-204": async (h) => {
    const a = await deleteTask(h);
    return a.status === 204 && a.text === "";
  },
  "delete-task-delayed": async (h) => {
    await deleteTask(h);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await scan(h, "/lookups/acme/_scan?limit=1");
    const before = hasDE(h);
    h.clock.advance(2_000);
    await scan(h, "/lookups/acme/_scan?limit=1");
    return before && !hasDE(h);
  },
  "delete-task-foreign-uris-skipped": async (h) => {
    const a = await h.call("POST", "/tasks/acme", {
      token: await h.token("acme-admin"),
      body: { type: "delete", parameters: { uris: ["globex/Country/DE", "acme/Country/DE"] } },
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    return a.status === 202 && !hasDE(h);
  },
  "delete-task-one-parameter": async (h) => {
    const a = await h.call("POST", "/tasks/acme", {
      token: await h.token("acme-admin"),
      body: { type: "delete", parameters: { type: "rdm/lookupTypes/Absent", uris: ["acme/Absent/X"] } },
    });
    return a.status === 400;
  },
  "no-task-status-endpoint": async (h) => {
    const task = (await deleteTask(h)).body as Task;
    const token = await h.token("acme-admin");
    return (await h.call("GET", `/tasks/acme/${task.id}`, { token })).status === 404;
  },
  "grant-type-in-query-refused": async (h) =>
    (
      await h.call("POST", "/oauth/token?grant_type=client_credentials", {
        headers: {
          authorization: `Basic ${Buffer.from("acme-viewer:acme-viewer-secret").toString("base64")}`,
        },
      })
    ).status === 400,
  "client-auth-basic-only": async (h) =>
    (
      await h.call("POST", "/oauth/token", {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials&client_id=acme-viewer&client_secret=acme-viewer-secret",
      })
    ).status === 401,
  // Basic and the same credentials in the body: accepted by the reference, refused by the variant.
  "client-auth-one-method": async (h) =>
    (
      await h.call("POST", "/oauth/token", {
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from("acme-viewer:acme-viewer-secret").toString("base64")}`,
        },
        body: "grant_type=client_credentials&client_id=acme-viewer&client_secret=acme-viewer-secret",
      })
    ).status === 400,
  "token-answer-minimal": async (h) => {
    const body = (await h.requestToken("acme-viewer")).body as Record<string, unknown>;
    return body.token_type === "Bearer" && body.scope === undefined;
  },
  "default-quota-50": async (h) => {
    await h.call("POST", "/oauth/customers/cust-acme", {
      token: await h.token("acme-admin"),
      body: { multitokenConfig: { clientCredentialsMultiTokenConfig: {} } },
    });
    for (let i = 0; i < 50; i++) await h.requestToken("acme-quota");
    return (await h.requestToken("acme-quota")).status !== 200;
  },
  "put-customer-merges": async (h) => {
    const a = await h.call("PUT", "/oauth/customers/cust-acme", {
      token: await h.token("acme-admin"),
      body: { tenants: ["acme"] },
    });
    return (a.body as { description?: string }).description !== undefined;
  },
  "customer-answer-no-body": async (h) =>
    (await h.call("POST", "/oauth/customers/cust-acme", { token: await h.token("acme-admin"), body: {} }))
      .status === 204,
  "clients-answer-no-body": async (h) =>
    (
      await h.call("PUT", "/oauth/customers/cust-acme/clients", {
        token: await h.token("acme-admin"),
        body: [{ clientId: "acme-viewer", accessTokenValidity: 60 }],
      })
    ).status === 204,
  "clients-empty-list-refused": async (h) =>
    (
      await h.call("PUT", "/oauth/customers/cust-acme/clients", {
        token: await h.token("acme-admin"),
        body: [],
      })
    ).status === 400,
  "admin-administers-other-tenant": async (h) =>
    (await h.call("POST", "/lookups/globex/_scan?limit=1", { token: await h.token("acme-admin") })).status ===
    200,
  "version-as-number": async (h) => {
    const a = await h.call("GET", "/version", { token: await viewer(h) });
    return typeof (a.body as Record<string, unknown>)["rdm-service"] === "number";
  },
  "type-scan-without-dcrid": async (h) => {
    const values = async (path: string) => ((await scan(h, path)).body as { values: object[] }).values;
    const all = await values("/configuration/acme/autopilot/stats/_scan?limit=100");
    const withDcr = all.find((s) => "dcrId" in s) as { lookupType: string; dcrId: string } | undefined;
    if (withDcr === undefined) return false;
    const type = withDcr.lookupType.split("/").at(-1) as string;
    const filter = encodeURIComponent(`equals(dcrId,'${withDcr.dcrId}')`);
    const byType = await values(`/configuration/acme/autopilot/stats/${type}/_scan?limit=100`);
    const matched = await values(`/configuration/acme/autopilot/stats/${type}/_scan?filter=${filter}`);
    return byType.every((s) => !("dcrId" in s)) && matched.length === 0;
  },
  "lean-records": async (h) => {
    const lookup = ((await scan(h, "/lookups/acme/_scan?limit=1")).body as { values: object[] }).values[0];
    const stat = (
      (await scan(h, "/configuration/acme/autopilot/stats/_scan?limit=100")).body as { values: object[] }
    ).values;
    return (
      Object.keys(lookup ?? {}).join() === "type,code" &&
      stat.length > 0 &&
      stat.every((s) => !("candidateLookupCode" in s) && !("mappedBy" in s) && !("dcrId" in s))
    );
  },
  "rich-records": async (h) => {
    const lookup = ((await scan(h, "/lookups/acme/_scan?limit=1")).body as { values: object[] }).values[0];
    const blocked = await h.call("GET", "/configuration/acme/autopilot/Country/blockedValues?limit=1", {
      token: await viewer(h),
    });
    return "uri" in (lookup ?? {}) && "id" in ((blocked.body as object[])[0] ?? {});
  },
  "statistics-sharing-a-value": async (h) => {
    const stats = (
      (await scan(h, "/configuration/acme/autopilot/stats/_scan?limit=100")).body as {
        values: { lookupType: string; source: string; unmappedValue: string }[];
      }
    ).values;
    const keys = stats.map((s) => `${s.lookupType}|${s.source}|${s.unmappedValue}`);
    return new Set(keys).size < keys.length;
  },
  "service-answers-extra-fields": async (h) => {
    const a = await h.call("GET", "/healthcheck", { token: await viewer(h) });
    return Object.keys(a.body as object).length > 1;
  },
};

describe("variants", () => {
  it("catalogue: kebab-case names, unique, each with a group, a silent point and a description", () => {
    expect(new Set(VARIANTS.map((v) => v.name)).size).toBe(VARIANTS.length);
    for (const v of VARIANTS) {
      expect(v.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)+$/);
      expect(v.group).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(v.silentPoint.length).toBeGreaterThan(10);
      expect(v.description.length).toBeGreaterThan(10);
    }
  });

  it("each variant is read somewhere in the reference", () => {
    const dir = new URL("../../src/reference/", import.meta.url);
    const source = readdirSync(dir)
      .filter((f) => f.endsWith(".ts") && f !== "variants.ts")
      .map((f) => readFileSync(new URL(f, dir), "utf8"))
      .join("\n");
    for (const v of VARIANTS) expect(source.includes(`"${v.name}"`), v.name).toBe(true);
  });

  it("refuses unknown names and two alternatives of one choice, naming them", () => {
    expect(() => createReference({ variants: ["no-such" as VariantName] })).toThrow(
      /unknown variant "no-such"/,
    );
    expect(() => createReference({ variants: ["delete-task-200", "delete-task-204"] })).toThrow(
      /alternatives of one choice \(delete-task-answer\)/,
    );
  });

  it.each(VARIANTS.map((v) => [v.name] as const))(
    "%s: takes its choice when on, the kit's when off",
    async (name) => {
      expect(await SHOWS[name](setup({ variants: [name] })), "with the variant on").toBe(true);
      expect(await SHOWS[name](setup()), "with the variant off").toBe(false);
    },
  );
});
