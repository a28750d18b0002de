// Splits manifest.json once into split.json: a seeded shuffle (mulberry32, seed 43) within each group
// (correct/faulty x language; groups in sorted order, files sorted first); the first half of each group
// (rounded down) tunes, the rest is held out. Run once, after the manifest is final.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const manifest = JSON.parse(readFileSync(join(here, "manifest.json"), "utf8"));

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const groups = new Map();
for (const entry of manifest) {
  const key = `${entry.correct ? "correct" : "faulty"}-${entry.language}`;
  if (!groups.has(key)) groups.set(key, []);
  groups.get(key).push(entry.file);
}

const rand = mulberry32(43);
const tuning = [];
const heldOut = [];
for (const key of [...groups.keys()].sort()) {
  const files = [...groups.get(key)].sort();
  for (let i = files.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [files[i], files[j]] = [files[j], files[i]];
  }
  const half = Math.floor(files.length / 2);
  tuning.push(...files.slice(0, half));
  heldOut.push(...files.slice(half));
}

const split = {
  note: "Made once by make-split.mjs: mulberry32 seed 43, shuffle within each group (correct/faulty x language, groups sorted, files sorted first); first half (rounded down) of each group tunes, the rest is held out.",
  tuning: tuning.sort(),
  heldOut: heldOut.sort(),
};
writeFileSync(join(here, "split.json"), JSON.stringify(split, null, 2) + "\n");
console.log(`tuning ${split.tuning.length}, held out ${split.heldOut.length}`);
