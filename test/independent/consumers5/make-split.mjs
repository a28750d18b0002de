// Splits manifest.json ONCE into split.json: within each group (correct/faulty x language, groups in
// sorted order, files sorted first) a seeded shuffle (mulberry32, seed 43); the first half of each
// group (rounded down) tunes, the rest is held out.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const manifest = JSON.parse(fs.readFileSync(path.join(here, 'manifest.json'), 'utf8'));

function mulberry32(a) {
  return function () {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rand = mulberry32(43);
const groups = new Map();
for (const e of manifest) {
  const key = `${e.correct ? 'correct' : 'faulty'}-${e.language}`;
  if (!groups.has(key)) groups.set(key, []);
  groups.get(key).push(e.file);
}
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
  note: 'Made once by make-split.mjs: mulberry32 seed 43, shuffle within each group (correct/faulty x language, groups sorted, files sorted first); first half (rounded down) of each group tunes, the rest is held out.',
  tuning: tuning.sort(),
  heldOut: heldOut.sort(),
};
fs.writeFileSync(path.join(here, 'split.json'), JSON.stringify(split, null, 2) + '\n');
console.log(JSON.stringify(split));
