// The service rules that follow state across exchanges (roles and tenant lists, the token quota, reads
// after a delete task), on small recorded sequences: each catches its faulty sequence, passes the correct
// one and the choices the document leaves open, and is undecided, never passed, where the traffic cannot
// say what it would need to know.
import { describe, expect, it } from "vitest";
import type { Target } from "../../src/check/index.ts";
import { judgeExchanges } from "../../src/traffic/judge.ts";
import type { ReadExchange } from "../../src/traffic/recorded-entry.ts";
import {
  accessOfDeclarations,
  accessOfTarget,
  type ClientAccess,
  parseRolesFlag,
} from "../../src/traffic/roles.ts";
import { BASE, RDM, T0, token, exchange as x } from "./timed-traffic.ts";

const bearer = (value: string) => ({ authorization: `Bearer ${value}` });
const scan = (tenant: string, value: string, status: number, at: number, values: unknown[] = []) =>
  x({
    url: `${RDM}/lookups/${tenant}/_scan`,
    headers: bearer(value),
    status,
    at,
    responseBody: status === 200 ? JSON.stringify({ values }) : '{"error":"forbidden"}',
  });
const deleteTask = (tenant: string, value: string, status: number, at: number, parameters?: unknown) => {
  const sent = x({
    url: `${RDM}/tasks/${tenant}`,
    headers: { ...bearer(value), "content-type": "application/json" },
    body: JSON.stringify({ type: "delete", ...(parameters === undefined ? {} : { parameters }) }),
    status,
    at,
    responseBody: '{"error":"forbidden"}',
  });
  if (status < 300) sent.responseBody = JSON.stringify({ id: `task-${sent.seq}`, status: "NOT_STARTED" });
  return sent;
};
const taskRead = (tenant: string, id: string, value: string, status: string, at: number) =>
  x({
    method: "GET",
    url: `${RDM}/tasks/${tenant}/${id}`,
    headers: bearer(value),
    at,
    responseBody: JSON.stringify({ id, status }),
  });
const customerWrite = (customer: string, body: unknown, value: string, at: number, method = "PUT") =>
  x({
    method,
    url: `${BASE}/oauth/customers/${customer}`,
    headers: { ...bearer(value), "content-type": "application/json" },
    body: JSON.stringify(body),
    at,
    responseBody: "{}",
  });

function statusOf(exchanges: ReadExchange[], id: string, access?: ReadonlyMap<string, ClientAccess>) {
  const { result } = judgeExchanges(exchanges, { source: "test.har", ...(access ? { access } : {}) });
  const check = result.checks.find((c) => c.id === id);
  return { status: check?.status, text: check?.message ?? check?.reason ?? "" };
}

const declared = (...flags: string[]) =>
  accessOfDeclarations(
    flags.map((f) => {
      const parsed = parseRolesFlag(f);
      if (typeof parsed === "string") throw new Error(parsed);
      return parsed;
    }),
  );

describe("service/refuses-foreign-tenant", () => {
  const id = "service/refuses-foreign-tenant";
  const roles = declared("viewer-1=ROLE_RDM@acme");
  it("catches a scan of another tenant answered 200 to a client declared without it; a refusal passes", () => {
    const faulty = [token("viewer-1", "tok-v1", T0), scan("globex", "tok-v1", 200, T0 + 1000)];
    expect(statusOf(faulty, id, roles)).toMatchObject({ status: "failed", text: /viewer-1.*holds no role/ });
    const correct = [token("viewer-1", "tok-v1", T0), scan("globex", "tok-v1", 403, T0 + 1000)];
    expect(statusOf(correct, id, roles).status).toBe("passed");
  });
  it("judges nothing of a client in its own tenant, and a tenant admin in its tenant", () => {
    const own = [token("viewer-1", "tok-v1", T0), scan("acme", "tok-v1", 200, T0 + 1000)];
    expect(statusOf(own, id, roles).status).toBe("not-exercised");
    const admin = declared("admin-1=ROLE_ADMIN_TENANT_globex");
    const adminScan = [token("admin-1", "tok-a1", T0), scan("globex", "tok-a1", 200, T0 + 1000)];
    expect(statusOf(adminScan, id, admin).status).toBe("not-exercised");
  });
  it("cannot decide a client whose roles are not declared: inconclusive; none declared: not exercised", () => {
    const unknown = [token("other-1", "tok-o1", T0), scan("globex", "tok-o1", 200, T0 + 1000)];
    expect(statusOf(unknown, id, roles)).toMatchObject({
      status: "inconclusive",
      text: /roles there are not known/,
    });
    expect(statusOf(unknown, id)).toMatchObject({ status: "not-exercised", text: /--roles/ });
  });
  it("from a target file: otherTenant is off the lists it names, a tenant it does not name is unknown", () => {
    const target = {
      tenant: "acme",
      otherTenant: "globex",
      otherTenantLackedBy: ["viewer"],
      credentials: { viewer: { clientId: "viewer-1", clientSecret: "s" } },
    } as unknown as Target;
    const access = accessOfTarget(target);
    const onGlobex = [token("viewer-1", "tok-v1", T0), scan("globex", "tok-v1", 200, T0 + 1000)];
    expect(statusOf(onGlobex, id, access).status).toBe("failed");
    const onInitech = [token("viewer-1", "tok-v1", T0), scan("initech", "tok-v1", 200, T0 + 1000)];
    expect(statusOf(onInitech, id, access).status).toBe("inconclusive");
  });
});

