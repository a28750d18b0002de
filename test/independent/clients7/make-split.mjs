// Splits manifest.json once into split.json: seeded shuffle (mulberry32, seed 43) within each group
// (correct/faulty x language; groups in sorted order, files sorted first); the first half of each group
// (rounded down) tunes, the rest is held out. One generator, seeded once, is consumed group after group.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const manifest = JSON.parse(readFileSync(join(here, 'manifest.json'), 'utf8'));

function mulberry32(a) {
  return function () {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const groups = new Map();
for (const entry of manifest) {
  const key = `${entry.correct ? 'correct' : 'faulty'}-${entry.language}`;
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

writeFileSync(join(here, 'split.json'), JSON.stringify({
  note: 'made once by make-split.mjs: mulberry32 seed 43, shuffle within each correct/faulty x language group (groups sorted, files sorted first), first half (rounded down) tunes, rest held out',
  tuning: tuning.sort(),
  heldOut: heldOut.sort(),
}, null, 2) + '\n');
console.log(`tuning ${tuning.length}, held out ${heldOut.length}`);
