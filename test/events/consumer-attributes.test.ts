// consumer/attributes-of-the-latest-state: where a view gives an object's attributes, they are those its
// messages leave at the latest state. In a deltas stream a deltas message changes the attributes it lists
// and leaves the others (the document: "Only changed attributes are listed"). The views here are built by
// small consumers of the test's own (a fold of the stream as a correct consumer makes it, and two faulty
// ones), independent of the kit's model, and judged in memory.
import { describe, expect, it } from "vitest";
import { judgeView } from "../../src/events/consumer/consumer-judge.ts";
import type { ConsumerStream, DeliveredMessage } from "../../src/events/consumer/consumer-stream.ts";
import { type ConsumerView, parseViewLine } from "../../src/events/consumer/consumer-view.ts";
import { verdictFindings } from "../../src/rules/judge.ts";
import { choiceStream, type Held, isUnlisted, REMOVALS, viewOf } from "./test-consumers.ts";

const RULE = "consumer/attributes-of-the-latest-state";

const stream = (name: string, seed = 1) => choiceStream(name, seed);

type Values = Record<string, { value?: unknown; id?: unknown }[]>;
/** How a test consumer folds a deltas message into the attributes it holds. */
type Apply =
  | "merge"
  | "replace"
  | "keep-old"
  | "twice"
  | "back-from-merge"
  // Faulty: ATTRIBUTE_REMOVED items are skipped.
  | "ignore-removed"
  // Faulty: a message that arrives after a higher objectVersion of its object is dropped as stale.
  | "drop-late"
  // Faulty: every re-send applied again, a re-sent creation adding its values to what the first made;
  // "twice-across" also keeps what it held across a fallback.
  | "twice-adds"
  | "twice-across"
  // Correct: keeps what it held across a fallback and applies the deltas after it (a value it never had
  // is not found, so it stays).
  | "keep-across";

function items(deltas: unknown): Record<string, unknown>[] | undefined {
  const d = deltas as Record<string, unknown> | undefined;
  const c = d?.deltaCollection as Record<string, unknown> | undefined;
  if (Array.isArray(c?.delta)) return c.delta as Record<string, unknown>[];
  if (Array.isArray(d?.delta)) return d.delta as Record<string, unknown>[];
  return undefined;
}

/** A consumer of the test's own: orders by objectVersion, marks removals, and folds deltas as `apply`
 *  says; after a fallback or a deltas member it cannot read it writes no attributes (it does not know). */
function consume(s: ConsumerStream, apply: Apply): ConsumerView {
  const held = new Map<string, Held>();
  const byObject = new Map<string, DeliveredMessage[]>();
  for (const m of s.messages) {
    const uri = String(m.headers.sourceObjectUri);
    byObject.set(uri, [...(byObject.get(uri) ?? []), m]);
  }
  for (const [uri, messages] of byObject) {
    const seen = new Set<number>();
    const again = apply === "twice" || apply === "twice-adds" || apply === "twice-across";
    let highest = Number.NEGATIVE_INFINITY;
    const ordered = messages
      .filter((m) => {
        const v = Number(m.headers.objectVersion);
        const late = v < highest;
        highest = Math.max(highest, v);
        if (apply === "drop-late" && late) return false;
        if (seen.has(v) && !again) return false;
        seen.add(v);
        return true;
      })
      .sort((a, b) => Number(a.headers.objectVersion) - Number(b.headers.objectVersion));
    let state: { version: number; removed: boolean; attrs?: Values } = { version: 0, removed: false };
    // back-from-merge: what an entity held when it lost a merge, given back when it is unmerged.
    let lostMerge: Values | undefined;
    for (const m of ordered) {
      const type = String(m.headers.eventType);
      const version = Number(m.headers.objectVersion);
      if (isUnlisted(type)) continue;
      if (REMOVALS.test(type)) {
        lostMerge = apply === "back-from-merge" && type === "ENTITY_LOST_MERGE" ? state.attrs : undefined;
        state = { version, removed: true };
        continue;
      }
      if (state.removed && lostMerge && type === "ENTITIES_SPLITTED") state = { ...state, attrs: lostMerge };
      lostMerge = undefined;
      const p = m.payload;
      const list = p.exceededQueueSizeLimit === true ? undefined : items(p.deltas);
      if (p.exceededQueueSizeLimit === true || (p.deltas !== undefined && list === undefined)) {
        state =
          apply === "twice-across" || apply === "keep-across"
            ? { ...state, version, removed: false }
            : { version, removed: false };
        continue;
      }
      if (!list) {
        state = { ...state, version, removed: false };
        continue;
      }
      const createdAgain = (apply === "twice-adds" || apply === "twice-across") && version === state.version;
      const created = type.endsWith("_CREATED") && !createdAgain;
      const base: Values = apply === "replace" || created ? {} : structuredClone(state.attrs ?? {});
      if (!created && apply !== "replace" && state.attrs === undefined) {
        state = { version, removed: false };
        continue;
      }
      for (const item of list) {
        const name = String(item.attributeType).split("/").at(-1) as string;
        const values = base[name] ?? [];
        const old = item.oldValue as { id?: unknown } | undefined;
        const skipped = apply === "ignore-removed" && item.type === "ATTRIBUTE_REMOVED";
        if (apply !== "keep-old" && !skipped && old && item.type !== "ATTRIBUTE_ADDED") {
          const at = values.findIndex((v) => v.id === old.id);
          if (at >= 0) values.splice(at, 1);
        }
        if (item.type !== "ATTRIBUTE_REMOVED") values.push(item.newValue as { value?: unknown });
        if (values.length > 0) base[name] = values;
        else delete base[name];
      }
      state = { version, removed: false, attrs: base };
    }
    held.set(uri, state);
  }
  return viewOf(held);
}

