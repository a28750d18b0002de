// An object's attributes as its deltas messages leave them, by the document's model of deltas: a deltas
// message lists only the attributes that changed ("Only changed attributes are listed"), so it changes
// those and leaves every other attribute as it was. ATTRIBUTE_CHANGED replaces its oldValue with its
// newValue, ATTRIBUTE_REMOVED removes its oldValue, ATTRIBUTE_ADDED (seen in the field) adds its newValue.
// Where the stream does not say (a large-object fallback, a deltas member of another structure, a value
// without a text such as a reference attribute's) the attribute is unknown and not judged: the document is
// silent there, and so is the kit.

import {
  type TruthEntry,
  type TruthObject,
  UNKNOWN_HEADER,
  UNKNOWN_PAYLOAD_FIELD,
} from "./consumer-stream.ts";
import type { JudgeContext, ObjectCase } from "./object-state.ts";

/** One attribute value as a message gives it: its text and its id (the last segment of its uri). */
interface ModelValue {
  value?: string;
  id?: string;
}

/** The attributes the object's messages up to its latest state say it has. */
export interface DeltasState {
  /** Attribute name (the attributeType's or key's last segment) to its values, where the stream gave them. */
  known: Map<string, ModelValue[]>;
  /** Values a delta removed or replaced, per attribute name, that no later message gave again. */
  dropped: Map<string, ModelValue[]>;
  /** Attribute names whose values the stream did not give (a value without text). */
  unknown: Set<string>;
  /** Every attribute of the object is known: its messages from its creation on all gave their values. */
  complete: boolean;
  /** The message whose delta last changed each known attribute (for the finding's words). */
  lastChange: Map<string, TruthEntry>;
}

const record = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

const lastSegment = (text: string) => text.slice(text.lastIndexOf("/") + 1);

function modelValue(v: unknown): ModelValue | undefined {
  if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") return { value: String(v) };
  const r = record(v);
  if (!r) return undefined;
  const out: ModelValue = {};
  if (typeof r.value === "string" || typeof r.value === "number" || typeof r.value === "boolean")
    out.value = String(r.value);
  if (typeof r.id === "string" && r.id !== "") out.id = r.id;
  else if (typeof r.uri === "string" && r.uri !== "") out.id = lastSegment(r.uri);
  return out;
}

/** Two values are the same: by text where both have one, else by id. */
const same = (a: ModelValue, b: ModelValue) =>
  a.value !== undefined && b.value !== undefined ? a.value === b.value : a.id !== undefined && a.id === b.id;

/** The delta items of a deltas member, in the shapes the field shows (the document's delta message, its
 *  deltaCollection alone, a bare array); undefined for any other structure (the document leaves it open). */
export function deltaItems(deltas: unknown): unknown[] | undefined {
  if (Array.isArray(deltas)) return deltas;
  const d = record(deltas);
  if (!d) return undefined;
  const collection = record(d.deltaCollection);
  if (collection && Array.isArray(collection.delta)) return collection.delta;
  if (Array.isArray(d.delta)) return d.delta;
  return undefined;
}

const CREATION = /_CREATED$/;

function emptyState(complete: boolean): DeltasState {
  return { known: new Map(), dropped: new Map(), unknown: new Set(), complete, lastChange: new Map() };
}

function applyItem(state: DeltasState, item: unknown, entry: TruthEntry): void {
  const it = record(item);
  if (!it || typeof it.attributeType !== "string") {
    // An item the stream does not name: what it changed is unknown.
    state.complete = false;
    return;
  }
  const name = lastSegment(it.attributeType);
  const type = String(it.type ?? "");
  const oldValue = it.oldValue === undefined ? undefined : modelValue(it.oldValue);
  const newValue = it.newValue === undefined ? undefined : modelValue(it.newValue);
  const values = state.known.get(name) ?? [];
  if ((oldValue && oldValue.value === undefined) || (newValue && newValue.value === undefined)) {
    // A value without text (a reference attribute's): the attribute is not judged.
    state.unknown.add(name);
    state.known.delete(name);
    return;
  }
  if (oldValue && (type === "ATTRIBUTE_CHANGED" || type === "ATTRIBUTE_REMOVED")) {
    // By id where the values carry ids (two values may share a text: Hopper replaced by another Hopper).
    const byId = oldValue.id !== undefined && values.some((v) => v.id !== undefined);
    const at = values.findIndex((v) => (byId ? v.id === oldValue.id : same(v, oldValue)));
    if (at >= 0) values.splice(at, 1);
    const dropped = state.dropped.get(name) ?? [];
    dropped.push(oldValue);
    state.dropped.set(name, dropped);
  }
  if (newValue && type !== "ATTRIBUTE_REMOVED") {
    values.push(newValue);
    const dropped = state.dropped.get(name);
    if (dropped)
      state.dropped.set(
        name,
        dropped.filter((v) => !same(v, newValue)),
      );
  }
  if (values.length > 0) state.known.set(name, values);
  else state.known.delete(name);
  state.lastChange.set(name, entry);
}

