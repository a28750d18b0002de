// Replays each surviving Stryker mutant of src/reference/scan-order.ts (scan-order-mutants.json: line, the
// original text, its replacement) against the reference's own view on random record sets, to class it
// (docs/mutation.md, issue 43): "same" on every set is equivalent; a difference that keeps every record once
// and the records of one type in order is where the document is silent; "broken" on records of one type is
// a gap. The record sets go beyond the document's world on purpose: line 36 (`typeof value` -> true) breaks
// only where one field holds objects in some records and scalars in others, which no field of the document
// does (classed "not shown"); rare heap mutants (lines 210, 219) break in a few sets of thousands.
// Not a test (no vitest): `npx tsx test/mutation/scan-order-replay.ts` (about a minute).
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

type Mutant = [line: number, original: string, replacement: string];
const here = new URL(".", import.meta.url).pathname;
const source = readFileSync(join(here, "../../src/reference/scan-order.ts"), "utf8");
const mutants = JSON.parse(readFileSync(join(here, "scan-order-mutants.json"), "utf8")) as Mutant[];
// Whole blocks emptied: named, since their text spans lines.
const BLOCKS: Record<string, [RegExp, string]> = {
  BLOCK_ORDERSOON: [
    /function orderSoon\(base: readonly object\[\], field: string\): void \{[\s\S]*?\n\}\n/,
    "function orderSoon(base: readonly object[], field: string): void {}\n",
  ],
  BLOCK_SETIMMEDIATE: [/setImmediate\(\(\) => \{[\s\S]*?\n {2}\}\);/, "setImmediate(() => {});"],
  BLOCK_299: [
    /if \(field === undefined\) \{[\s\S]*?\n {2}\}\n {2}\/\/ A first/,
    "if (field === undefined) {}\n  // A first",
  ],
  BLOCK_310: [/if \(found\) \{[\s\S]*?\n {2}\}\n {2}return lazy/, "if (found) {}\n  return lazy"],
};

function mutate([line, original, replacement]: Mutant): string {
  const block = BLOCKS[original];
  if (block) return source.replace(block[0], block[1]);
  const offset =
    source
      .split("\n")
      .slice(0, line - 1)
      .join("\n").length + (line > 1 ? 1 : 0);
  const at = source.indexOf(original, offset);
  if (at < 0) throw new Error(`line ${line}: "${original}" not found; refresh scan-order-mutants.json`);
  return source.slice(0, at) + replacement + source.slice(at + original.length);
}

type View = { length: number; at(i: number): object };
type ScanView = (base: readonly object[], order: object) => View;
let seed = 12345;
const rnd = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const ri = (n: number) => Math.floor(rnd() * n);

/** Records { id, f? }: f of one type (numbers, text or booleans, with ties), or of several; some without
 *  f or with an object there. */
function records(mixed: boolean): object[] {
  const n = [0, 1, 3, 20, 60, 150, 400][ri(7)] as number;
  const kind = ri(3);
  const missing = [0, 0, 0.2, 0.7, 1][ri(5)] as number;
  const distinct = [2, 5, 50, 1000][ri(4)] as number;
  return Array.from({ length: n }, (_, id) => {
    if (rnd() < missing) return rnd() < 0.5 ? { id } : { id, f: { nested: 1 } };
    const t = mixed ? ri(3) : kind;
    const v =
      t === 0 ? ri(distinct) : t === 1 ? `v${String(ri(distinct)).padStart(4, "0")}` : ri(distinct) % 2 === 0;
    return { id, f: v };
  });
}

const served = (view: View) =>
  Array.from({ length: view.length }, (_, i) => (view.at(i) as { id?: number })?.id ?? -1);

/** Every record once, and those of one scalar type in order (ties and the rest in any order). */
function legal(base: object[], reversed: boolean, sorted: boolean, want: number[], got: number[]): boolean {
  if ([...want].sort((a, b) => a - b).join() !== [...got].sort((a, b) => a - b).join()) return false;
  if (!sorted) return true;
  const values = got
    .map((id) => (base[id] as { f?: unknown }).f)
    .filter((v) => ["string", "number", "boolean"].includes(typeof v));
  const direction = reversed ? -1 : 1;
  return values.every((v, i) => {
    const u = values[i - 1] as string;
    return (
      i === 0 ||
      typeof v !== typeof u ||
      direction * (u < (v as string) ? -1 : u > (v as string) ? 1 : 0) <= 0
    );
  });
}

const dir = mkdtempSync(join(tmpdir(), "scan-order-replay-"));
writeFileSync(join(dir, "reference.ts"), source);
const reference = (await import(join(dir, "reference.ts"))).scanView as ScanView;
for (const [k, mutant] of mutants.entries()) {
  writeFileSync(join(dir, `m${k}.ts`), mutate(mutant));
  const scanView = (await import(join(dir, `m${k}.ts`))).scanView as ScanView;
  seed = 12345;
  const tally = { sets: 0, differ: 0, broken: 0, brokenMixed: 0 };
  for (let t = 0; t < 1200; t++) {
    const mixed = t % 3 === 2;
    const base = records(mixed);
    const step = [0, 2, 3, 7][ri(4)] as number;
    const order = {
      reversed: rnd() < 0.5,
      firstPage: 2 + ri(30),
      ...(rnd() < 0.8 ? { field: "f" } : {}),
      ...(step ? { keep: (r: object) => (r as { id: number }).id % step === 0 } : {}),
    };
    for (let again = 1 + ri(3); again > 0; again--) {
      const want = served(reference(base, order));
      let got: number[];
      try {
        got = served(scanView(base, order));
      } catch {
        got = [-2];
      }
      tally.sets++;
      if (want.join() !== got.join()) {
        tally.differ++;
        if (!legal(base, order.reversed, "field" in order, want, got))
          tally[mixed ? "brokenMixed" : "broken"]++;
      }
      if (rnd() < 0.5) await new Promise((resolve) => setImmediate(resolve));
    }
  }
  const verdict = tally.differ === 0 ? "same" : tally.broken === 0 ? "silent" : "broken";
  console.log(
    `${mutant[0]}\t${verdict}\t${JSON.stringify(tally)}\t${mutant[1].split("\n")[0]} -> ${mutant[2].split("\n")[0]}`,
  );
}
