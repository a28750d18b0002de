// Public entry of the kit's Pact part: provider states and event messages consumers name, provider
// verification, and the check of pact files against the contract.
export {
  type ContractCheckResult,
  checkPact,
  checkPactFiles,
  formatViolation,
  type PactFileCheck,
  type PactViolation,
} from "./contract-check.ts";
export {
  EVENT,
  type EventDescription,
  type EventMessageSpec,
  eventMessages,
  generateEvent,
} from "./event-messages.ts";
export {
  findPactFiles,
  type PactFile,
  PactFileError,
  type PactInteraction,
  parsePact,
  readPactFile,
} from "./pact-file.ts";
export { CONSUMERS, DEFAULT_PACT_DIR, PROVIDER_NAME, pactFileName } from "./provider.ts";
export type { VerificationProblem } from "./provider-session.ts";
export {
  OPEN_SCROLL_QUERY,
  PROBE_CODE,
  type ProviderStateSpec,
  providerState,
  providerStates,
  STATE,
  type StateName,
} from "./provider-states.ts";
export {
  formatReport,
  type InteractionOutcome,
  type PactVerificationReport,
} from "./verification-result.ts";
export { PactConfigError, type VerifyOptions, verifyPacts } from "./verify.ts";
