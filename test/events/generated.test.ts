// The generated event type (the streaming configuration) is rebuilt from event-schemas/ and must equal
// what is committed. Event messages have no generated types (scripts/generators/event-types.ts says why).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generate } from "../../scripts/generators/event-types.ts";

const root = join(import.meta.dirname, "..", "..");

describe("generated event types", async () => {
  const files = await generate(root);

  it("cover the streaming configuration only", () => {
    expect(files.map((file) => file.path)).toEqual(["src/generated/events/streaming-config.ts"]);
  });

  it.each(files.map((file) => [file.path, file] as const))("%s is not stale", (_path, file) => {
    expect(file.content.startsWith("// generated, do not edit")).toBe(true);
    const committed = readFileSync(join(root, file.path), "utf8");
    // A mismatch means event-schemas/ changed without `npm run generate`; run it and commit the output.
    expect(committed === file.content).toBe(true);
  });

  it("name the properties of the streaming configuration", () => {
    const config = files[0]?.content ?? "";
    for (const property of ["JMSEventsFilteringFields", "RelationEventsFilteringFields", "payloadType"]) {
      expect(config).toMatch(new RegExp(`${property}\\?: `));
    }
  });
});
