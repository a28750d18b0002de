// The testcases of a junit.xml under verification, found by a scan anchored on "<testcase". It must find
// exactly what the regular expression it replaced found (kept here as the oracle) and stay linear where
// that expression was quadratic: a tampered file full of testcases that never close.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { junitTestcases } from "../../src/report/junit-testcases.ts";

const seed = Number(process.env.FC_SEED ?? 20_261_123);

const oracle = /<testcase\s+name="([^"]*)"[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g;

function byOracle(xml: string) {
  return [...xml.matchAll(oracle)].map((m) => ({
    start: m.index ?? -1,
    end: (m.index ?? 0) + m[0].length,
    name: m[1] ?? "",
    body: m[3],
  }));
}

const byScan = (xml: string) => [...junitTestcases(xml)];

/** Texts made of the pieces that matter: tags whole and in parts, quotes, slashes, spaces, words. */
const pieces = fc.constantFrom(
  "<testcase",
  "<testcase ",
  '<testcase name="a">',
  '<testcase name="b"/>',
  '<testcase\n\tname="c" classname="x">',
  "</testcase>",
  "</testcase",
  'name="',
  '"',
  ">",
  "/",
  "/>",
  " ",
  "\n",
  "\u00a0",
  "<failure/>",
  "a",
  "<",
);
const texts = fc.array(pieces, { maxLength: 30 }).map((parts) => parts.join(""));

describe("junit.xml testcases", () => {
  it("are found exactly where the regular expression they replace found them", () => {
    fc.assert(
      fc.property(texts, (xml) => {
        expect(byScan(xml)).toEqual(byOracle(xml));
      }),
      { seed, numRuns: 5000 },
    );
  });

  it.each([
    ["self-closing", '<testcase name="a" time="0"/>', [{ name: "a", body: undefined }]],
    [
      "with a body",
      '<testcase name="b">\n<failure message="x"/>\n</testcase>',
      [{ name: "b", body: '\n<failure message="x"/>\n' }],
    ],
    ["a slash in the name only", '<testcase name="a/">x</testcase>', [{ name: "a/", body: "x" }]],
    ["never closed", '<testcase name="c">', []],
    [
      "one open, then a whole one",
      '<testcase name="d"><testcase name="e"/>',
      [{ name: "e", body: undefined }],
    ],
  ])("%s", (_what, xml, expected) => {
    const shape = (found: { name: string; body: string | undefined }[]) =>
      found.map(({ name, body }) => ({ name, body }));
    expect(shape(byScan(xml))).toEqual(expected);
    expect(shape(byScan(xml))).toEqual(shape(byOracle(xml)));
  });

  it("stay linear in a file of testcases that never close (the old expression took minutes)", () => {
    for (const unit of ['<testcase name="a">', '<testcase name="a" ', '<testcase name="a']) {
      const xml = `${'<testcase name="ok"/>'}${unit.repeat(6_400_000 / unit.length)}`;
      expect(byScan(xml).map((t) => t.name)).toEqual(["ok"]);
    }
  });
});
