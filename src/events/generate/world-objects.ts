// The world a generated stream is about: the objects it tracks (entities, relations, interactions,
// change requests) and the sample values their attributes are drawn from; a message before ordering.

export const entityTypes = ["HCP", "HCO", "Individual", "Organization"] as const;
export const relationTypes = [
  { name: "HasAddress", reference: true },
  { name: "Employment", reference: false },
  { name: "Affiliation", reference: true },
] as const;
export const firstNames = [
  "Ada",
  "Grace",
  "Alan",
  "Edsger",
  "Barbara",
  "Ken",
  "Radia",
  "Tim",
  "Frances",
  "Donald",
];
export const lastNames = [
  "Lovelace",
  "Hopper",
  "Turing",
  "Dijkstra",
  "Liskov",
  "Thompson",
  "Perlman",
  "Lee",
  "Allen",
];
export const countries = [
  { raw: "Germany", code: "DE" },
  { raw: "France", code: "FR" },
  { raw: "United States", code: "US" },
  { raw: "Japan", code: "JP" },
  { raw: "Brasil", code: "BR" },
];
export const sources = [
  "configuration/sources/Reltio",
  "configuration/sources/CRM",
  "configuration/sources/ERP",
];
export const users = ["svc-integration", "jane.doe@example.com", "etl-loader"];

export interface AttributeValue {
  type: string;
  ov: boolean;
  value: string;
  uri: string;
  lookupCode?: string;
  lookupRawValue?: string;
  lookupError?: string;
}

export interface Entity {
  uri: string;
  type: string;
  version: number;
  state: "active" | "merged" | "gdpr" | "removed";
  attributes: Record<string, AttributeValue[]>;
  crosswalks: Record<string, unknown>[];
  createdTime: number;
  updatedTime: number;
  createdBy: string;
  mergedInto?: string;
  recreated?: boolean;
  /** Levels of a deeply nested Address attribute its snapshots carry (legal variety), if any. */
  nesting?: number;
  /** Reference attribute values by attribute name: each names the relation behind it (refRelation). */
  references?: Record<string, Record<string, unknown>[]>;
}

export interface Relation {
  uri: string;
  type: string;
  reference: boolean;
  start: Entity;
  end: Entity;
  version: number;
  active: boolean;
  createdTime: number;
  updatedTime: number;
  /** The object its last message carried: what its RELATION_LOST_MERGE repeats (see relationMerges). */
  last?: Record<string, unknown>;
}

export interface Versioned {
  uri: string;
  version: number;
  active: boolean;
  createdTime: number;
  updatedTime: number;
}

/** One message before ordering: what it is about and whether it was injected invalid. */
export interface Draft {
  headers: Record<string, unknown>;
  body: string;
  /** The object `body` serializes, where the builder made one: what an in-process reader would parse. */
  payload?: Record<string, unknown>;
  type: string;
  invalid?: { rule: string; description: string };
  /** Keeps its place relative to the message before it (pairs that only break a rule in that order). */
  pinned?: boolean;
  duplicate?: boolean;
}