describe("service/roles-kept", () => {
  const id = "service/roles-kept";
  const roles = declared("viewer-1=ROLE_RDM@acme", "editor-1=ROLE_RDM_EDIT@acme");
  it("catches a delete task granted to a client declared ROLE_RDM only; a refusal passes", () => {
    const faulty = [token("viewer-1", "tok-v1", T0), deleteTask("acme", "tok-v1", 202, T0 + 1000)];
    expect(statusOf(faulty, id, roles)).toMatchObject({ status: "failed", text: /only ROLE_RDM/ });
    const correct = [token("viewer-1", "tok-v1", T0), deleteTask("acme", "tok-v1", 403, T0 + 1000)];
    expect(statusOf(correct, id, roles).status).toBe("passed");
  });
  it("grants an editor its delete task without a finding", () => {
    const editor = [token("editor-1", "tok-e1", T0), deleteTask("acme", "tok-e1", 202, T0 + 1000)];
    expect(statusOf(editor, id, roles).status).toBe("not-exercised");
  });
  it("from refusals seen, with no roles declared: a token refused, then granted the same, is caught", () => {
    const faulty = [
      token("viewer-1", "tok-v1", T0),
      scan("globex", "tok-v1", 403, T0 + 1000),
      scan("globex", "tok-v1", 200, T0 + 2000),
    ];
    expect(statusOf(faulty, id)).toMatchObject({ status: "failed", text: /refused it \(403\)/ });
  });
  it("a configuration change between the refusal and the grant may have granted it: not judged", () => {
    const reconfigured = [
      token("viewer-1", "tok-v1", T0),
      scan("globex", "tok-v1", 403, T0 + 1000),
      customerWrite("cust-1", { tenants: ["acme", "globex"] }, "tok-admin", T0 + 1500),
      scan("globex", "tok-v1", 200, T0 + 2000),
    ];
    expect(statusOf(reconfigured, id).status).not.toBe("failed");
  });
  it("a refusal of an expired token teaches nothing of roles", () => {
    const expired = [
      token("viewer-1", "tok-v1", T0, 200, 1),
      scan("globex", "tok-v1", 403, T0 + 10_000),
      scan("globex", "tok-v1", 200, T0 + 20_000),
    ];
    expect(statusOf(expired, id).status).not.toBe("failed");
  });
  it("cannot decide a delete task of a client whose roles are not declared: inconclusive", () => {
    const unknown = [token("other-1", "tok-o1", T0), deleteTask("acme", "tok-o1", 202, T0 + 1000)];
    expect(statusOf(unknown, id, roles).status).toBe("inconclusive");
  });
});

/** A write of customer cust-q (client q1) with its quota. */
const quota = (max: number, at = T0) =>
  customerWrite(
    "cust-q",
    {
      id: "cust-q",
      applicationClients: ["q1"],
      multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: max } },
    },
    "tok-admin",
    at,
  );

