// Splits the consumers of manifest.json ONCE into tuning and held-out halves: a seeded shuffle
// (seed 43) within each group (correct/faulty x language); the first half of each group, rounded
// down, tunes. Run: node make-split.mjs (writes split.json beside it).
import { readFileSync, writeFileSync } from "node:fs";

const here = new URL(".", import.meta.url);
const manifest = JSON.parse(readFileSync(new URL("manifest.json", here), "utf8"));

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

const random = mulberry32(43);
const groups = new Map();
for (const entry of manifest) {
  const key = `${entry.correct ? "correct" : "faulty"}/${entry.language}`;
  if (!groups.has(key)) groups.set(key, []);
  groups.get(key).push(entry.file);
}
const tuning = [];
const heldOut = [];
for (const key of [...groups.keys()].sort()) {
  const files = [...groups.get(key)].sort();
  for (let i = files.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [files[i], files[j]] = [files[j], files[i]];
  }
  const half = Math.floor(files.length / 2);
  tuning.push(...files.slice(0, half));
  heldOut.push(...files.slice(half));
}
const split = {
  note: "Split once by make-split.mjs: seeded shuffle (seed 43, mulberry32) within each group (correct/faulty x language), groups in sorted order; the first half of each group (rounded down) tunes. Never tune on heldOut.",
  tuning,
  heldOut,
};
writeFileSync(new URL("split.json", here), `${JSON.stringify(split, null, 2)}\n`);
console.log(JSON.stringify(split));
