// Splits manifest.json ONCE into split.json: a seeded shuffle (mulberry32, seed 43) within each group
// (correct/faulty x language; groups in sorted order, files sorted first); the first half of each
// group (rounded down) tunes, the rest is held out.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const manifest = JSON.parse(readFileSync(join(here, 'manifest.json'), 'utf8'));

function mulberry32(a) {
  return function () {
    a |= 0; a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rand = mulberry32(43);
const groups = {};
for (const e of manifest) {
  const key = `${e.correct ? 'correct' : 'faulty'}-${e.language}`;
  (groups[key] ||= []).push(e.file);
}
const tuning = [];
const heldOut = [];
for (const key of Object.keys(groups).sort()) {
  const files = [...groups[key]].sort();
  for (let i = files.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [files[i], files[j]] = [files[j], files[i]];
  }
  const half = Math.floor(files.length / 2);
  tuning.push(...files.slice(0, half));
  heldOut.push(...files.slice(half));
}
const split = {
  note: 'Made once by make-split.mjs from manifest.json: mulberry32 seed 43, shuffle within each group (correct/faulty x language, groups sorted, files sorted first), first half of each group (rounded down) tunes, the rest is held out.',
  tuning: tuning.sort(),
  heldOut: heldOut.sort(),
};
writeFileSync(join(here, 'split.json'), JSON.stringify(split, null, 2) + '\n');
console.log(JSON.stringify(split));