describe("service/token-quota-kept", () => {
  const id = "service/token-quota-kept";
  it("catches a third token granted at a quota of 2 while both earlier ones are active; declined passes", () => {
    const faulty = [
      quota(2),
      token("q1", "tok-q1", T0 + 1000),
      token("q1", "tok-q2", T0 + 2000),
      token("q1", "tok-q3", T0 + 3000),
    ];
    expect(statusOf(faulty, id)).toMatchObject({
      status: "failed",
      text: /q1.*2 tokens.*maxActiveTokensAllowed 2/,
    });
    const correct = [...faulty.slice(0, 3), token("q1", "", T0 + 3000, 429)];
    expect(statusOf(correct, id).status).toBe("passed");
  });
  it("counts tokens issued before the quota was set, as they still count", () => {
    const early = [token("q1", "tok-q1", T0), token("q1", "tok-q2", T0 + 10), quota(2, T0 + 20)];
    expect(statusOf([...early, token("q1", "tok-q3", T0 + 3000)], id).status).toBe("failed");
  });
  it("an expired token frees its slot: a grant after it expired passes", () => {
    const freed = [
      quota(2),
      token("q1", "tok-q1", T0 + 1000, 200, 60),
      token("q1", "tok-q2", T0 + 2000),
      token("q1", "tok-q3", T0 + 120_000),
    ];
    expect(statusOf(freed, id).status).toBe("passed");
  });
  it("the same token returned again (multi-token support off) is no new one", () => {
    const same = [quota(1), token("q1", "tok-q1", T0 + 1000), token("q1", "tok-q1", T0 + 2000)];
    expect(statusOf(same, id).status).toBe("passed");
  });
  it("judges nothing where no quota showed; a client outside the customers that showed one is undecided", () => {
    const none = [token("q1", "tok-q1", T0), token("q1", "tok-q2", T0 + 10), token("q1", "tok-q3", T0 + 20)];
    expect(statusOf(none, id)).toMatchObject({ status: "not-exercised", text: /showed no quota/ });
    const unknown = [quota(2), token("q9", "tok-q1", T0 + 100), token("q9", "tok-q2", T0 + 110)];
    expect(statusOf(unknown, id)).toMatchObject({
      status: "inconclusive",
      text: /quota the traffic never showed/,
    });
  });
  it("a write without multitokenConfig leaves the quota unknown (PUT and POST semantics are not shown)", () => {
    const off = [
      quota(1),
      customerWrite("cust-q", { id: "cust-q", applicationClients: ["q1"] }, "tok-admin", T0 + 500, "POST"),
      token("q1", "tok-q1", T0 + 1000),
      token("q1", "tok-q2", T0 + 2000),
    ];
    // The only quota shown is withdrawn: nothing left to judge against, never a pass.
    expect(statusOf(off, id).status).toBe("not-exercised");
  });
});

describe("service/deleted-lookups-gone", () => {
  const id = "service/deleted-lookups-gone";
  const lookup = (type: string, code: string, updateDate = T0 - 86_400_000) => ({
    tenantId: "acme",
    type: `rdm/lookupTypes/${type}`,
    code,
    updateDate,
  });
  const task = () => deleteTask("acme", "tok-e1", 202, T0 + 1000, { type: "rdm/lookupTypes/Country" });
  it("catches a lookup of the deleted type returned after the task completed; its absence passes", () => {
    const created = task();
    const id0 = JSON.parse(created.responseBody).id as string;
    const done = taskRead("acme", id0, "tok-e1", "COMPLETED", T0 + 2000);
    const faulty = [created, done, scan("acme", "tok-e1", 200, T0 + 3000, [lookup("Country", "FR")])];
    expect(statusOf(faulty, id)).toMatchObject({ status: "failed", text: /Country\/FR/ });
    const correct = [created, done, scan("acme", "tok-e1", 200, T0 + 3000, [lookup("Gender", "M")])];
    expect(statusOf(correct, id).status).toBe("passed");
  });
  it("a lookup made again after the task (updateDate after it) is no finding", () => {
    const created = task();
    const id0 = JSON.parse(created.responseBody).id as string;
    const remade = [
      created,
      taskRead("acme", id0, "tok-e1", "COMPLETED", T0 + 2000),
      scan("acme", "tok-e1", 200, T0 + 3000, [lookup("Country", "FR", T0 + 2500)]),
    ];
    expect(statusOf(remade, id).status).toBe("passed");
  });
  it("listed URIs: only those are removed; another tenant's scan is not judged", () => {
    const created = deleteTask("acme", "tok-e1", 202, T0 + 1000, { uris: ["acme/Country/FR"] });
    const id0 = JSON.parse(created.responseBody).id as string;
    const done = taskRead("acme", id0, "tok-e1", "COMPLETED", T0 + 2000);
    const kept = [created, done, scan("acme", "tok-e1", 200, T0 + 3000, [lookup("Country", "DE")])];
    expect(statusOf(kept, id).status).toBe("passed");
    const other = [created, done, scan("globex", "tok-e1", 200, T0 + 3000, [lookup("Country", "FR")])];
    expect(statusOf(other, id).status).toBe("not-exercised");
    const left = [created, done, scan("acme", "tok-e1", 200, T0 + 3000, [lookup("Country", "FR")])];
    expect(statusOf(left, id).status).toBe("failed");
  });
  it("a scan before the traffic shows the task complete cannot decide: inconclusive", () => {
    const early = [task(), scan("acme", "tok-e1", 200, T0 + 1500, [lookup("Country", "FR")])];
    expect(statusOf(early, id)).toMatchObject({
      status: "inconclusive",
      text: /completion the traffic never showed/,
    });
  });
});

