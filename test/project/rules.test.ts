// One shape for every rule: whatever its kind, a rule has a unique id of its kind's form, a title that
// starts with its level, requirements the catalogue holds, and a level that agrees with the catalogue's
// levels of those requirements (the weakest of them: a rule fails on what its weakest requirement asks).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ruleKinds } from "../../scripts/rules.ts";
import { defineRule, RULE_KINDS, weakestLevel } from "../../src/check/index.ts";
import { deliveryTolerance, rule } from "../../src/events/document/requirements.ts";
import { bySchema, eventRule } from "../../src/events/rules/event-rule.ts";
import { EVENT_RULES } from "../../src/events/rules/index.ts";
import { loadCatalogue } from "../../src/requirements/catalogue.ts";

const catalogue = new Map(
  loadCatalogue()
    .requirements.filter((entry) => !entry.retired)
    .map((entry) => [entry.id, entry]),
);
const every = ruleKinds().flatMap(({ kind, rules }) => rules.map((r) => [`${kind} ${r.id}`, r] as const));

describe("every rule of every kind", () => {
  it("covers the kinds that have rules today", () => {
    expect(ruleKinds().map(({ kind }) => kind)).toEqual(["http", "event", "caller", "consumer"]);
  });

  it("has ids unique across kinds", () => {
    const ids = every.map(([, r]) => r.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it.each(every)("%s: names requirements of the catalogue, at the level its title starts with", (_, r) => {
    expect(r.requirements.length).toBeGreaterThan(0);
    expect(r.requirements.filter((id) => !catalogue.has(id))).toEqual([]);
    expect(r.title.startsWith(`${r.level} `)).toBe(true);
    const levels = r.requirements.flatMap((id) => catalogue.get(id)?.level ?? []);
    expect(r.level).toBe(weakestLevel(levels));
  });
});

describe("defineRule", () => {
  const judge = () => undefined;

  it("reads the level from the title and keeps the declaration", () => {
    const declared = defineRule("consumer", {
      id: "consumer/latest-by-object-version",
      title: "MUST keep the latest state by objectVersion",
      requirements: ["EVENT-DELIVERY-02"],
      judge,
    });
    expect(declared.level).toBe("MUST");
    expect(declared.kind).toBe("consumer");
    expect(declared.judge).toBe(judge);
  });

  it.each([
    ["caller", "events/x", "MUST x", ["CALLER-AUTH-01"], 'caller rule id "events/x" must be "client/<slug>"'],
    ["http", "no-slash", "MUST x", ["AUTH-01"], 'http rule id "no-slash" must be "<suite>/<slug>"'],
    ["http", "a/b/c", "MUST x", ["AUTH-01"], 'http rule id "a/b/c" must be "<suite>/<slug>"'],
    ["consumer", "consumer/x", "Must x", ["AUTH-01"], "title must start with MUST, SHOULD, MAY"],
    ["event", "events/x", "MAY x", [], "events/x names no requirement"],
  ] as const)("refuses a %s rule %s (%s), saying what to write", (kind, id, title, requirements, message) => {
    expect(() => defineRule(kind, { id, title, requirements: [...requirements] })).toThrow(message);
  });

  it("knows a command for every kind", () => {
    for (const { command } of Object.values(RULE_KINDS)) expect(command).toMatch(/^lckit /);
  });
});

describe("event rules", () => {
  const schemaIds = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".json") || entry.name.endsWith(".yaml"))
        for (const match of readFileSync(path, "utf8").matchAll(/EVENT-[A-Z]+-\d+/g)) schemaIds.add(match[0]);
    }
  };
  walk(join(import.meta.dirname, "..", "..", "event-schemas"));

  it("have one rule per requirement their findings carry, and every named requirement id is a rule's", () => {
    const first = EVENT_RULES.map((r) => r.requirements[0] as string);
    expect(first.filter((id, i) => first.indexOf(id) !== i)).toEqual([]);
    expect([...Object.values(rule), deliveryTolerance].filter((id) => !first.includes(id))).toEqual([]);
  });

  it("take their id and title from their first requirement: its id (the key event reports have always had), its level and wording", () => {
    const declared = eventRule({ requirements: ["EVENT-HEADERS-01", "EVENT-HEADERS-02"], judge: bySchema });
    expect(declared.id).toBe("events/event-headers-01");
    expect(declared.title).toBe(`MUST ${catalogue.get("EVENT-HEADERS-01")?.text}`);
    expect(declared.level).toBe("MUST");
    // Declaring reads no catalogue (a CLI start loads every rule); the first look at its title does.
    const unknown = eventRule({ requirements: ["EVENT-NOWHERE-01"], judge: bySchema });
    expect(unknown.id).toBe("events/event-nowhere-01");
    expect(() => unknown.title).toThrow(
      "event rule of EVENT-NOWHERE-01: its first requirement must be a live entry of requirements/catalogue.yaml",
    );
    expect(() => unknown.level).toThrow("EVENT-NOWHERE-01");
  });

  it.each(EVENT_RULES.filter((r) => r.judge === bySchema).map((r) => [r.id, r] as const))(
    "%s, found by the schemas, is named by an x-requirements of event-schemas/",
    (_, r) => {
      expect(schemaIds.has(r.requirements[0] as string)).toBe(true);
    },
  );
});
