// Splits this batch once into a tuning half and a held-out half: a seeded shuffle (seed 43)
// within each group (correct/faulty x language); the first half of each group (rounded down)
// tunes, the rest is held out. Run: node make-split.mjs  (rewrites split.json)
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const SEED = 43;

// mulberry32: small seeded generator, enough for a reproducible shuffle
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

function shuffle(items, random) {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const manifest = JSON.parse(readFileSync(join(here, "manifest.json"), "utf8"));
const random = mulberry32(SEED);
const tuning = [];
const heldOut = [];
for (const correct of [true, false]) {
  for (const language of ["node", "python"]) {
    const group = manifest
      .filter((e) => e.correct === correct && e.language === language)
      .map((e) => e.file)
      .sort();
    const shuffled = shuffle(group, random);
    const half = Math.floor(shuffled.length / 2);
    tuning.push(...shuffled.slice(0, half));
    heldOut.push(...shuffled.slice(half));
  }
}
const split = {
  note: `Split once, before any scoring, by make-split.mjs: a seeded shuffle (seed ${SEED}, mulberry32) within each group (correct/faulty x node/python, files sorted first); the first half of each group (rounded down) is for tuning, the rest is held out.`,
  tuning: tuning.sort(),
  heldOut: heldOut.sort(),
};
writeFileSync(join(here, "split.json"), `${JSON.stringify(split, null, 2)}\n`);
console.log(JSON.stringify(split, null, 2));