describe("--roles", () => {
  it("says what is wrong with a value it cannot read", () => {
    expect(parseRolesFlag("viewer-1")).toMatch(/CLIENT=ROLE/);
    expect(parseRolesFlag("viewer-1=ROLE_ADMIN")).toMatch(/not ROLE_ADMIN/);
    expect(parseRolesFlag("viewer-1=ROLE_RDM")).toMatch(/tenants on the client's list after @/);
    expect(parseRolesFlag("a=ROLE_RDM,ROLE_ADMIN_TENANT_x@acme")).toEqual({
      clientId: "a",
      roles: ["ROLE_RDM", "ROLE_ADMIN_TENANT_x"],
      tenants: ["acme"],
    });
  });
});

describe("service/active-tokens-within-quota", () => {
  const id = "service/active-tokens-within-quota";
  // Token answers without expires_in: the grant rule cannot count them active, the tokens accepted can.
  const unexpiring = (value: string, at: number) => {
    const t = token("q1", value, at);
    return { ...t, responseBody: JSON.stringify({ access_token: value, token_type: "Bearer" }) };
  };
  const granted = [
    quota(2),
    unexpiring("tok-q1", T0 + 1000),
    unexpiring("tok-q2", T0 + 2000),
    unexpiring("tok-q3", T0 + 3000),
  ];
  it("catches three tokens accepted after a grant at a quota of 2, where the grant rule cannot decide", () => {
    const faulty = [
      ...granted,
      scan("acme", "tok-q1", 200, T0 + 4000),
      scan("acme", "tok-q2", 200, T0 + 5000),
      scan("acme", "tok-q3", 200, T0 + 6000),
    ];
    expect(statusOf(faulty, "service/token-quota-kept").status).not.toBe("failed");
    expect(statusOf(faulty, id)).toMatchObject({
      status: "failed",
      text: /3 of its tokens were active at once.*maxActiveTokensAllowed 2/,
    });
  });
  it("accepts a grant at the limit after which an earlier token is refused (as far as the traffic shows)", () => {
    const correct = [
      ...granted,
      scan("acme", "tok-q1", 401, T0 + 4000),
      scan("acme", "tok-q2", 200, T0 + 5000),
      scan("acme", "tok-q3", 200, T0 + 6000),
    ];
    expect(statusOf(correct, id).status).toBe("passed");
  });
  it("is undecided, never passed, for a client whose quota the traffic never showed", () => {
    const other = [quota(2), token("q9", "tok-q9", T0 + 1000), scan("acme", "tok-q9", 200, T0 + 2000)];
    expect(statusOf(other, id).status).toBe("inconclusive");
    expect(statusOf([token("q1", "tok-q1", T0)], id).status).toBe("not-exercised");
  });
});

describe("service/token-granted-below-quota", () => {
  const id = "service/token-granted-below-quota";
  // A minute's tokens (expires_in 60), asked more than a token's life after the recording began.
  const after = T0 + 100_000;
  const refusal = (at: number) => token("q1", "", at, 429);
  it("catches a refusal for the limit one token below the quota", () => {
    const faulty = [quota(2), token("q1", "tok-q1", after, 200, 60), refusal(after + 1000)];
    expect(statusOf(faulty, id)).toMatchObject({
      status: "failed",
      text: /q1.*at most 1 of its tokens.*maxActiveTokensAllowed 2/,
    });
  });
  it("catches a refusal counting tokens that expired (an expired token no longer counts)", () => {
    const faulty = [
      quota(2),
      token("q1", "tok-q1", T0 + 1000, 200, 60),
      token("q1", "tok-q2", T0 + 2000, 200, 60),
      refusal(after + 60_000),
    ];
    expect(statusOf(faulty, id)).toMatchObject({ status: "failed", text: /at most 0 of its tokens/ });
  });
  it("passes a refusal at the quota, under another status, and one answered beside a concurrent grant", () => {
    const atLimit = [
      quota(2),
      token("q1", "tok-q1", after, 200, 60),
      token("q1", "tok-q2", after + 10, 200, 60),
      refusal(after + 1000),
    ];
    expect(statusOf(atLimit, id).status).toBe("passed");
    const as400 = [...atLimit.slice(0, 3), token("q1", "", after + 1000, 400)];
    expect(statusOf(as400, id).status).toBe("passed");
    // Three requests at once: the refusal recorded before the grant the service had answered first.
    const concurrent = [
      quota(2),
      token("q1", "tok-q1", after, 200, 60),
      refusal(after + 500),
      token("q1", "tok-q2", after + 500, 200, 60),
      scan("acme", "tok-q1", 200, after + 2000),
    ];
    expect(statusOf(concurrent, id).status).toBe("passed");
  });
  it("is undecided within a token's life of the recording's start, and for a quota never shown", () => {
    const early = [quota(2), token("q1", "tok-q1", T0 + 1000, 200, 60), refusal(T0 + 2000)];
    expect(statusOf(early, id).status).toBe("inconclusive");
    const unknown = [quota(2), token("q9", "tok-q9", after, 200, 60), token("q9", "", after + 1000, 429)];
    expect(statusOf(unknown, id).status).toBe("inconclusive");
    expect(statusOf([token("q1", "", after, 429)], id).status).toBe("not-exercised");
  });
});

describe("service/token-state-kept", () => {
  const id = "service/token-state-kept";
  // Multi-token support off: a PUT of the customer without multitokenConfig, answered without one.
  const off = (at = T0) => {
    const body = { id: "cust-q", applicationClients: ["q1"], multitokenConfig: null };
    const write = customerWrite("cust-q", body, "tok-admin", at);
    write.responseBody = JSON.stringify({ id: "cust-q", applicationClients: ["q1"] });
    return write;
  };
  it("catches a new token while the client's token is valid with multi-token support off; the same again passes", () => {
    const faulty = [off(), token("q1", "tok-q1", T0 + 1000), token("q1", "tok-q2", T0 + 2000)];
    expect(statusOf(faulty, id)).toMatchObject({
      status: "failed",
      text: /q1.*new token.*#\d+ was still valid/,
    });
    // The provider's choice: expires_in counts down from the issue (or is left as it was).
    const correct = [...faulty.slice(0, 2), token("q1", "tok-q1", T0 + 2000, 200, 3599)];
    expect(statusOf(correct, id).status).toBe("passed");
    // A new token once the earlier one was refused (revoked) is no finding.
    const revoked = [
      ...faulty.slice(0, 2),
      scan("acme", "tok-q1", 401, T0 + 1500),
      faulty[2] as ReadExchange,
    ];
    expect(statusOf(revoked, id).status).toBe("passed");
  });
  it("catches the same token again with multi-token support on (its quota written)", () => {
    const faulty = [quota(3), token("q1", "tok-q1", T0 + 1000), token("q1", "tok-q1", T0 + 2000)];
    expect(statusOf(faulty, id)).toMatchObject({ status: "failed", text: /multi-token support on/ });
    const correct = [quota(3), token("q1", "tok-q1", T0 + 1000), token("q1", "tok-q2", T0 + 2000)];
    expect(statusOf(correct, id).status).toBe("passed");
    // multitokenConfig without a quota value is on all the same (its default quota is not shown).
    const settings = {
      id: "cust-q",
      applicationClients: ["q1"],
      multitokenConfig: { clientCredentialsMultiTokenConfig: {} },
    };
    const unset = customerWrite("cust-q", settings, "tok-admin", T0);
    unset.responseBody = JSON.stringify(settings);
    expect(statusOf([unset, ...faulty.slice(1)], id).status).toBe("failed");
  });
  it("catches an expired token returned again, and one whose validity restarted", () => {
    const expired = [token("q1", "tok-q1", T0, 200, 60), token("q1", "tok-q1", T0 + 120_000, 200, 60)];
    expect(statusOf(expired, id)).toMatchObject({ status: "failed", text: /expired by then/ });
    const renewed = [token("q1", "tok-q1", T0, 200, 60), token("q1", "tok-q1", T0 + 30_000, 200, 60)];
    expect(statusOf(renewed, id)).toMatchObject({ status: "failed", text: /outlives its first answer/ });
    const counted = [token("q1", "tok-q1", T0, 200, 60), token("q1", "tok-q1", T0 + 30_000, 200, 30)];
    expect(statusOf(counted, id).status).toBe("passed");
  });
  it("does not judge a new token where the multi-token setting is not known", () => {
    const unknown = [token("q1", "tok-q1", T0 + 1000), token("q1", "tok-q2", T0 + 2000)];
    expect(statusOf(unknown, id).status).toBe("not-exercised");
  });
});

describe("service/token-validity-kept", () => {
  const id = "service/token-validity-kept";
  const clients = (list: unknown[], at = T0) =>
    x({
      method: "PUT",
      url: `${BASE}/oauth/customers/cust-q/clients`,
      headers: { ...bearer("tok-admin"), "content-type": "application/json" },
      body: JSON.stringify(list),
      at,
      responseBody: JSON.stringify(list),
    });
  it("catches a new token that ignores the validity written for its client", () => {
    const faulty = [clients([{ clientId: "q1", accessTokenValidity: 60 }]), token("q1", "tok-q1", T0 + 1000)];
    expect(statusOf(faulty, id)).toMatchObject({ status: "failed", text: /expires_in 3600.*written 60/ });
  });
  it("catches one client's validity showing on another's new token", () => {
    const faulty = [
      clients([
        { clientId: "q1", accessTokenValidity: 60 },
        { clientId: "q2", accessTokenValidity: 3600 },
      ]),
      token("q2", "tok-q2", T0 + 1000, 200, 60),
    ];
    expect(statusOf(faulty, id).status).toBe("failed");
  });
  it("passes the written validity, a second's rounding below it, and a token returned again", () => {
    const written = clients([{ clientId: "q1", accessTokenValidity: 60 }]);
    expect(statusOf([written, token("q1", "tok-q1", T0 + 1000, 200, 60)], id).status).toBe("passed");
    expect(statusOf([written, token("q1", "tok-q1", T0 + 1000, 200, 59)], id).status).toBe("passed");
    // Issued before the write: returned again with what is left of its life, never judged here.
    const before = [token("q1", "tok-q1", T0 - 1000), written, token("q1", "tok-q1", T0 + 1000, 200, 3598)];
    expect(statusOf(before, id).status).toBe("not-exercised");
  });
});

describe("service/refused-write-stores-nothing", () => {
  const id = "service/refused-write-stores-nothing";
  const write = (body: unknown, status: number, at: number) => {
    const sent = customerWrite("cust-r", body, "tok-admin", at, "POST");
    sent.status = status;
    sent.responseBody = status < 300 ? JSON.stringify({ id: "cust-r" }) : '{"error":"validation_error"}';
    return sent;
  };
  const multitoken = {
    multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: 2 } },
  };
  it("catches a write accepted before and refused after another write was refused for its content", () => {
    const faulty = [write({}, 200, T0), write(multitoken, 400, T0 + 1000), write({}, 400, T0 + 2000)];
    expect(statusOf(faulty, id)).toMatchObject({
      status: "failed",
      text: /refused write changed what is stored/,
    });
  });
  it("passes the same write accepted again, and a refusal under another status (422) followed by acceptance", () => {
    expect(
      statusOf([write({}, 200, T0), write(multitoken, 400, T0 + 1000), write({}, 200, T0 + 2000)], id).status,
    ).toBe("passed");
    expect(
      statusOf([write({}, 200, T0), write(multitoken, 422, T0 + 1000), write({}, 200, T0 + 2000)], id).status,
    ).toBe("passed");
  });
  it("does not judge across an accepted write, or a refusal for who asks", () => {
    const between = [
      write({}, 200, T0),
      write({ description: "x" }, 200, T0 + 500),
      write(multitoken, 400, T0 + 1000),
      write({}, 400, T0 + 2000),
    ];
    expect(statusOf(between, id).status).toBe("not-exercised");
    const forbidden = [write({}, 200, T0), write(multitoken, 403, T0 + 1000), write({}, 400, T0 + 2000)];
    expect(statusOf(forbidden, id).status).toBe("not-exercised");
  });
});
