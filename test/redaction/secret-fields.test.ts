// Secret JSON fields at any escaping depth, found by a scan anchored on the field names. It must find
// exactly what the single regular expression it replaced found (kept here as the oracle), and stay linear
// where that expression was quadratic: a long run of backslashes in a text that names a field.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { REDACTED, Redactor, secretFieldValues } from "../../src/redaction/redact.ts";
import { secretFields, secretFieldsIn } from "../../src/redaction/secret-fields.ts";

const seed = Number(process.env.FC_SEED ?? 20_261_123);

/** The expression the scan replaced: group 2 is the run of backslashes before each quote. */
const oracle = new RegExp(
  `((\\\\*)"(?:${secretFields.join("|")})\\2"\\s*:\\s*\\2")((?:[^"\\\\]|\\\\[\\s\\S])*?)(\\2")`,
  "g",
);

function byOracle(text: string) {
  return [...text.matchAll(oracle)].map((m) => ({
    start: m.index ?? -1,
    value: m[3] ?? "",
    end: (m.index ?? 0) + m[0].length,
  }));
}

function byScan(text: string) {
  return [...secretFieldsIn(text)].map((f) => ({
    start: f.start,
    value: text.slice(f.valueStart, f.valueEnd),
    end: f.end,
  }));
}

/** Texts made of the pieces that matter: quotes, backslash runs, colons, spaces, names, other words. */
const pieces = fc.constantFrom(
  '"',
  "\\",
  "\\\\",
  '\\"',
  ":",
  " ",
  "\n",
  ",",
  "{",
  "}",
  "a",
  "xyz",
  "password",
  '"password"',
  '"access_token"',
  '\\"client_secret\\"',
  '"Authorization":"',
  "\u00a0",
);
const texts = fc.array(pieces, { maxLength: 40 }).map((parts) => parts.join(""));

describe("secret JSON fields", () => {
  it("are found exactly where the regular expression they replace found them", () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(byScan(text)).toEqual(byOracle(text));
      }),
      { seed, numRuns: 3000 },
    );
  });

  it.each([
    ["plain", '{"password":"hunter22","x":1}', ["hunter22"]],
    ["inside a JSON string", '{"body":"{\\"access_token\\":\\"tok-1\\"}"}', ["tok-1"]],
    ["two levels deep", '\\\\\\"clientSecret\\\\\\" : \\\\\\"s3\\\\\\"', ["s3"]],
    ["spaces around the colon", '"refresh_token" :\t "r1"', ["r1"]],
    ["an unescaped quote ends nothing", '"password":"a"b"', ["a"]],
    [
      "a field named inside another's value",
      '"password":"x \\"id_token\\":\\"y\\" z"',
      ['x \\"id_token\\":\\"y\\" z'],
    ],
    ["the name alone", '"password" and password', []],
    ["too few backslashes before the name", '"password\\":\\"v\\"', []],
  ])("%s", (_name, text, values) => {
    expect(byScan(text).map((f) => f.value)).toEqual(values);
    expect(byOracle(text).map((f) => f.value)).toEqual(values);
  });

  it("stay linear in a long run of backslashes beside a field's name (the old expression took minutes)", () => {
    const run = "\\".repeat(1_000_000);
    const around = `{"password":"hunter22"} ${run}"password"${run}`;
    expect(byScan(around).map((f) => f.value)).toEqual(["hunter22"]);
    const redacted = new Redactor().text(around);
    expect(redacted).not.toContain("hunter22");
    expect(redacted.length).toBe(around.length - "hunter22".length + REDACTED.length);
    // A value that is itself a long run: read as escape pairs, up to the quote after it.
    const inside = `{"client_secret":"${run}"}`;
    expect(secretFieldValues(inside)[0]).toBe(run);
    expect(new Redactor().text(inside)).toBe(`{"client_secret":"${REDACTED}"}`);
  });
});
