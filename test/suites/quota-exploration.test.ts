// The quota checks reach every slice of their rules on the embedded reference (driven clock): each way a
// customer is written, every transition of the access-token state table, the instants around an expiry,
// and a declined request seen to take no slot. A check that stopped reaching one would pass on the slice it
// still covers: this holds the exploration to the whole table.
import "../support/background.ts";
import { describe, expect, it } from "vitest";
import { allChecks } from "../../suites/index.ts";
import { runEmbedded } from "./embedded-run.ts";

const TRANSITIONS = [
  "off: same token",
  "on: new token below limit",
  "on: refused at limit",
  "expiry frees a slot",
  "on → off",
  "off → on",
  "quota raised",
  "quota lowered",
  // Issue 43: off once every token expired, and an empty multitokenConfig (the reference accepts it).
  "off: every token expired",
  "empty multitokenConfig accepted",
];

describe("what the quota checks explore", () => {
  it("reaches every method, transition, instant and the declined request's count", async () => {
    const ids = [
      "token-quota/model",
      "token-quota/max-above-200-refused",
      "token-quota/multitoken-config-activates",
      "token-quota/raised-quota-applies",
      "token-quota/validity-from-client-configuration",
    ];
    const { byId } = await runEmbedded({
      checks: allChecks.filter((check) => ids.includes(check.id)),
      runs: 3,
    });
    for (const id of ids) expect(byId.get(id)?.status, id).toBe("passed");
    const explored = (id: string, dimension: string) => byId.get(id)?.explored?.[dimension] ?? [];

    const model = (dimension: string) => explored("token-quota/model", dimension);
    expect([...model("transition")].sort()).toEqual([...TRANSITIONS].sort());
    expect([...model("instant")].sort()).toEqual(["after expiry", "at re-issue", "before expiry"]);
    expect(model("refused request")).toEqual(["not counted"]);
    expect([...model("method")].sort()).toEqual(["POST customer", "PUT customer"]);

    const ceiling = (dimension: string) => explored("token-quota/max-above-200-refused", dimension);
    expect([...ceiling("method")].sort()).toEqual(["POST customer", "PUT customer"]);
    expect(ceiling("quota value")).toEqual(expect.arrayContaining(["200", "201"]));

    for (const id of ["token-quota/multitoken-config-activates", "token-quota/raised-quota-applies"])
      expect([...explored(id, "method")].sort(), id).toEqual(["POST customer", "PUT customer"]);
    expect(explored("token-quota/validity-from-client-configuration", "method")).toContain("PUT clients");
    expect([...explored("token-quota/validity-from-client-configuration", "instant")].sort()).toEqual([
      "after expiry",
      "before expiry",
    ]);
  });
});
