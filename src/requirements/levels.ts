// The levels of the interface document's requirement words, strongest first. A check's level is the level
// of the requirement it proves (a MUST check rests on a MUST requirement), so the catalogue, the checks,
// the verdict and every renderer read this one list; its order is the order reports show.
export const LEVELS = ["MUST", "SHOULD", "MAY"] as const;

export type RequirementLevel = (typeof LEVELS)[number];
