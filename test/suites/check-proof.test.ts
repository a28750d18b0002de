// The project standard: a check is proven by a target that breaks it. Every check of the kit is caught by
// at least one seeded fault of the reference (the caughtBy list of its definition; faults.test.ts runs each
// fault and holds it to that list).
import { describe, expect, it } from "vitest";
import { FAULTS } from "../../src/reference/faults.ts";
import { allChecks } from "../../suites/index.ts";

const catchers = new Map<string, string[]>();
for (const fault of FAULTS) {
  for (const id of fault.caughtBy) catchers.set(id, [...(catchers.get(id) ?? []), fault.name]);
}

describe("every check is proven by a fault", () => {
  it("no check is left without a fault that it catches", () => {
    const unproven = allChecks.filter((check) => !catchers.has(check.id)).map((c) => `${c.level} ${c.id}`);
    expect(unproven).toEqual([]);
  });

  it.each(allChecks.map((check) => [check.id] as const))("%s is caught by a seeded fault", (id) => {
    expect(catchers.get(id) ?? [], `no fault in src/reference/faults.ts lists ${id} in caughtBy`).not.toEqual(
      [],
    );
  });
});
