// `lckit --help` loads every command, so nothing a command imports may read the requirement catalogue
// on import: parsing and validating it would slow every start of the CLI. Event rules take their titles
// from it, on first use (src/events/rules/event-rule.ts).
import { describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.ts";
import { EVENT_RULES } from "../../src/events/rules/index.ts";
import { captureIo } from "./capture-io.ts";

const reads = vi.hoisted(() => ({ catalogue: 0 }));

vi.mock("../../src/requirements/catalogue.ts", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../src/requirements/catalogue.ts")>();
  return {
    ...actual,
    loadCatalogue: () => {
      reads.catalogue += 1;
      return actual.loadCatalogue();
    },
  };
});

describe("a start of the CLI", () => {
  it("reads no requirement catalogue to print the commands (lckit --help), until a rule's title is asked for", async () => {
    const io = captureIo();
    expect(await main(["--help"], io)).toBe(0);
    expect(io.stdout()).toMatch(/Commands:/);
    expect(reads.catalogue).toBe(0);
    expect(EVENT_RULES[0].title).toMatch(/^MUST /);
    expect(reads.catalogue).toBeGreaterThan(0);
  });
});
