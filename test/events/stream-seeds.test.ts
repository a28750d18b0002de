// Recorded seeds must keep giving the same streams: users replay a failing stream by its seed, and the
// generator's code may be moved or split without changing one byte of its output. Each hash covers every
// message (headers and body, in sending order) and the manifest. A change here is a change of the
// generator's output: only make one on purpose, and say so.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateStream, type StreamOptions } from "../../src/events/generate/index.ts";

function streamHash(options: StreamOptions): string {
  const { messages, manifest } = generateStream(options);
  const hash = createHash("sha256");
  for (const message of messages) hash.update(`${JSON.stringify(message.headers)}\n${message.body}\n`);
  hash.update(JSON.stringify(manifest));
  return hash.digest("hex").slice(0, 16);
}

describe("generated streams stay the same for a recorded seed", () => {
  it.each<[string, StreamOptions, string]>([
    ["the default stream", { seed: 42, count: 3000 }, "0518ec3142d245eb"],
    [
      "deltas, re-sends and reordering",
      { seed: 7, count: 3000, payloadType: "deltas", duplicates: 0.05, reorderWindow: 5 },
      "16402dd43b3697e3",
    ],
    [
      // Changed on purpose: the invalid messages also draw from EVENT-STREAM-02's reference-change mutations;
      // and no longer from an unconfigured per-kind field, a warning now (EVENT-FILTER-07), not an error.
      "mixed payloads with invalid messages",
      { seed: 20_261_122, count: 3000, payloadType: "mixed", invalid: { count: 40 } },
      "dd3a4b0f7166be49",
    ],
    [
      "the kit's preferred shapes only",
      { seed: 1, count: 2000, variety: false, largeObjects: 0.2 },
      "0bccd2d7de1b2863",
    ],
  ])("%s", (_name, options, expected) => {
    expect(streamHash(options)).toBe(expected);
  });
});
