// The quota's upper bound is written once (src/contract/token-quota.ts): it must be the maximum the
// contract's schema gives maxActiveTokensAllowed (the suites' quota checks read that one number).
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isObject, openapiDir, RefResolver } from "../../src/contract/index.ts";
import { MAX_ACTIVE_TOKENS_ALLOWED } from "../../src/contract/token-quota.ts";

const schemas = new RefResolver().resolveDocument(join(openapiDir, "components", "schemas.yaml"));

describe("the token quota's upper bound", () => {
  it("is the maximum the contract gives maxActiveTokensAllowed", () => {
    const config = schemas.ClientCredentialsMultiTokenConfig;
    const properties = isObject(config) && isObject(config.properties) ? config.properties : {};
    const quota = isObject(properties.maxActiveTokensAllowed) ? properties.maxActiveTokensAllowed : {};
    expect(quota.maximum).toBe(MAX_ACTIVE_TOKENS_ALLOWED);
  });
});