function fromSnapshot(object: Record<string, unknown>, entry: TruthEntry): DeltasState {
  const state = emptyState(true);
  const attributes = record(object.attributes) ?? {};
  for (const [key, raw] of Object.entries(attributes)) {
    const name = lastSegment(key);
    const values = (Array.isArray(raw) ? raw : [raw]).map(modelValue);
    if (values.some((v) => v === undefined || v.value === undefined)) state.unknown.add(name);
    else {
      state.known.set(name, values as ModelValue[]);
      state.lastChange.set(name, entry);
    }
  }
  return state;
}

const cache = new WeakMap<TruthObject, Map<number, DeltasState>>();
const gapCache = new WeakMap<TruthObject, number[]>();

/** The object's attributes at its latest state (or at objectVersion `upTo`), folded from its listed
 *  messages in objectVersion order (a re-send counted once). */
export function deltasState(
  object: TruthObject,
  ctx: JudgeContext,
  upTo: number = object.winner.version,
): DeltasState {
  let states = cache.get(object);
  if (!states) {
    states = new Map();
    cache.set(object, states);
  }
  let state = states.get(upTo);
  if (!state) {
    state = fold(object, ctx, upTo, {});
    states.set(upTo, state);
  }
  return state;
}

/** The objectVersions up to the latest state where a deltas stream stops giving the object's attributes:
 *  a large-object fallback (no content), a deltas member of a structure the field does not show, or a
 *  change of a value the object's messages never gave (the earlier message's deltas did not list it). A
 *  consumer cannot apply the deltas that follow across such a gap. */
export function deltasGaps(object: TruthObject, ctx: JudgeContext): number[] {
  let gaps = gapCache.get(object);
  if (!gaps) {
    gaps = [];
    fold(object, ctx, object.winner.version, { gaps });
    gapCache.set(object, gaps);
  }
  return gaps;
}

/** How a fold reads the stream: `gaps` collects where it stops giving attributes; `twice` applies a
 *  re-sent deltas message again (the state a consumer that does not recognise re-sends leaves);
 *  `acrossGaps` keeps what it held across a gap (as a consumer that keeps attributes over a fallback
 *  does) instead of taking every attribute as unknown from there. */
interface FoldOptions {
  gaps?: number[];
  twice?: boolean;
  acrossGaps?: boolean;
  /** objectVersions not applied (deltas a consumer dropped as stale: they came after a higher one). */
  skip?: ReadonlySet<number>;
  /** With `twice`: a creation applied again adds its values to what the first made, instead of starting
   *  the object afresh (a consumer that takes a re-sent creation for news does either). */
  creationAdds?: boolean;
}

/** The fold in objectVersion order. */
function fold(
  object: TruthObject,
  ctx: JudgeContext,
  upTo: number,
  { gaps, twice = false, acrossGaps = false, skip, creationAdds = false }: FoldOptions,
): DeltasState {
  const byVersion = new Map<number, TruthEntry>();
  const again: TruthEntry[] = [];
  for (const e of object.entries)
    if (e.listed && e.version <= upTo && !skip?.has(e.version))
      if (!byVersion.has(e.version)) byVersion.set(e.version, e);
      else if (twice && e.resend && e.kind === "deltas") again.push(e);
  let state = emptyState(false);
  let removed = false;
  const ordered = [...byVersion.values(), ...again].sort((a, b) => a.version - b.version);
  for (const e of ordered) {
    if (e.removes) {
      state = emptyState(true);
      removed = true;
      continue;
    }
    // Live again without a creation (ENTITIES_SPLITTED: "it was unmerged from its master"): what the
    // entity holds when it comes back the document does not show (the producer's next deltas may change
    // values it held before it lost the merge), so its attributes are unknown until deltas give them.
    if (removed && e.kind === "deltas" && !CREATION.test(e.type)) state = emptyState(false);
    removed = false;
    if (e.kind === "fallback") {
      // The event without its content: every attribute is unknown from here.
      gaps?.push(e.version);
      if (!acrossGaps) state = emptyState(false);
      continue;
    }
    const payload = ctx.stream.messages[e.position]?.payload;
    if (e.kind === "snapshot") {
      const object = record(payload?.object);
      state = object ? fromSnapshot(object, e) : emptyState(false);
      continue;
    }
    if (e.kind !== "deltas") continue;
    const items = deltaItems(payload?.deltas);
    if (items === undefined) {
      gaps?.push(e.version);
      if (!acrossGaps) state = emptyState(false);
      continue;
    }
    if (CREATION.test(e.type) && !(creationAdds && again.includes(e))) state = emptyState(true);
    else if (gaps && state.complete && items.some((item) => changesUnseen(state as DeltasState, item)))
      gaps.push(e.version);
    for (const item of items) applyItem(state, item, e);
  }
  return state;
}

