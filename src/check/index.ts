// The kernel a check is written against, one file per concept: the check model (check.ts), what it may
// change (safety.ts), the target it sees (target.ts), the transport's data (exchange.ts), the journal of
// configuration changes (journal.ts), how a check ends other than by passing (outcome.ts), and the one
// shape every rule of the kit is declared in, whatever it judges (rule.ts).

export { LEVELS } from "../requirements/levels.ts";
export type { Check, CheckContext, Clock, Level, Logger } from "./check.ts";
export type { Exchange, RetryCause, TransportRetry } from "./exchange.ts";
export {
  DEFAULT_DEPTH_RUNS,
  DEPTHS,
  type Depth,
  depthOf,
  drawnAtDepth,
  ExplorationLog,
  type Explored,
  explore,
  mergeExplored,
  runsAtDepth,
} from "./exploration.ts";
export type { ConfigChange, ConfigJournal } from "./journal.ts";
export {
  CheckFailure,
  CheckInconclusive,
  CheckSkipped,
  type Counterexample,
  type FailureDetail,
  fail,
  failureDetail,
  inconclusive,
  requestOf,
  skip,
  type Undecided,
} from "./outcome.ts";
export {
  defineRule,
  levelOfTitle,
  RULE_KINDS,
  type Rule,
  type RuleDeclaration,
  type RuleKind,
  weakestLevel,
} from "./rule.ts";
export { defineFact, type Fact, type RunFacts } from "./run-facts.ts";
export { type HarmlessCall, MAY_CALL, SAFETY_CLASSES, type Safety } from "./safety.ts";
export {
  CREDENTIAL_ROLES,
  type Credential,
  type CredentialRole,
  type Profile,
  type Target,
} from "./target.ts";
