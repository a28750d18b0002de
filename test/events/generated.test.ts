// The generated event types are rebuilt from event-schemas/ and must equal what is committed.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generate } from "../../scripts/generators/event-types.ts";

const root = join(import.meta.dirname, "..", "..");

describe("generated event types", async () => {
  const files = await generate(root);

  it("cover the message and the streaming configuration", () => {
    expect(files.map((file) => file.path).sort()).toEqual([
      "src/generated/events/event-message.ts",
      "src/generated/events/streaming-config.ts",
    ]);
  });

  it.each(files.map((file) => [file.path, file] as const))("%s is not stale", (_path, file) => {
    expect(file.content.startsWith("// generated, do not edit")).toBe(true);
    const committed = readFileSync(join(root, file.path), "utf8");
    // A mismatch means event-schemas/ changed without `npm run generate`; run it and commit the output.
    expect(committed === file.content).toBe(true);
  });

  it("name every event type", () => {
    const message = files.find((file) => file.path.endsWith("event-message.ts"))?.content ?? "";
    for (const type of ["ENTITY_CREATED", "RELATIONSHIP_MERGED", "CHANGE_REQUEST_REMOVED", "GROUP_CHANGED"]) {
      expect(message).toMatch(new RegExp(`type\\??: "${type}"`));
    }
  });
});
