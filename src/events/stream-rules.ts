// Rules over a sequence of messages. Delivery is at-least-once and unordered, so duplicates and
// reordering are legal; a rule fires only when objectVersion proves the order. Memory per object: one
// number per (uri, objectVersion): a content hash packed with the event type.

import type { MessageFacts } from "./event-message.ts";
import type { EventProblem } from "./event-problem.ts";
import { rule } from "./rules.ts";

const gdprType = "ENTITY_REMOVED_GDPR";
const createdType = "ENTITY_CREATED";

/** 53-bit string hash (cyrb53): enough to tell two messages for one (uri, objectVersion) apart. */
export function hash53(text: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

interface ObjectHistory {
  /** objectVersion -> content hash (high bits) and event-type index (low 7 bits). */
  versions: Map<number, number>;
  /** objectVersions of ENTITY_REMOVED_GDPR events seen for the object. */
  gdpr?: number[];
}

export interface StreamRuleCounts {
  /** Messages identical to an earlier one with the same (uri, objectVersion): legal redelivery. */
  duplicates: number;
  /** Objects tracked (distinct URIs of messages with objectVersion). */
  objects: number;
}

export class StreamRules {
  private readonly objects = new Map<string, ObjectHistory>();
  private readonly typeIndex = new Map<string, number>();
  private readonly typeNames: string[] = [];
  private duplicates = 0;

  counts(): StreamRuleCounts {
    return { duplicates: this.duplicates, objects: this.objects.size };
  }

  private indexOf(type: string): number {
    let index = this.typeIndex.get(type);
    if (index === undefined) {
      index = this.typeNames.length % 128;
      this.typeIndex.set(type, index);
      this.typeNames.push(type);
    }
    return index;
  }

  /** Records one message and returns the stream problems it reveals (reported at this message's position). */
  observe(facts: MessageFacts, position: string): EventProblem[] {
    const { uri, objectVersion: version, type } = facts;
    if (uri === undefined || version === undefined || type === undefined || !facts.contentText) return [];
    const problems: EventProblem[] = [];
    let history = this.objects.get(uri);
    if (!history) {
      history = { versions: new Map() };
      this.objects.set(uri, history);
    }
    const typeIndex = this.indexOf(type);
    const packed = Math.floor(hash53(facts.contentText()) / 128) * 128 + typeIndex;
    const earlier = history.versions.get(version);
    if (earlier === undefined) {
      history.versions.set(version, packed);
    } else if (earlier === packed) {
      this.duplicates += 1;
      return problems;
    } else {
      const earlierType = this.typeNames[earlier % 128] ?? "?";
      problems.push({
        position,
        instancePath: "/headers/objectVersion",
        rule: rule.versionReuse,
        keyword: "stream:version-reuse",
        message: `${uri} objectVersion ${version} was already used by a different message (${earlierType === type ? `another ${type} with other content` : `a ${earlierType}`}); objectVersion is raised after every change, so two different messages never share one`,
        severity: "error",
      });
      return problems;
    }

    if (type === gdprType) {
      history.gdpr = [...(history.gdpr ?? []), version].sort((a, b) => a - b);
      // A later-versioned message of another type may have arrived first (reordering is legal).
      for (const [other, packedOther] of history.versions) {
        const otherType = this.typeNames[packedOther % 128] ?? "";
        if (
          other > version &&
          !allowedAfterGdpr(otherType) &&
          !this.recreatedBetween(history, version, other)
        ) {
          problems.push(gdprProblem(position, uri, version, otherType, other, "arrived earlier"));
        }
      }
    } else if (!allowedAfterGdpr(type) && history.gdpr) {
      for (const removed of history.gdpr) {
        if (removed < version && !this.recreatedBetween(history, removed, version)) {
          problems.push(gdprProblem(position, uri, removed, type, version, "this message"));
          break;
        }
      }
    }
    return problems;
  }

  /** True when an ENTITY_CREATED with a version strictly between `from` and `to` brought the entity back. */
  private recreatedBetween(history: ObjectHistory, from: number, to: number): boolean {
    const created = this.typeIndex.get(createdType);
    if (created === undefined) return false;
    for (const [version, packed] of history.versions) {
      if (version > from && version < to && packed % 128 === created) return true;
    }
    return false;
  }
}

function allowedAfterGdpr(type: string): boolean {
  return type === gdprType || type === createdType || !type.startsWith("ENTIT");
}

function gdprProblem(
  position: string,
  uri: string,
  removed: number,
  type: string,
  version: number,
  which: string,
): EventProblem {
  return {
    position,
    instancePath: "/payload/type",
    rule: rule.gdpr,
    keyword: "stream:after-gdpr",
    message: `${uri} was removed by ENTITY_REMOVED_GDPR at objectVersion ${removed}, but ${which} is ${type} at objectVersion ${version}; afterwards only ENTITY_CREATED and ENTITY_REMOVED_GDPR may follow for that entity`,
    severity: "error",
  };
}
