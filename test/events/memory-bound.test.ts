// The memory bound (--max-tracked) never drops state silently: each rule that forgot something says what it
// could no longer compare, as a notice (terminal, --format json) and on its check in the report.
import { describe, expect, it } from "vitest";
import { checkStream } from "../../src/events/judge/event-stream.ts";
import { eventRunResult } from "../../src/events/judge/run-result.ts";
import { linesAsMessages, memorySource } from "../../src/events/transport/sources/index.ts";

const hcp = "configuration/entityTypes/HCP";

function changed(entity: string, version: number, attributes: Record<string, unknown> = {}): string {
  return JSON.stringify({
    headers: {
      tenantId: "acme",
      eventType: "ENTITY_CHANGED",
      sourceObjectUri: `entities/${entity}`,
      objectVersion: version,
    },
    payload: {
      type: "ENTITY_CHANGED",
      ovChanged: true,
      object: { uri: `entities/${entity}`, type: hcp, attributes },
    },
  });
}

const workplace = (name: string) => ({
  Workplace: [
    {
      type: "x",
      ov: true,
      value: { Name: [{ type: "y", ov: true, value: name }] },
      refEntity: { objectURI: "entities/hco" },
    },
  ],
});

async function check(lines: string[], maxTrackedVersions?: number) {
  return checkStream(memorySource(linesAsMessages(lines)), {
    ...(maxTrackedVersions === undefined ? {} : { maxTrackedVersions }),
    config: { referenceRelationTypes: ["HasAddress"], companionWindow: { messages: 100, seconds: 0 } },
  });
}

describe("--max-tracked", () => {
  const lines = Array.from({ length: 6 }, (_, i) => changed(`e${i}`, 1, workplace("A")));

  it("within the bound: no notice", async () => {
    const result = await check(lines);
    expect(result.notices.filter((n) => n.kind === "memory-bound")).toEqual([]);
  });

  it("past it: a notice per rule that forgot, naming the rules and the flag, and the checks say so", async () => {
    const result = await check(lines, 2);
    expect(result.errors).toBe(0);
    const notices = result.notices.filter((n) => n.kind === "memory-bound").map((n) => n.message);
    expect(notices, JSON.stringify(notices)).toHaveLength(3);
    expect(notices[0]).toMatch(
      /^4 object\(s\) seen longest ago were forgotten .*EVENT-HEADERS-03, EVENT-STREAM-01.*raise --max-tracked \(now 2\)/,
    );
    expect(notices[1]).toMatch(
      /^4 entity\(ies\) with events in the companion window were forgotten .*EVENT-TYPES-04/,
    );
    expect(notices[2]).toMatch(
      /^4 entity\(ies\) with reference attribute values were forgotten .*EVENT-STREAM-02/,
    );
    const run = eventRunResult(result, { command: "lckit events check", config: true });
    const reuse = run.checks.find((c) => c.id === "events/event-headers-03");
    expect(reuse?.status).toBe("passed");
    expect(reuse?.message).toMatch(/^memory bound: 4 object\(s\) seen longest ago were forgotten/);
  });

  it("a forgotten entity's next snapshot is not compared: no finding, said by the notice", async () => {
    const stream = [
      changed("y", 1, workplace("A")),
      changed("a", 1, workplace("A")),
      changed("b", 1, workplace("A")),
      // y's reference changed with ovChanged false: caught within the bound, not past it.
      changed("y", 2, workplace("B")).replace('"ovChanged":true', '"ovChanged":false'),
    ];
    expect((await check(stream)).byRule).toEqual({ "EVENT-STREAM-02": 1 });
    const bounded = await check(stream, 2);
    expect(bounded.byRule).toEqual({});
    expect(bounded.notices.some((n) => /reference attribute values were forgotten/.test(n.message))).toBe(
      true,
    );
  });
});
