// The exploration model (requirements/exploration.yaml) holds to the catalogue and the checks: every MUST
// requirement a provider check traces has an entry, each dimension is explored by MUST checks tracing the
// requirement or says why not, and in a run each of those checks notes the dimension it claims.
import { beforeAll, describe, expect, it } from "vitest";
import { loadCatalogue } from "../../src/requirements/catalogue.ts";
import { explorationProblems, loadExploration } from "../../src/requirements/exploration.ts";
import { allChecks } from "../../suites/index.ts";
import { type EmbeddedRun, runEmbedded } from "../suites/embedded-run.ts";

const catalogue = loadCatalogue().requirements.filter((r) => !r.retired);
const levelOf = new Map(catalogue.map((r) => [r.id, r.level]));
const model = loadExploration();
const entries = new Map(model.requirements.map((e) => [e.id, e]));
const checks = new Map(allChecks.map((c) => [c.id, c]));

/** Every (requirement, dimension, check) the model claims, with whether it is claimed at deep only. */
const claims = model.requirements.flatMap((entry) =>
  entry.dimensions.flatMap((d) =>
    (d.checks ?? []).map((check) => ({
      id: entry.id,
      dimension: d.name,
      check,
      deepOnly: d.deepOnly === true,
    })),
  ),
);

describe("exploration model", () => {
  it("matches its schema and names each requirement and dimension once", () => {
    expect(explorationProblems(model)).toEqual([]);
    // A dimension with neither explorers nor a reason is refused, naming the requirement.
    const bare = {
      version: 1,
      requirements: [{ id: "SCAN-04", dimensions: [{ name: "sort", space: "any" }] }],
    };
    expect(explorationProblems(bare).join("\n")).toContain("(SCAN-04)");
    const twice = { version: 1, requirements: [entries.get("SCAN-04"), entries.get("SCAN-04")] };
    expect(explorationProblems(twice)).toContain("requirement SCAN-04 is listed twice");
  });

  it("covers every MUST requirement a provider check traces, and only MUST requirements", () => {
    const traced = new Set(allChecks.flatMap((c) => c.requirements));
    const missing = catalogue
      .filter((r) => r.level === "MUST" && traced.has(r.id) && !entries.has(r.id))
      .map((r) => r.id);
    expect(missing, "add these to requirements/exploration.yaml").toEqual([]);
    const notMust = model.requirements.filter((e) => levelOf.get(e.id) !== "MUST").map((e) => e.id);
    expect(notMust, "the model is for live MUST requirements of the catalogue").toEqual([]);
  });

  it("names as explorers only MUST checks that trace the requirement", () => {
    const wrong = claims
      .filter(({ id, check }) => {
        const c = checks.get(check);
        return c === undefined || c.level !== "MUST" || !c.requirements.includes(id);
      })
      .map(({ id, dimension, check }) => {
        const c = checks.get(check);
        return `${id} / ${dimension}: ${check} ${c === undefined ? "is no check of the kit" : c.level !== "MUST" ? `is ${c.level}` : "does not trace it"}`;
      });
    expect(wrong).toEqual([]);
  });

  it("fails a MUST requirement traced only by SHOULD checks unless the model says why no MUST check can", () => {
    const onlyWeaker = catalogue.filter((r) => {
      if (r.level !== "MUST") return false;
      const tracing = allChecks.filter((c) => c.requirements.includes(r.id));
      return tracing.length > 0 && !tracing.some((c) => c.level === "MUST");
    });
    const unexplained = onlyWeaker
      .filter((r) => {
        const dims = entries.get(r.id)?.dimensions ?? [];
        return (
          dims.length === 0 || dims.some((d) => d.notExplored === undefined || (d.checks ?? []).length > 0)
        );
      })
      .map((r) => r.id);
    expect(unexplained, "give these a MUST check, or say in the model why none can observe them").toEqual([]);
  });

  describe("in a run of the embedded reference, each claimed check notes its dimension", () => {
    let runs: Record<"default" | "deep", EmbeddedRun>;
    beforeAll(async () => {
      runs = {
        default: await runEmbedded({ runs: 3 }),
        deep: await runEmbedded({ runs: 3, depth: "deep" }),
      };
    }, 300_000);

    it("at the default depth (claims not marked deepOnly) and at deep (all claims)", () => {
      const unnoted = (["default", "deep"] as const).flatMap((depth) =>
        claims
          .filter((claim) => depth === "deep" || !claim.deepOnly)
          .filter(
            ({ dimension, check }) => (runs[depth].byId.get(check)?.explored?.[dimension] ?? []).length === 0,
          )
          .map(({ id, dimension, check }) => `${depth}: ${check} noted nothing of "${dimension}" (${id})`),
      );
      expect(unnoted).toEqual([]);
    });

    it("shows the reached values and the gaps in the run's coverage", () => {
      const scan = runs.default.result.coverage.requirements.find((r) => r.id === "SCAN-04");
      expect(Object.keys(scan?.explored ?? {})).toEqual(
        expect.arrayContaining(["scan", "sort field", "order"]),
      );
      expect(scan?.gaps?.map((g) => g.dimension)).toContain("filter");
      const blocked = runs.default.result.coverage.requirements.find((r) => r.id === "BLOCKED-06");
      expect(blocked?.gaps?.[0]?.why).toBe("unobservable");
    });
  });
});
