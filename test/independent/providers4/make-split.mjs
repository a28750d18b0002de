// Splits this provider batch ONCE into split.json { note, tuning, heldOut }.
// Groups: choices (choice-python-<name>), sequence faults, single-request faults.
// Within each group: names sorted, then shuffled (Fisher-Yates, mulberry32 seeded 43, a fresh
// generator per group, groups taken in that order); the first half (rounded down) tunes, the rest
// is held out. correct-python always tunes.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const faults = JSON.parse(readFileSync(join(here, 'python', 'faults.json'), 'utf8'));
const choices = JSON.parse(readFileSync(join(here, 'python', 'choices.json'), 'utf8'));

function mulberry32(a) {
  return function () {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle(names) {
  const arr = [...names].sort();
  const rnd = mulberry32(43);
  for (let i = arr.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [arr[i], arr[j]] = [arr[j], arr[i]];
  }
  return arr;
}

const groups = [
  choices.map((c) => `choice-python-${c.name}`),
  faults.filter((f) => f.sequence).map((f) => f.name),
  faults.filter((f) => !f.sequence).map((f) => f.name),
];
const tuning = ['correct-python'];
const heldOut = [];
for (const g of groups) {
  const s = shuffle(g);
  const half = Math.floor(s.length / 2);
  tuning.push(...s.slice(0, half));
  heldOut.push(...s.slice(half));
}
const out = {
  note:
    'Provider batch 4 (python) split, made once by make-split.mjs: groups choices / sequence faults / ' +
    'single-request faults; names sorted, Fisher-Yates shuffled with mulberry32(43) (fresh per group), first ' +
    'half (rounded down) of each group tunes, the rest is held out; correct-python always tunes.',
  tuning,
  heldOut,
};
writeFileSync(join(here, 'split.json'), `${JSON.stringify(out, null, 2)}\n`);
console.log(`tuning ${tuning.length}, heldOut ${heldOut.length}`);
