// One shape for every rule of the kit, whatever it judges: an HTTP check (lckit run), a caller rule (lckit
// client check), an event rule (lckit events check) and a consumer rule (the event consumer check). A rule
// is an id, a title that starts with its level, the requirement ids it traces to, and a judge; each kind
// gives its judge its own input (a check context, a client's traffic, a message, a consumer's view).
import { LEVELS, type RequirementLevel } from "../requirements/levels.ts";

/** The kinds of rule, with the id every rule of the kind starts with and the command that judges it (the
 *  traceability table lists the commands in this order). */
export const RULE_KINDS = {
  http: { idPrefix: "<suite>/", command: "lckit run" },
  event: { idPrefix: "events/", command: "lckit events check" },
  caller: { idPrefix: "client/", command: "lckit client check" },
  consumer: { idPrefix: "consumer/", command: "lckit events consumer check" },
} as const;

export type RuleKind = keyof typeof RULE_KINDS;

/** What every rule declares, whatever its kind. */
export interface RuleDeclaration {
  /** Stable, opaque id (reports and allow-lists key on it): `<kind's prefix><slug>`. */
  id: string;
  /** Starts with the level: "MUST return ...". The level is read from here, and only from here. */
  title: string;
  /** Requirement-catalogue ids the rule proves; the first is the one its findings are reported under. */
  requirements: string[];
}

/** A declared rule: its declaration, its kind and the level its title starts with. */
export type Rule<K extends RuleKind, D extends RuleDeclaration> = D & { kind: K; level: RequirementLevel };

/** The level a title starts with, or undefined. */
export function levelOfTitle(title: string): RequirementLevel | undefined {
  const word = title.split(" ")[0];
  return LEVELS.find((level) => level === word);
}

/** The level of a rule tracing `levels` of requirements: the weakest of them, since the rule fails on
 *  what its weakest requirement asks (a check that also judges a SHOULD is a SHOULD check). */
export function weakestLevel(levels: readonly RequirementLevel[]): RequirementLevel | undefined {
  let weakest: RequirementLevel | undefined;
  for (const level of levels)
    if (weakest === undefined || LEVELS.indexOf(level) > LEVELS.indexOf(weakest)) weakest = level;
  return weakest;
}

const SLUG = /^[a-zA-Z0-9-]+$/;

/**
 * Declares a rule of a kind: checks its id against the kind's prefix, reads the level from its title and
 * insists on at least one requirement, with an error that names the rule and what to write instead.
 * (test/project/rules.test.ts holds every rule's level to the catalogue's levels of its requirements.)
 */
export function defineRule<K extends RuleKind, D extends RuleDeclaration>(
  kind: K,
  declaration: D,
): Rule<K, D> {
  const { id, title, requirements } = declaration;
  const parts = id.split("/");
  const prefix = RULE_KINDS[kind].idPrefix;
  const prefixOk = kind === "http" ? parts.length === 2 && parts[0] !== "" : id.startsWith(prefix);
  if (!prefixOk || parts.length !== 2 || !SLUG.test(parts[1] ?? ""))
    throw new Error(`${kind} rule id "${id}" must be "${prefix}<slug>" (letters, digits and dashes)`);
  const level = levelOfTitle(title);
  if (level === undefined)
    throw new Error(`${kind} rule ${id}: title must start with ${LEVELS.join(", ")}, got "${title}"`);
  if (requirements.length === 0)
    throw new Error(`${kind} rule ${id} names no requirement; name the catalogue ids it proves`);
  return { ...declaration, kind, level };
}