/** A delta item that changes or removes a value (with a text) the object's attributes do not hold. */
function changesUnseen(state: DeltasState, item: unknown): boolean {
  const it = record(item);
  if (!it || typeof it.attributeType !== "string" || it.oldValue === undefined) return false;
  const old = modelValue(it.oldValue);
  if (old?.value === undefined) return false;
  const name = lastSegment(it.attributeType);
  return !state.unknown.has(name) && !(state.known.get(name) ?? []).some((v) => same(v, old));
}

/** The stream gives something to judge of the object's attributes: its latest state is live and its
 *  messages gave at least one attribute's values. */
export function deltasGiveAttributes(object: TruthObject, ctx: JudgeContext): boolean {
  if (object.winner.removes || ctx.stream.choice.payloadType !== "deltas") return false;
  return deltasState(object, ctx).known.size > 0;
}

/** The view's attributes as name to values (a key's last segment: a full attributeType key is a name). */
function viewAttributes(value: unknown): Map<string, ModelValue[]> {
  const out = new Map<string, ModelValue[]>();
  const r = record(value);
  if (!r) return out;
  for (const [key, raw] of Object.entries(r)) {
    if (raw === null || raw === undefined) continue;
    const values = (Array.isArray(raw) ? raw : [raw])
      .map(modelValue)
      .filter((v): v is ModelValue => v !== undefined);
    const name = lastSegment(key);
    out.set(name, [...(out.get(name) ?? []), ...values]);
  }
  return out;
}

/** Fields of no definition a consumer may have copied among the attributes: the unknown-fields rule's. */
const NOT_ATTRIBUTES: ReadonlySet<string> = new Set([UNKNOWN_HEADER, UNKNOWN_PAYLOAD_FIELD]);

const show = (v: ModelValue) => JSON.stringify(v.value ?? v.id);

/** What the view's attributes get wrong against the deltas' latest state, in words; [] when nothing.
 *  Judged only where the view gives attributes and the stream gave them. */
export function deltasMismatch(c: ObjectCase, ctx: JudgeContext, upTo?: number): string[] {
  const { record: line, object } = c;
  if (line.attributes === undefined || line.removed || !deltasGiveAttributes(object, ctx)) return [];
  const view = viewAttributes(line.attributesValue);
  const wrong = mismatchWith(deltasState(object, ctx, upTo), view);
  if (wrong.length === 0) return wrong;
  // Across a fallback the document does not say what a consumer keeps: one that kept what it held and
  // applied the deltas after it (values it never had changed, so not found) holds what that fold leaves.
  const limit = upTo ?? object.winner.version;
  if (deltasGaps(object, ctx).some((v) => v <= limit)) {
    const kept = fold(object, ctx, limit, { acrossGaps: true });
    if (mismatchWith(kept, view).length === 0) return [];
  }
  return wrong;
}

