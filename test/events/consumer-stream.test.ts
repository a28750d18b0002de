// The consumer check's stream and its truth, the view reader and the judge's bookkeeping, without a
// consumer process: the same seed gives the same stream; each producer choice shapes the messages as it
// says; the truth's latest state is the highest objectVersion; a malformed view names its line and the fix.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { judgeView } from "../../src/events/consumer/consumer-judge.ts";
import { type ConsumerStream, consumerStream } from "../../src/events/consumer/consumer-stream.ts";
import {
  type ConsumerView,
  MAX_LINE_CHARS,
  parseViewLine,
  readView,
  ViewError,
} from "../../src/events/consumer/consumer-view.ts";
import {
  DEFAULT_CHOICE,
  PRODUCER_CHOICES,
  producerChoice,
} from "../../src/events/consumer/producer-choices.ts";
import { verdictFindings } from "../../src/rules/judge.ts";

const choice = (name: string) => {
  const found = producerChoice(name);
  if (!found) throw new Error(`no producer choice ${name}`);
  return found;
};

describe("the consumer check's stream", () => {
  it("is the same for the same seed and choice, and another for another seed", () => {
    const a = JSON.stringify(consumerStream(DEFAULT_CHOICE, 5, 300).messages);
    expect(JSON.stringify(consumerStream(DEFAULT_CHOICE, 5, 300).messages)).toBe(a);
    expect(JSON.stringify(consumerStream(DEFAULT_CHOICE, 6, 300).messages)).not.toBe(a);
  });

  it("carries objectVersion as the choice says: a number, a string of digits, or not at all", () => {
    const versions = (name: string) =>
      consumerStream(choice(name), 2, 300).messages.map((m) => m.headers.objectVersion);
    expect(versions("snapshot").every((v) => typeof v === "number")).toBe(true);
    expect(versions("object-version-string").every((v) => typeof v === "string" && /^\d+$/.test(v))).toBe(
      true,
    );
    expect(versions("object-version-absent").every((v) => v === undefined)).toBe(true);
  });

  it("shapes deltas and fallbacks as the choice says", () => {
    const deltas = (name: string) =>
      consumerStream(choice(name), 2, 400)
        .messages.map((m) => m.payload.deltas as Record<string, unknown> | undefined)
        .filter((d) => d !== undefined);
    expect(
      deltas("deltas-collection").every((d) => Array.isArray(d.delta) && !("deltaCollection" in d)),
    ).toBe(true);
    expect(deltas("deltas-message").every((d) => typeof d.deltaCollection === "object")).toBe(true);
    expect(deltas("deltas-other").every((d) => typeof d.changes === "number")).toBe(true);
    const fallbacks = consumerStream(choice("fallback-uri-in-header"), 2, 400).messages.filter(
      (m) => m.payload.exceededQueueSizeLimit === true,
    );
    expect(fallbacks.length).toBeGreaterThan(0);
    expect(
      fallbacks.every((m) => !("uri" in m.payload) && typeof m.headers.sourceObjectUri === "string"),
    ).toBe(true);
  });

  it("knows each object's latest state: the listed message of the highest objectVersion", () => {
    const stream = consumerStream(DEFAULT_CHOICE, 3, 600);
    for (const object of stream.objects.values()) {
      const listed = object.entries.filter((e) => e.listed).map((e) => e.version);
      expect(object.winner.version).toBe(Math.max(...listed));
    }
    // The legal variety a consumer must meet is there: re-sends, late ones, fallbacks, unlisted types.
    const entries = [...stream.objects.values()].flatMap((o) => o.entries);
    expect(entries.some((e) => e.resend)).toBe(true);
    expect(entries.some((e) => e.kind === "fallback")).toBe(true);
    expect(entries.some((e) => !e.listed)).toBe(true);
    expect(entries.some((e) => e.unknownFields)).toBe(true);
  });
});

type Payload = Record<string, unknown>;

/** The true view of the stream (the latest state, the attributes of the latest snapshot), each live line
 *  given to `keep` with the payloads of the latest message and of that snapshot, to keep what it likes of
 *  fields the document does not define. */
function trueView(
  stream: ConsumerStream,
  keep: (line: Record<string, unknown>, latest: Payload, snapshot?: Payload) => void,
): ConsumerView {
  const records = new Map();
  for (const object of stream.objects.values()) {
    const winner = object.winner;
    const line: Record<string, unknown> = { uri: object.uri, removed: winner.removes };
    if (stream.choice.objectVersion !== "absent") line.objectVersion = winner.version;
    const snapshot = object.entries
      .filter((e) => e.kind === "snapshot" && e.version <= winner.version)
      .sort((a, b) => b.version - a.version)[0];
    if (!winner.removes && ["snapshot", "fallback"].includes(winner.kind) && snapshot?.attributesText)
      line.attributes = JSON.parse(snapshot.attributesText);
    const payload = (position: number) => stream.messages[position]?.payload ?? {};
    if (!winner.removes) keep(line, payload(winner.position), snapshot && payload(snapshot.position));
    records.set(object.uri, parseViewLine(JSON.stringify(line), records.size + 1));
  }
  return { records, lines: records.size };
}

