// The contract's bound on a client's active tokens: maxActiveTokensAllowed is at most 200, a hard platform
// limit (the maximum of ClientCredentialsMultiTokenConfig.maxActiveTokensAllowed in the contract's
// schemas). Written once here, below the suites and the reference; test/contract/token-quota.test.ts pins
// it to the contract's own number, so neither can drift from it.

/** The highest maxActiveTokensAllowed the contract allows. */
export const MAX_ACTIVE_TOKENS_ALLOWED = 200;