/** What the view's attributes get wrong against one fold's state, in words. */
function mismatchWith(state: DeltasState, view: Map<string, ModelValue[]>): string[] {
  const wrong: string[] = [];
  const by = (name: string) => {
    const e = state.lastChange.get(name);
    return e ? ` (message #${e.position + 1}, ${e.type}, objectVersion ${e.version})` : "";
  };
  for (const [name, values] of state.known) {
    const held = view.get(name) ?? [];
    const missing = values.filter((v) => !held.some((h) => same(h, v)));
    if (missing.length === 0) continue;
    wrong.push(
      held.length === 0
        ? `${name} is missing, though a delta gave it${by(name)} and no later message removed it: a deltas message changes only the attributes it lists`
        : `${name} holds ${held.map(show).join(", ")}, not ${missing.map(show).join(", ")} as the latest delta of it gave${by(name)}`,
    );
  }
  for (const [name, held] of view) {
    if (state.unknown.has(name) || held.length === 0 || NOT_ATTRIBUTES.has(name)) continue;
    const current = state.known.get(name) ?? [];
    const stale = (state.dropped.get(name) ?? []).filter(
      (d) => held.some((h) => same(h, d)) && !current.some((v) => same(v, d)),
    );
    if (stale.length > 0)
      wrong.push(
        `${name} still holds ${stale.map(show).join(", ")}, which a delta removed or replaced${by(name)}`,
      );
    else if (state.complete && current.length === 0)
      wrong.push(`${name} is held, though no message since the object's creation gave it a value`);
  }
  return wrong;
}

/** A deltas message sent again, applied a second time: the view's attributes are those the object's
 *  deltas leave when each re-sent deltas message is applied again, and not those they leave. The re-sent
 *  message (its first re-send), or undefined. */
export function reappliedResend(c: ObjectCase, ctx: JudgeContext, upTo?: number): TruthEntry | undefined {
  const { record: line, object } = c;
  if (line.attributes === undefined || line.removed) return undefined;
  const limit = upTo ?? object.winner.version;
  const resent = object.entries.find(
    (e) => e.listed && e.resend && e.kind === "deltas" && e.version <= limit,
  );
  if (!resent) return undefined;
  // A creation applied again may start the object afresh or add its values again.
  const reapplied = heldAsFolded(c, ctx, limit, [{ twice: true }, { twice: true, creationAdds: true }]);
  return reapplied ? resent : undefined;
}

/** The line's attributes are those a fold up to `limit` with one of `faulty`'s options leaves, and not
 *  those the fold without them leaves. Across a gap (a fallback) a consumer may keep what it held or drop
 *  it: the document does not say, so either reading is tried. */
function heldAsFolded(c: ObjectCase, ctx: JudgeContext, limit: number, faulty: FoldOptions[]): boolean {
  const { object } = c;
  const view = viewAttributes(c.record.attributesValue);
  if (holdsExactly(view, deltasState(object, ctx, limit))) return false;
  return [false, true].some(
    (acrossGaps) =>
      !holdsExactly(view, fold(object, ctx, limit, { acrossGaps })) &&
      faulty.some((options) => holdsExactly(view, fold(object, ctx, limit, { ...options, acrossGaps }))),
  );
}

/** Deltas messages that arrived after a higher objectVersion of the same object and were not applied:
 *  the view's attributes are those the object's deltas leave without them (and not those they leave).
 *  The first such message, or undefined. A consumer must wait for the missing objectVersion, or at
 *  least not drop it when it comes. */
export function droppedAsStale(c: ObjectCase, ctx: JudgeContext, upTo?: number): TruthEntry | undefined {
  const { record: line, object } = c;
  if (line.attributes === undefined || line.removed) return undefined;
  const limit = upTo ?? object.winner.version;
  const late: TruthEntry[] = [];
  let highest = -Infinity;
  for (const e of [...object.entries].sort((a, b) => a.position - b.position)) {
    if (!e.listed || e.resend) continue;
    if (e.version < highest && e.kind === "deltas" && e.version <= limit) late.push(e);
    highest = Math.max(highest, e.version);
  }
  if (late.length === 0) return undefined;
  const dropped = heldAsFolded(c, ctx, limit, [{ skip: new Set(late.map((e) => e.version)) }]);
  return dropped ? late[0] : undefined;
}

/** The view holds, for every attribute the state knows, the same values as often, and no attribute the
 *  state knows none of (fields of no definition and attributes the stream did not give aside). */
function holdsExactly(view: Map<string, ModelValue[]>, state: DeltasState): boolean {
  const count = (values: ModelValue[], value: ModelValue) => values.filter((v) => same(v, value)).length;
  for (const [name, values] of state.known) {
    const held = view.get(name) ?? [];
    if (held.length !== values.length || values.some((v) => count(held, v) !== count(values, v)))
      return false;
  }
  for (const [name, held] of view)
    if (held.length > 0 && !state.known.has(name) && !state.unknown.has(name) && !NOT_ATTRIBUTES.has(name))
      return false;
  return true;
}
