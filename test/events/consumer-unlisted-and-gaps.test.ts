// Two things the stream decides and two it does not. Event types in neither of the document's lists change
// nothing: the consumer streams make such a type an entity's last message now and then (live or removed),
// and a view it changed fails the content rule at MUST (its finding naming the unlisted message) while
// consumer/unknown-types-and-fields-change-nothing names the cause. After a large-object fallback the
// stream does not carry the object's content until a later snapshot: a view that keeps the earlier full
// state (its objectVersion, its attributes), or declines the deltas after it, is legal. The views are made
// by small consumers of the test's own, judged in memory, under every producer choice.
import { describe, expect, it } from "vitest";
import { judgeView } from "../../src/events/consumer/consumer-judge.ts";
import {
  type ConsumerStream,
  type DeliveredMessage,
  OTHER_TENANT,
} from "../../src/events/consumer/consumer-stream.ts";
import type { ConsumerView } from "../../src/events/consumer/consumer-view.ts";
import { PRODUCER_CHOICES } from "../../src/events/consumer/producer-choices.ts";
import { verdictFindings } from "../../src/rules/judge.ts";
import { choiceStream, type Held, isUnlisted, REMOVALS, viewOf } from "./test-consumers.ts";

const UNKNOWN = "consumer/unknown-types-and-fields-change-nothing";
const CONTENT_RULES = [
  "consumer/latest-by-object-version",
  "consumer/removal-not-live",
  "consumer/attributes-of-the-latest-state",
];

/** How the test consumer takes a type in neither list, and a large-object fallback. */
interface Choices {
  /** "ignore" (correct), "upsert" (faulty: live, its objectVersion, attributes as carried: none) or
   *  "as-removal" (faulty: removed at its objectVersion). */
  unlisted: "ignore" | "upsert" | "as-removal";
  /** "keep" holds the earlier full state (legal); "as-removal" takes it for a removal (faulty). */
  fallback: "keep" | "as-removal";
}

/** Orders each object's messages by objectVersion (arrival without it), a re-send taken once. Snapshots
 *  give the attributes (kept where a snapshot leaves them out); in a deltas stream it writes none and,
 *  after a fallback, declines the deltas that follow until a removal or a creation. */
