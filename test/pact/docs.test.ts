// docs/pact.md lists every provider state and message description the verifier knows, so consumer teams
// can name them without reading the source.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eventMessages } from "../../src/pact/event-messages.ts";
import { providerStates } from "../../src/pact/provider-states.ts";
import { repositoryRoot } from "./consumer-pact.ts";

const doc = readFileSync(join(repositoryRoot, "docs", "pact.md"), "utf8");

describe("docs/pact.md", () => {
  it.each(providerStates.map((spec) => [spec.name, spec.provides] as const))(
    "documents the state %s with the values it provides",
    (name, provides) => {
      const row = doc.split("\n").find((line) => line.startsWith(`| ${name} |`));
      expect(row).toBeDefined();
      for (const value of provides) expect(row).toContain(`\`${value}\``);
    },
  );

  it.each(eventMessages.map((spec) => [spec.description, spec.type, spec.state] as const))(
    "documents the message %s",
    (description, type, state) => {
      expect(doc).toContain(`| ${description} | ${type} | ${state} |`);
    },
  );
});
