// The default worlds of the workbench make every scan the document defines page at its documented page size
// (100): lckit client check's (examples/sandbox-data.yaml grown at start) and the kit fixtures that lckit
// serve, startSandbox() and MSW serve without data. examples/sandbox-data.yaml stays the small file a team
// copies.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { clientCheck } from "../../src/commands/client/check.ts";
import {
  DEFAULT_CLIENT_DATA,
  defaultClientWorld,
  GENERATED,
  generatedShopRecords,
} from "../../src/commands/client/default-world.ts";
import { packagePath } from "../../src/package-root.ts";
import {
  createReference,
  manualClock,
  type Reference,
  referenceData,
  referenceOver,
} from "../../src/reference/index.ts";

interface Page {
  scrollId?: string | null;
  values: Record<string, unknown>[];
}

async function call(ref: Reference, method: string, path: string, token?: string, body?: string) {
  const response = await ref.fetch(
    new Request(`http://sandbox.test${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body ? { "content-type": "application/json" } : {}),
      },
      ...(body ? { body } : {}),
    }),
  );
  return { status: response.status, body: (await response.json()) as unknown };
}

async function tokenOf(ref: Reference, clientId: string, secret: string): Promise<string> {
  const response = await ref.fetch(
    new Request("http://sandbox.test/oauth/token", {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: "grant_type=client_credentials",
    }),
  );
  return ((await response.json()) as { access_token: string }).access_token;
}

/** Every page of a scan at limit 100: the first answer must carry a scrollId and a full page. */
async function pages(ref: Reference, token: string, path: string): Promise<Page[]> {
  const sep = path.includes("?") ? "&" : "?";
  const url = `${path}${sep}limit=100`;
  const out: Page[] = [];
  let body: string | undefined;
  for (let i = 0; i < 20; i++) {
    const page = (await call(ref, "POST", url, token, body)).body as Page;
    out.push(page);
    if (typeof page.scrollId !== "string") break;
    body = JSON.stringify({ scrollId: page.scrollId });
  }
  return out;
}

const WORLDS = [
  {
    name: "lckit client check's default world (the shop)",
    reference: () => referenceOver(defaultClientWorld(), { clock: manualClock() }),
    client: ["order-service", "order-service-secret"],
    tenant: "shop",
    type: GENERATED.mainType,
  },
  {
    name: "the kit fixtures (lckit serve, startSandbox(), MSW without data)",
    reference: () => createReference({ clock: manualClock() }),
    client: ["acme-viewer", "acme-viewer-secret"],
    tenant: "acme",
    type: "Country",
  },
] as const;

describe.each(WORLDS)("$name", ({ reference, client, tenant, type }) => {
  it("pages every scan at its documented page size of 100", async () => {
    const ref = reference();
    const token = await tokenOf(ref, client[0], client[1]);
    const scans = {
      lookups: `/lookups/${tenant}/_scan`,
      "lookups of one type": `/lookups/${tenant}/_scan?filter=${encodeURIComponent(`equals(type,'${type}')`)}`,
      "statistics of every type": `/configuration/${tenant}/autopilot/stats/_scan`,
      "statistics of one type": `/configuration/${tenant}/autopilot/stats/${type}/_scan`,
    };
    for (const [scan, path] of Object.entries(scans)) {
      const read = await pages(ref, token, path);
      expect({ scan, first: read[0]?.values.length, pages: read.length > 1 }).toEqual({
        scan,
        first: 100,
        pages: true,
      });
    }
    const lookups = (await pages(ref, token, scans.lookups)).flatMap((p) => p.values);
    expect(new Set(lookups.map((l) => l.type)).size).toBeGreaterThan(1);
    // Blocked values of one type: a full page at limit 100 and more at offset 100.
    const blocked = `/configuration/${tenant}/autopilot/${type}/blockedValues`;
    const first = (await call(ref, "GET", `${blocked}?limit=100`, token)).body as unknown[];
    const second = (await call(ref, "GET", `${blocked}?limit=100&offset=100`, token)).body as unknown[];
    expect([first.length, second.length > 0]).toEqual([100, true]);
  });
});

describe("lckit client check's default world", () => {
  it("generates valid records (the fixture schemas), the same on every call", () => {
    const records = generatedShopRecords();
    expect(records).toEqual(generatedShopRecords());
    const file = parse(readFileSync(DEFAULT_CLIENT_DATA, "utf8"));
    // Validated as a team's data document is: schemas and references.
    const world = referenceData({ ...file, ...records });
    expect(world.lookups.length).toBe(GENERATED.lookups.main + GENERATED.lookups.second);
  });

  it("holds what docs/consumers.md says it holds", () => {
    const world = defaultClientWorld();
    const count = <T>(list: readonly T[], keep: (item: T) => boolean) => list.filter(keep).length;
    expect({
      lookups: world.lookups.length,
      shippingCountry: count(world.lookups, (l) => l.type === "rdm/lookupTypes/ShippingCountry"),
      paymentMethod: count(world.lookups, (l) => l.type === "rdm/lookupTypes/PaymentMethod"),
      statistics: world.statistics.length,
      statisticsOfShippingCountry: count(world.statistics, (s) => s.lookupType === "ShippingCountry"),
      blockedValues: world.blockedValues.length,
    }).toEqual({
      lookups: 142,
      shippingCountry: 130,
      paymentMethod: 12,
      statistics: 130,
      statisticsOfShippingCountry: 120,
      blockedValues: 120,
    });
    const docs = readFileSync(packagePath("docs", "consumers.md"), "utf8").replace(/\s+/g, " ");
    expect(docs).toContain(
      "142 lookups in tenant `shop` (130 `ShippingCountry`, 12 `PaymentMethod`), 130 autopilot statistics (120 of `ShippingCountry`) and 120 blocked values of `ShippingCountry`",
    );
  });

  it("keeps examples/sandbox-data.yaml the small file a team copies", () => {
    const file = parse(readFileSync(packagePath("examples", "sandbox-data.yaml"), "utf8"));
    expect(file.lookups.length).toBeLessThan(10);
    expect(defaultClientWorld().lookups.length).toBeGreaterThan(100 + file.lookups.length);
  });

  it("hands the command the type of the data's first lookup, whose scans page", async () => {
    const seen: string[] = [];
    const r = await clientCheck({
      argv: [process.execPath, "-e", "console.log(process.env.LCKIT_LOOKUP_TYPE)"],
      output: (chunk) => seen.push(chunk),
    });
    expect(seen.join("").trim()).toBe(GENERATED.mainType);
    // The command made no request: the check says so (exit 2), whatever the world.
    expect(r.exitCode).toBe(2);
  });
});
