// Coverage that tells the truth: every catalogue requirement is traced by a check or rule of some command
// of the kit, or marked not checkable with the reason; and the table reports read to say "checked by
// another command" (src/generated/traceability.ts) is what the commands' checks and rules trace today.
import { describe, expect, it } from "vitest";
import { commandTraces as liveTraces } from "../../scripts/generators/traceability.ts";
import { commandTraces } from "../../src/generated/traceability.ts";
import { type Catalogue, loadCatalogue } from "../../src/requirements/catalogue.ts";
import { traceabilityProblems } from "../../src/requirements/traceability.ts";

const catalogue = loadCatalogue();
const live = liveTraces();

describe("traceability of the catalogue", () => {
  it("every requirement is traced by a check or rule, or marked not checkable with the reason", () => {
    expect(traceabilityProblems(catalogue, live)).toEqual([]);
    expect(catalogue.requirements.filter((entry) => entry.notCheckable !== undefined).length).toBeLessThan(
      10,
    );
  });

  it("the generated table is what the commands trace (else run npm run generate)", () => {
    expect(commandTraces).toEqual(live);
  });

  it("the event rules of the document are all traced by lckit events check", () => {
    const events = live.find((trace) => trace.command === "lckit events check")?.requirements ?? [];
    for (const id of [
      "EVENT-TYPES-04",
      "EVENT-STREAM-02",
      "EVENT-FILTER-05",
      "EVENT-FILTER-06",
      "EVENT-TYPES-05",
      "EVENT-DELIVERY-02",
    ])
      expect(events).toContain(id);
  });

  const planted = (change: (entries: Catalogue["requirements"]) => Catalogue["requirements"]): Catalogue => ({
    ...catalogue,
    requirements: change(catalogue.requirements.map((entry) => ({ ...entry }))),
  });

  it.each([
    [
      "an entry no command traces",
      planted((entries) => [
        ...entries,
        { ...(entries[0] as Catalogue["requirements"][0]), id: "PLANTED-01" },
      ]),
      /PLANTED-01 \(MUST\) is traced by no check or rule/,
    ],
    [
      "an entry marked not checkable that a command traces",
      planted((entries) =>
        entries.map((entry) =>
          entry.id === "EVENT-TYPES-04" ? { ...entry, notCheckable: "planted reason, long enough" } : entry,
        ),
      ),
      /EVENT-TYPES-04 is marked notCheckable but lckit events check traces it/,
    ],
    [
      "a traced id the catalogue lacks",
      planted((entries) => entries.filter((entry) => entry.id !== "SCAN-03")),
      /traces SCAN-03, which requirements\/catalogue.yaml lacks/,
    ],
  ])("catches %s", (_name, changed, want) => {
    expect(traceabilityProblems(changed, live).join("\n")).toMatch(want);
  });
});