const verdictOf = (s: ConsumerStream, view: ConsumerView) => {
  const judgement = judgeView(s, view);
  return {
    failed: judgement.verdicts.filter((v) => v.status === "failed").map((v) => v.rule.id),
    // Read as the union's members: each test's status expectation says which one it is.
    rule: judgement.verdicts.find((v) => v.rule.id === RULE) as
      | { status: string; opportunities?: number; findings: { message: string }[]; reason?: string }
      | undefined,
  };
};

describe("a deltas stream's attributes, as the deltas leave them", () => {
  it.each(["deltas", "deltas-message", "deltas-collection", "deltas-wide-reordering"])(
    "a consumer that applies each delta to the attributes it lists passes (%s), on objects it judged",
    (name) => {
      const s = stream(name);
      const { failed, rule } = verdictOf(s, consume(s, "merge"));
      expect(failed).toEqual([]);
      expect(rule?.status).toBe("passed");
      expect(rule?.opportunities).toBeGreaterThan(10);
    },
  );

  it.each(["deltas", "deltas-message", "deltas-collection"])(
    "an entity unmerged (ENTITIES_SPLITTED after ENTITY_LOST_MERGE) may come back with what it held before it lost the merge, or with nothing until deltas give it (%s)",
    (name) => {
      const s = stream(name);
      // The streams hold such entities, whose deltas after the split change values held before the loss.
      const back = [...s.objects.values()].filter((o) => {
        const types = o.entries.map((e) => e.type);
        const lost = types.indexOf("ENTITY_LOST_MERGE");
        return lost >= 0 && types.indexOf("ENTITIES_SPLITTED", lost) > lost;
      });
      expect(back.length).toBeGreaterThan(0);
      for (const apply of ["back-from-merge", "merge"] as const) {
        const { failed, rule } = verdictOf(s, consume(s, apply));
        expect(failed, apply).toEqual([]);
        expect(rule?.status).toBe("passed");
      }
    },
  );

  it.each(["deltas-message", "deltas-collection"])(
    "a deltas message applied as a whole snapshot (the attributes it did not list dropped) is this rule's finding alone (%s)",
    (name) => {
      const s = stream(name);
      const { failed, rule } = verdictOf(s, consume(s, "replace"));
      expect(failed).toEqual([RULE]);
      expect(rule?.findings[0]?.message).toMatch(
        /not those the object's deltas leave .*is missing, though a delta gave it .* a deltas message changes only the attributes it lists/,
      );
    },
  );

  it("a value a delta replaced, kept beside the new one, is this rule's finding", () => {
    const s = stream("deltas-message");
    const { failed, rule } = verdictOf(s, consume(s, "keep-old"));
    expect(failed).toEqual([RULE]);
    expect(rule?.findings[0]?.message).toMatch(/still holds .*, which a delta removed or replaced/);
  });

  it.each(["deltas", "deltas-message", "deltas-collection"])(
    "a re-sent deltas message applied again (a value held twice) is named by the re-send rule, with this rule (%s)",
    (name) => {
      const s = stream(name);
      const judgement = judgeView(s, consume(s, "twice"));
      const failed = judgement.verdicts.filter((v) => v.status === "failed").map((v) => v.rule.id);
      expect(failed.sort()).toEqual([RULE, "consumer/re-send-changes-nothing"].sort());
      const resend = judgement.verdicts.find((v) => v.rule.id === "consumer/re-send-changes-nothing");
      const found = verdictFindings(resend);
      expect(found[0]?.message).toMatch(/was an exact re-send, .* was the re-send applied again\?/);
      expect(found.every((f) => f.evidence.alsoExplainedBy?.includes(RULE))).toBe(true);
    },
  );

  it.each(["deltas", "deltas-message", "deltas-collection", "deltas-wide-reordering"])(
    "a consumer that keeps what it held across a large-object fallback and applies the deltas after it passes (%s): the document does not say what a fallback leaves",
    (name) => {
      const s = stream(name);
      const { failed, rule } = verdictOf(s, consume(s, "keep-across"));
      expect(failed).toEqual([]);
      expect(rule?.status).toBe("passed");
    },
  );

  it.each(["deltas", "deltas-message", "deltas-collection", "deltas-wide-reordering"])(
    "a consumer that skips ATTRIBUTE_REMOVED keeps a removed value: this rule's finding (%s)",
    (name) => {
      const s = stream(name);
      // The streams remove values: the document's second delta item.
      const removals = s.messages.filter((m) => JSON.stringify(m.payload).includes('"ATTRIBUTE_REMOVED"'));
      expect(removals.length).toBeGreaterThan(5);
      const { failed, rule } = verdictOf(s, consume(s, "ignore-removed"));
      expect(failed).toEqual([RULE]);
      expect(
        rule?.findings.some((f) => /still holds .*, which a delta removed or replaced/.test(f.message)),
      ).toBe(true);
    },
  );

  it("deltas dropped as stale, because a higher objectVersion came first, are named by the order rule, with this rule", () => {
    const s = stream("deltas-wide-reordering");
    const judgement = judgeView(s, consume(s, "drop-late"));
    const failed = judgement.verdicts.filter((v) => v.status === "failed").map((v) => v.rule.id);
    expect(failed.sort()).toEqual([RULE, "consumer/latest-by-object-version"].sort());
    const order = judgement.verdicts.find((v) => v.rule.id === "consumer/latest-by-object-version");
    const found = verdictFindings(order);
    expect(
      found.some((f) => /came after a higher objectVersion .* was it dropped as stale\?/.test(f.message)),
    ).toBe(true);
  });

  it.each(["twice-adds", "twice-across"] as const)(
    "a re-sent creation applied again adds its values again; named by the re-send rule whether the consumer keeps or drops what it held across a fallback (%s)",
    (apply) => {
      const s = stream("deltas");
      const judgement = judgeView(s, consume(s, apply));
      const failed = judgement.verdicts.filter((v) => v.status === "failed").map((v) => v.rule.id);
      expect(failed).toContain("consumer/re-send-changes-nothing");
      const resend = verdictFindings(
        judgement.verdicts.find((v) => v.rule.id === "consumer/re-send-changes-nothing"),
      );
      expect(resend.some((f) => /ENTITY_CREATED.* was an exact re-send/.test(f.message))).toBe(true);
    },
  );

  it("deltas of another structure give no values: nothing is judged, and the rule says so", () => {
    const s = stream("deltas-other");
    const { failed, rule } = verdictOf(s, consume(s, "replace"));
    expect(failed).toEqual([]);
    expect(rule?.status).toBe("not-exercised");
    expect(rule?.reason).toMatch(/the stream gave no opportunity/);
  });

  it("a view that gives no attributes is not judged (not exercised, saying the lines leave them out), and members of its own are not read", () => {
    const s = stream("deltas-message");
    const merged = consume(s, "merge");
    const records = new Map();
    for (const r of merged.records.values()) {
      const line = { uri: r.uri, removed: r.removed, objectVersion: r.objectVersion, needsRefetch: true };
      records.set(r.uri, parseViewLine(JSON.stringify(line), r.line));
    }
    const { failed, rule } = verdictOf(s, { records, lines: records.size });
    expect(failed).toEqual([]);
    expect(rule?.status).toBe("not-exercised");
    expect(rule?.reason).toMatch(/leave out what the rule judges/);
  });
});

describe("a snapshot stream's attributes", () => {
  it("a line that holds the latest objectVersion with an attribute dropped is this rule's finding, not the order rule's", () => {
    const s = stream("snapshot");
    const records = new Map();
    let changed = 0;
    for (const object of s.objects.values()) {
      const w = object.winner;
      const line: Record<string, unknown> = { uri: object.uri, removed: w.removes, objectVersion: w.version };
      const text = w.kind === "snapshot" && !w.removes ? w.attributesText : undefined;
      if (text) {
        const attributes = JSON.parse(text) as Record<string, unknown>;
        if (changed < 5 && "LastName" in attributes) {
          delete attributes.LastName;
          changed += 1;
        }
        line.attributes = attributes;
      }
      records.set(object.uri, parseViewLine(JSON.stringify(line), records.size + 1));
    }
    expect(changed).toBe(5);
    const { failed, rule } = verdictOf(s, { records, lines: records.size });
    expect(failed).toEqual([RULE]);
    expect(rule?.findings).toHaveLength(5);
    expect(rule?.findings[0]?.message).toMatch(/not the snapshot's at message #\d+ .*: LastName is missing/);
  });
});
