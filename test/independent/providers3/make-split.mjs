#!/usr/bin/env node
// Writes split.json once, before anything is scored: within each group (correct, choices, sequence faults,
// single-request faults) the case names in file order are shuffled by Fisher-Yates driven by mulberry32
// seeded with 43, and the first half of each group (rounded down) tunes; the rest is held out.
import { readFileSync, writeFileSync } from "node:fs";

const read = (file) => JSON.parse(readFileSync(new URL(file, import.meta.url), "utf8"));
const faults = read("./node/faults.json");
const choices = read("./node/choices.json");

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
const shuffled = (names) => {
  const out = [...names];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
};
const groups = [
  ["correct-node"],
  choices.map((c) => `choice-${c.implementation}-${c.name}`),
  faults.filter((f) => f.sequence).map((f) => f.name),
  faults.filter((f) => !f.sequence).map((f) => f.name),
];
const tuning = [];
const heldOut = [];
for (const group of groups) {
  const order = shuffled(group);
  const half = Math.floor(order.length / 2);
  tuning.push(...order.slice(0, half));
  heldOut.push(...order.slice(half));
}
const note =
  "Split once, before any scoring, by make-split.mjs: within each group (correct; choices; sequence faults; " +
  "single-request faults) the names are shuffled (Fisher-Yates, mulberry32 seed 43) and the first half of " +
  "each group, rounded down, tunes; the rest is held out and must not be tuned on.";
writeFileSync(new URL("./split.json", import.meta.url), `${JSON.stringify({ note, tuning, heldOut }, null, 2)}\n`);