function consume(s: ConsumerStream, choices: Choices): ConsumerView {
  const byObject = new Map<string, DeliveredMessage[]>();
  for (const m of s.messages) {
    // Its tenant's messages only (a shared destination carries another's too).
    if (m.headers.tenantId === OTHER_TENANT) continue;
    const uri = String(m.headers.sourceObjectUri);
    byObject.set(uri, [...(byObject.get(uri) ?? []), m]);
  }
  const versioned = s.choice.objectVersion !== "absent";
  const held = new Map<string, Held>();
  for (const [uri, messages] of byObject) {
    const seen = new Set<string>();
    const ordered = messages.filter((m) => {
      const key = versioned ? String(m.headers.objectVersion) : JSON.stringify(m);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    if (versioned) ordered.sort((a, b) => Number(a.headers.objectVersion) - Number(b.headers.objectVersion));
    let state: Held | undefined;
    let stuck = false;
    for (const [index, m] of ordered.entries()) {
      const type = String(m.headers.eventType);
      const version = versioned ? Number(m.headers.objectVersion) : index + 1;
      const object = m.payload.object as Record<string, unknown> | undefined;
      if (isUnlisted(type)) {
        if (choices.unlisted === "upsert") state = { version, removed: false, attrs: {} };
        if (choices.unlisted === "as-removal") state = { version, removed: true };
        continue;
      }
      if (m.payload.exceededQueueSizeLimit === true) {
        if (choices.fallback === "as-removal" || REMOVALS.test(type)) state = { version, removed: true };
        else if (!state || state.removed) state = { version, removed: false };
        stuck = true;
        continue;
      }
      if (REMOVALS.test(type)) {
        state = { version, removed: true };
        stuck = false;
        continue;
      }
      if (object) {
        const kept = state && !state.removed ? state.attrs : undefined;
        const attrs = "attributes" in object ? object.attributes : kept;
        state = { version, removed: false, ...(attrs === undefined ? {} : { attrs }) };
        stuck = false;
        continue;
      }
      if (stuck && !type.endsWith("_CREATED")) continue;
      stuck = false;
      state = { version, removed: false };
    }
    if (state) held.set(uri, versioned ? state : { ...state, version: undefined as unknown as number });
  }
  return viewOf(held);
}

const failedRules = (s: ConsumerStream, view: ConsumerView) =>
  judgeView(s, view)
    .verdicts.filter((v) => v.status === "failed")
    .map((v) => v.rule.id);

const names = PRODUCER_CHOICES.map((c) => c.name);

describe("types in neither of the document's lists", () => {
  it.each(["snapshot", "deltas"])(
    "are now and then an entity's last message, live or removed (%s)",
    (name) => {
      const s = choiceStream(name);
      const last = [...s.objects.values()].filter((o) => {
        const top = Math.max(...o.entries.map((e) => e.version));
        return o.entries.some((e) => !e.listed && e.version === top);
      });
      expect(last.length).toBeGreaterThan(2);
      expect(last.every((o) => o.uri.startsWith("entities/") && !o.winner.gdpr)).toBe(true);
    },
  );

  it.each(names)(
    "a consumer that ignores them, keeping the earlier state across fallbacks, passes every rule (%s)",
    (name) => {
      const s = choiceStream(name);
      expect(failedRules(s, consume(s, { unlisted: "ignore", fallback: "keep" }))).toEqual([]);
    },
  );

  it.each(names.filter((n) => n !== "object-version-absent" && n !== "deltas-other"))(
    "one that upserts them fails a content rule at MUST, and the unknown-types rule names the cause on every object it revived or emptied (%s)",
    (name) => {
      const s = choiceStream(name);
      const view = consume(s, { unlisted: "upsert", fallback: "keep" });
      const judgement = judgeView(s, view);
      const failed = judgement.verdicts.filter((v) => v.status === "failed");
      expect(failed.some((v) => v.rule.level === "MUST" && CONTENT_RULES.includes(v.rule.id))).toBe(true);
      const unknown = failed.find((v) => v.rule.id === UNKNOWN);
      expect(unknown?.rule.level).toBe("SHOULD");
      const causes = verdictFindings(unknown).filter((f) =>
        /a type in neither .* changed the view/.test(f.message),
      );
      expect(causes.length).toBeGreaterThan(0);
      // Each cause is reported with the content rule that judged the same object.
      for (const finding of causes) {
        const also = finding.evidence.alsoExplainedBy ?? [];
        expect(also.some((id) => CONTENT_RULES.includes(id))).toBe(true);
        const content = failed.find((v) => v.rule.id === also[0]);
        expect(verdictFindings(content).some((f) => f.where === finding.where)).toBe(true);
      }
    },
  );
});

describe("after a large-object fallback", () => {
  it.each(["snapshot", "fallback-uri-in-header", "deltas", "deltas-message"])(
    "holding the earlier full state (its objectVersion, its attributes) is exercised and legal (%s)",
    (name) => {
      const s = choiceStream(name);
      const view = consume(s, { unlisted: "ignore", fallback: "keep" });
      const older = [...s.objects.values()].filter((o) => {
        const line = view.records.get(o.uri);
        return line?.objectVersion !== undefined && line.objectVersion < o.winner.version && !line.removed;
      });
      expect(older.length).toBeGreaterThan(0);
      expect(failedRules(s, view)).toEqual([]);
    },
  );

  it("taking it for a removal is still the fallback rule's MUST failure", () => {
    const s = choiceStream("fallback-uri-in-header");
    const failed = judgeView(s, consume(s, { unlisted: "ignore", fallback: "as-removal" })).verdicts.filter(
      (v) => v.status === "failed" && v.rule.level === "MUST",
    );
    expect(failed.map((v) => v.rule.id)).toContain("consumer/fallback-is-not-an-empty-object");
  });
});

describe("a type in neither list taken for a removal", () => {
  it("fails at MUST with findings that name the unlisted message", () => {
    const s = choiceStream("snapshot");
    const judgement = judgeView(s, consume(s, { unlisted: "as-removal", fallback: "keep" }));
    const must = judgement.verdicts.filter((v) => v.status === "failed" && v.rule.level === "MUST");
    const named = must.flatMap((v) =>
      verdictFindings(v).filter((f) => /a type in neither of the document's lists/.test(f.message)),
    );
    expect(named.length).toBeGreaterThan(0);
  });
});