describe("fields the document does not define, kept by the consumer", () => {
  const UNKNOWN = "consumer/unknown-types-and-fields-change-nothing";
  const failed = (stream: ConsumerStream, view: ConsumerView) =>
    judgeView(stream, view)
      .verdicts.filter((v) => v.status === "failed")
      .map((v) => v.rule.id);

  it.each(PRODUCER_CHOICES.map((c) => [c.name, c] as const))(
    "in a member of the line of its own: every rule passes (%s)",
    (_name, producer) => {
      const stream = consumerStream(producer, 4, 600);
      const view = trueView(stream, (line, latest) => {
        if ("schemaRevision" in latest) line.extensions = { schemaRevision: latest.schemaRevision };
      });
      expect([...view.records.values()].some((r) => r.dataMembers.includes("extensions"))).toBe(true);
      expect(failed(stream, view)).toEqual([]);
      expect(
        failed(
          stream,
          trueView(stream, () => {}),
        ),
      ).toEqual([]);
    },
  );

  it("among the object's attributes: the unknown-fields rule (SHOULD) says so, no other rule fails", () => {
    const stream = consumerStream(DEFAULT_CHOICE, 4, 600);
    const view = trueView(stream, (line, _latest, snapshot) => {
      if (snapshot && "schemaRevision" in snapshot && line.attributes)
        line.attributes = { ...(line.attributes as object), schemaRevision: snapshot.schemaRevision };
    });
    const judgement = judgeView(stream, view);
    expect(failed(stream, view)).toEqual([UNKNOWN]);
    const verdict = judgement.verdicts.find((v) => v.rule.id === UNKNOWN);
    expect(verdict?.rule.level).toBe("SHOULD");
    expect(verdictFindings(verdict)[0]?.message).toMatch(
      /holds the latest state, .* but with schemaRevision among the object's attributes: the document does not define that field/,
    );
    // In a deltas stream the attributes are judged as the deltas leave them: a line that holds that field
    // alone lacks what the deltas gave, the attributes rule's finding; the field itself is not read there.
    const deltas = consumerStream(choice("deltas"), 4, 600);
    expect(
      failed(
        deltas,
        trueView(deltas, (line, latest) => {
          if ("schemaRevision" in latest) line.attributes = { schemaRevision: latest.schemaRevision };
        }),
      ),
    ).toEqual(["consumer/attributes-of-the-latest-state"]);
  });
});

describe("the view", () => {
  it.each([
    ["not json", /line 3 of the view is not JSON/],
    ['["uri"]', /line 3 of the view is \["uri"\], not an object/],
    ['{"removed": false}', /has uri undefined: give the object's URI/],
    ['{"uri": "entities/a", "removed": 0}', /has removed 0: give true when/],
    [
      '{"uri": "entities/a", "removed": false, "objectVersion": "v2"}',
      /objectVersion "v2": give the objectVersion header/,
    ],
    [
      '{"uri": "entities/a", "removed": false, "attributes": []}',
      /attributes \[\]: give the object's attributes as an object/,
    ],
  ])("refuses %s naming the line and the fix", (text, says) => {
    expect(() => parseViewLine(text, 3)).toThrow(ViewError);
    expect(() => parseViewLine(text, 3)).toThrow(says);
  });

  it("takes objectVersion as a number or a string of digits", () => {
    expect(parseViewLine('{"uri": "u", "removed": false, "objectVersion": "12"}', 1).objectVersion).toBe(12);
    expect(parseViewLine('{"uri": "u", "removed": true, "objectVersion": 12}', 1).objectVersion).toBe(12);
  });

  it("refuses a line longer than its bound and a URI given twice", async () => {
    const folder = mkdtempSync(join(tmpdir(), "lckit-view-"));
    const long = join(folder, "long.ndjson");
    writeFileSync(
      long,
      `{"uri": "u", "removed": false, "attributes": {"a": "${"x".repeat(MAX_LINE_CHARS + 10)}"}}\n`,
    );
    await expect(readView(long, { maxLines: 10 })).rejects.toThrow(/line 1 of the view is longer than/);
    const twice = join(folder, "twice.ndjson");
    writeFileSync(twice, '{"uri": "u", "removed": false}\n\n{"uri": "u", "removed": true}\n');
    await expect(readView(twice, { maxLines: 10 })).rejects.toThrow(
      /line 3 of the view names u again \(line 1 did first\)/,
    );
  });

  it("takes the latest snapshot's attributes in any key order as the same", () => {
    const stream = consumerStream(DEFAULT_CHOICE, 3, 600);
    const object = [...stream.objects.values()].find(
      (o) => o.winner.kind === "snapshot" && !o.winner.removes && typeof o.winner.attributes === "string",
    );
    if (!object) throw new Error("no live snapshot object");
    const attributes = JSON.parse(object.winner.attributesText as string) as Record<string, unknown>;
    const reversed = Object.fromEntries(Object.entries(attributes).reverse());
    const line = (value: unknown) =>
      JSON.stringify({
        uri: object.uri,
        removed: false,
        objectVersion: object.winner.version,
        attributes: value,
      });
    const judged = (value: unknown) =>
      judgeView(stream, {
        records: new Map([[object.uri, parseViewLine(line(value), 1)]]),
        lines: 1,
      }).verdicts.filter((v) => v.status === "failed");
    expect(judged(reversed)).toEqual([]);
    expect(judged({ ...attributes, Extra: [] }).length).toBe(1);
  });

  it("objects the view lacks are not judged and are counted; lines about other objects are counted", async () => {
    const stream = consumerStream(DEFAULT_CHOICE, 3, 600);
    const [first] = stream.objects.values();
    if (!first) throw new Error("an empty stream");
    const view = {
      records: new Map([
        [first.uri, parseViewLine(JSON.stringify({ uri: first.uri, removed: first.winner.removes }), 1)],
        ["entities/elsewhere", parseViewLine('{"uri": "entities/elsewhere", "removed": false}', 2)],
      ]),
      lines: 2,
    };
    const judgement = judgeView(stream, view);
    expect(judgement.judged).toBe(1);
    expect(judgement.missing).toBe(stream.objects.size - 1);
    expect(judgement.foreign).toBe(1);
  });
});
