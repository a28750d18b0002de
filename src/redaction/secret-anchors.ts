// Finds which known secrets can be present in a text by scanning the text once, whatever the number of
// secrets. Each secret is filed under an anchor: a few consecutive letters or digits of it. A letter or
// digit keeps its identity in every encoding the Redactor matches: it is either itself or an escape that
// reads as it (%hh, %25hh, \uhhhh behind any number of backslashes, &#dd; or &#xhh;). Where such a
// reading starts, exactly one letter or digit can be read, so from each position of the text there is a
// single chain of letters and digits to read, and a secret whose pattern matches anywhere has its anchor
// read along the chain that starts where the anchor's first character is encoded. A secret without a
// letter or digit has no anchor and is always a candidate.

/** Anchors are at most this long: long enough to tell random tokens apart, short enough to fit most. */
const ANCHOR = 8;

const isAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

/** The value of `count` hex digits at `at`, or -1. */
function hexAt(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = 0; i < count; i++) {
    const digit = hexValue(text.charCodeAt(at + i));
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/** The value of the numeric character reference whose digits start at `at` (after `&#`) and where it
 *  ends (after `;`), or undefined. Leading zeros are allowed, as the Redactor's patterns allow them. */
function entityAt(text: string, at: number): { value: number; end: number } | undefined {
  const hex = text[at] === "x" || text[at] === "X";
  const base = hex ? 16 : 10;
  let i = hex ? at + 1 : at;
  while (text.charCodeAt(i) === 48) i++;
  const digitsFrom = i;
  let value = 0;
  for (;;) {
    const digit = hexValue(text.charCodeAt(i));
    if (digit < 0 || digit >= base) break;
    value = value * base + digit;
    i++;
    // Longer than any code point: not a letter or digit, whatever follows.
    if (i - digitsFrom > 8) return undefined;
  }
  if (i === (hex ? at + 1 : at) || text[i] !== ";") return undefined;
  return { value, end: i + 1 };
}

/** For each position, the letter or digit read there (0: none) and where the reading ends. */
export function alnumReadings(text: string): { code: Uint8Array; next: Int32Array } {
  const readings = { code: new Uint8Array(text.length), next: new Int32Array(text.length) };
  readInto(text, readings.code, readings.next);
  return readings;
}

/** Reused by `find`, which reads them before it returns: a run redacts megabytes of bodies, and fresh
 *  arrays for each were a large part of its garbage. A text longer than SCRATCH_MAX gets arrays of its
 *  own, so the process does not keep the largest text's arrays to its end. */
let scratch = { code: new Uint8Array(0), next: new Int32Array(0) };
const SCRATCH_MAX = 1 << 20;

function scratchFor(n: number): { code: Uint8Array; next: Int32Array } {
  if (n > SCRATCH_MAX) return { code: new Uint8Array(n), next: new Int32Array(n) };
  if (scratch.code.length < n) {
    const size = Math.min(SCRATCH_MAX, Math.max(n, scratch.code.length * 2));
    scratch = { code: new Uint8Array(size), next: new Int32Array(size) };
  }
  return scratch;
}

/** alnumReadings into arrays at least as long as the text; every position below its length is written. */
function readInto(text: string, code: Uint8Array, next: Int32Array): void {
  const n = text.length;
  // Backwards, so a run of backslashes knows where it ends (and what follows it) in one pass.
  let runEnd = -1;
  for (let p = n - 1; p >= 0; p--) {
    const c = text.charCodeAt(p);
    // Most characters read as themselves or as nothing: settled without the escapes' tests.
    if (c !== 92) {
      runEnd = -1;
      if (c !== 37 && c !== 38) {
        if (c < 128 && isAlnum(c)) {
          code[p] = c;
          next[p] = p + 1;
        } else code[p] = 0;
        continue;
      }
    } else if (runEnd < 0) runEnd = p + 1;
    let value = -1;
    let end = 0;
    if (isAlnum(c)) {
      value = c;
      end = p + 1;
    } else if (c === 37) {
      // %hh, or %25hh (percent-encoded twice).
      if (text.charCodeAt(p + 1) === 50 && text.charCodeAt(p + 2) === 53 && hexAt(text, p + 3, 2) >= 0) {
        value = hexAt(text, p + 3, 2);
        end = p + 5;
      } else {
        value = hexAt(text, p + 1, 2);
        end = p + 3;
      }
    } else if (c === 92) {
      // \uhhhh behind one or more backslashes (JSON at any depth).
      if (text.charCodeAt(runEnd) === 117) {
        value = hexAt(text, runEnd + 1, 4);
        end = runEnd + 5;
      }
    } else if (c === 38 && text.charCodeAt(p + 1) === 35) {
      const entity = entityAt(text, p + 2);
      if (entity) {
        value = entity.value;
        end = entity.end;
      }
    }
    if (value >= 0 && isAlnum(value)) {
      code[p] = value;
      next[p] = end;
    } else code[p] = 0;
  }
}

/** The longest run of letters and digits of a text ("" when it has none). */
export function longestAlnumRun(value: string): string {
  return (value.match(/[A-Za-z0-9]+/g) ?? []).reduce((a, b) => (b.length > a.length ? b : a), "");
}

/** Each letter or digit's place among the 62 (0..61), by character code; other codes are not read. */
const SLOT = new Uint8Array(128);
for (let c = 0, slot = 0; c < 128; c++) if (isAlnum(c)) SLOT[c] = slot++;

/** Anchors open with this many characters at least, but for short ones (see shortFirst). */
const PREFIX = 3;
/** The place of three letters or digits among all 62 ** 3 triples. */
const triple = (a: number, b: number, c: number) =>
  ((SLOT[a] as number) * 62 + (SLOT[b] as number)) * 62 + (SLOT[c] as number);

/** A node of the anchors' trie: the values whose anchor ends here, and the letters or digits that go on. */
interface AnchorNode<T> {
  values: T[];
  next: Map<number, AnchorNode<T>>;
}

/** Values filed under anchors; `find` answers every value whose anchor can be read in a text. */
export class AnchorIndex<T> {
  /** Values per anchor, to choose where a new secret is filed (add). */
  private readonly byAnchor = new Map<string, T[]>();
  /** The same anchors as a trie of character codes: `find` follows the chain read from each position of a
   *  text down the trie and stops where no anchor goes on, building no string (a string per position and
   *  depth was most of a run's time redacting evidence). */
  private readonly root: AnchorNode<T> = { values: [], next: new Map() };
  private maxLength = 0;
  private readonly unanchored: T[] = [];
  /** The first three characters of every anchor as a bit per triple (62 ** 3 bits, made at the first
   *  add): the walk down the trie starts only where the text reads one of them, so most positions of a
   *  text cost a few array reads (the walk from every letter or digit was most of a run's redaction). */
  private prefixes: Uint32Array | undefined;
  /** The first character of each anchor shorter than PREFIX, by code: the walk starts at those too. */
  private readonly shortFirst = new Uint8Array(128);

  /** Files `value` under `run` (letters and digits it is sure to show) or, if `run` is empty, under no
   *  anchor at all. A long run is cut to the window of ANCHOR characters shared by the fewest values yet,
   *  the last such window, so tokens with a common prefix (a JWT header) are still told apart. */
  add(run: string, value: T): void {
    if (run === "") {
      this.unanchored.push(value);
      return;
    }
    let anchor = run;
    if (run.length > ANCHOR) {
      let fewest = Number.POSITIVE_INFINITY;
      for (let i = run.length - ANCHOR; i >= 0 && fewest > 0; i--) {
        const window = run.slice(i, i + ANCHOR);
        const count = this.byAnchor.get(window)?.length ?? 0;
        if (count < fewest) {
          fewest = count;
          anchor = window;
        }
      }
    }
    const bucket = this.byAnchor.get(anchor);
    if (bucket) bucket.push(value);
    else this.byAnchor.set(anchor, [value]);
    let node = this.root;
    for (let i = 0; i < anchor.length; i++) {
      const c = anchor.charCodeAt(i);
      let child = node.next.get(c);
      if (!child) {
        child = { values: [], next: new Map() };
        node.next.set(c, child);
      }
      node = child;
    }
    node.values.push(value);
    this.maxLength = Math.max(this.maxLength, anchor.length);
    if (anchor.length < PREFIX) this.shortFirst[anchor.charCodeAt(0)] = 1;
    else {
      this.prefixes ??= new Uint32Array(Math.ceil(62 ** PREFIX / 32));
      const t = triple(anchor.charCodeAt(0), anchor.charCodeAt(1), anchor.charCodeAt(2));
      this.prefixes[t >>> 5] = (this.prefixes[t >>> 5] as number) | (1 << (t & 31));
    }
  }

  get empty(): boolean {
    return this.byAnchor.size === 0 && this.unanchored.length === 0;
  }

  /** Every value that may be present in `text`: its anchor is read somewhere, or it has none. */
  find(text: string): Set<T> {
    const found = new Set<T>(this.unanchored);
    if (this.byAnchor.size === 0) return found;
    const n = text.length;
    const { code, next } = scratchFor(n);
    readInto(text, code, next);
    const prefixes = this.prefixes;
    const shortFirst = this.shortFirst;
    for (let p = 0; p < n; p++) {
      const c0 = code[p] as number;
      if (c0 === 0) continue;
      // The trie is walked only from a position whose first three readings open an anchor, or whose first
      // one opens a short anchor: from any other, the walk would find nothing.
      if (shortFirst[c0] === 0) {
        if (prefixes === undefined) continue;
        const p1 = next[p] as number;
        const c1 = p1 < n ? (code[p1] as number) : 0;
        if (c1 === 0) continue;
        const p2 = next[p1] as number;
        const c2 = p2 < n ? (code[p2] as number) : 0;
        if (c2 === 0) continue;
        const t = triple(c0, c1, c2);
        if (((prefixes[t >>> 5] as number) & (1 << (t & 31))) === 0) continue;
      }
      let node: AnchorNode<T> | undefined = this.root;
      let q = p;
      for (let depth = 1; depth <= this.maxLength && q < n; depth++) {
        const c = code[q] ?? 0;
        if (c === 0) break;
        node = node.next.get(c);
        if (node === undefined) break;
        for (const value of node.values) found.add(value);
        q = next[q] ?? n;
      }
    }
    return found;
  }
}
