// The role a replayed request speaks for comes from the contract's x-kit-roles: the least privileged
// credential role the operation grants. The expectations are the kit's role assumptions (docs/assumptions.md,
// "Roles"), written out so that a change of the contract's roles shows up here.
import { describe, expect, it } from "vitest";
import { loadContract } from "../../src/contract/index.ts";
import { operationOf, rolesFor } from "../../src/pact/token-injection.ts";

describe("credential roles of a replayed request", () => {
  it.each([
    ["putCustomer", ["admin"]],
    ["postCustomer", ["admin"]],
    ["putClients", ["admin"]],
    ["createTask", ["editor", "admin"]],
    ["getTask", ["editor", "admin"]],
    ["scanLookups", ["viewer", "editor", "admin"]],
    ["scanAutopilotStats", ["viewer", "editor", "admin"]],
    ["listBlockedValues", ["viewer", "editor", "admin"]],
    ["getHealthcheck", ["viewer", "editor", "admin"]],
  ])("%s may be replayed as %j", (operationId, roles) => {
    expect(rolesFor(operationId)).toEqual(roles);
  });

  it("maps every role the contract names, for every operation", () => {
    for (const operation of loadContract().operations)
      expect(() => rolesFor(operation.operationId), operation.operationId).not.toThrow();
  });

  it("lets a request no operation matches try every role, least privileged first", () => {
    expect(operationOf("GET", "/nothing/here")).toBeUndefined();
    expect(rolesFor(undefined)).toEqual(["viewer", "editor", "admin"]);
  });

  it("finds the operation of a concrete request on either host", () => {
    expect(operationOf("POST", "/tasks/acme")).toBe("createTask");
    expect(operationOf("PUT", "/oauth/customers/cust-acme/clients")).toBe("putClients");
  });
});
