// The Redactor once a run has learned thousands of tokens: it only matches the secrets a text may hold
// (secret-anchors.ts), and must still catch every form of every one of them. Each case hides one secret
// among 2,000 others, in the encodings a target may echo it in.
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formEncode } from "../../src/client/token.ts";
import { REDACTED, Redactor } from "../../src/redaction/redact.ts";
import { AnchorIndex, alnumReadings } from "../../src/redaction/secret-anchors.ts";
import { secretForms } from "../hostile/secret-forms.ts";

/** Tokens shaped like the reference's (24 bytes, base64url), reproducible. */
const tokens = Array.from({ length: 2000 }, (_, i) =>
  createHash("sha256").update(`token ${i}`).digest().subarray(0, 24).toString("base64url"),
);
const clientId = "viewer-client";
const clientSecret = "s3cr+t %:val/ue";

const crowded = (() => {
  const r = new Redactor();
  r.addCredential(clientId, clientSecret);
  for (const t of tokens) r.addSecret(t);
  return r;
})();

/** Texts a secret's form may sit in: a filtered URL (full of %hh), JSON, a form body, an excerpt. */
const contexts = (form: string) => [
  form,
  `http://h/lookup/acme/Country?filter=equals%28code%2C%27${form}%27%29&limit=20`,
  `{"error":"unknown token ${form}","x":"%41"}`,
  `a=%7B${form}%7D&b=1`,
  `x${form}y`,
];

describe("Redactor with 2,000 known tokens", () => {
  it("knows them all", () => {
    expect(crowded.size).toBe(2003);
  });

  it.each([
    ["the first", 0],
    ["one in the middle", 1000],
    ["the last", 1999],
  ])("redacts every form of %s token, in any surrounding text", (_name, index) => {
    const token = tokens[index] ?? "";
    const forms = secretForms(undefined, token);
    const twice = [...token].map((c) => `%25${c.charCodeAt(0).toString(16)}`).join("");
    for (const form of [...forms, Buffer.from(token).toString("base64"), twice])
      for (const text of contexts(form)) {
        const out = crowded.text(text);
        expect(out, text).toContain(REDACTED);
        for (const other of forms) expect(out, text).not.toContain(other);
      }
  });

  it("redacts a token escaped letter by letter (%hh, %25hh, \\u, &#..;) among the others", () => {
    const token = tokens[777] ?? "";
    const encoders = [
      (c: string) => `%${c.charCodeAt(0).toString(16)}`,
      (c: string) => `%25${c.charCodeAt(0).toString(16).toUpperCase()}`,
      (c: string) => `\\\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
      (c: string) => `&#${c.charCodeAt(0)};`,
      (c: string) => `&#x00${c.charCodeAt(0).toString(16)};`,
    ];
    for (const encode of encoders) {
      const all = [...token].map(encode).join("");
      const mixed = [...token].map((c, i) => (i % 2 === 0 ? encode(c) : c)).join("");
      for (const form of [all, mixed]) expect(crowded.text(`echo ${form} end`)).toBe(`echo ${REDACTED} end`);
    }
  });

  it("redacts every form of the client credential, its Basic value included", () => {
    const forms = secretForms(clientId, clientSecret);
    for (const form of forms)
      for (const text of contexts(form)) {
        const out = crowded.text(text);
        for (const other of forms) expect(out, text).not.toContain(other);
      }
  });

  it("redacts a token inside a Base64 blob at each alignment, standard or URL-safe", () => {
    const token = tokens[1234] ?? "";
    for (const before of ["", "a", "ab"])
      for (const encoding of ["base64", "base64url"] as const) {
        const blob = Buffer.from(`${before}${token}!`).toString(encoding);
        expect(crowded.text(`{"wrapped":"${blob}"}`)).toBe(`{"wrapped":"${REDACTED}"}`);
      }
  });

  it("redacts the start of a token an excerpt cut, and Basic or Bearer credentials anywhere", () => {
    const token = tokens[42] ?? "";
    expect(crowded.text(`rejected ${token.slice(0, 10)}...`)).toBe(`rejected ${REDACTED}...`);
    expect(crowded.text(`"${encodeURIComponent(token.slice(0, 9))}…`)).toBe(`"${REDACTED}…`);
    expect(crowded.text("seen: Bearer unknownToken.abc, then")).toBe(`seen: Bearer ${REDACTED}, then`);
    expect(crowded.text("h=Basic%20dW5rbm93bjpzZWNyZXQ%3D")).toBe(`h=Basic%20${REDACTED}%3D`);
    expect(crowded.headers({ "x-session": "anything", "x-echo": `got ${token}` })).toEqual({
      "x-session": REDACTED,
      "x-echo": `got ${REDACTED}`,
    });
  });

  it("redacts a secret whose raw form holds %hh or &#..; (read as escapes too)", () => {
    const r = new Redactor();
    for (const t of tokens.slice(0, 200)) r.addSecret(t);
    for (const secret of ["ab%41cd%2F", "x&#65;yz", "\\u0041bc"]) {
      r.addSecret(secret);
      for (const form of secretForms(undefined, secret)) {
        const out = r.text(`<${form}>`);
        expect(out, form).toContain(REDACTED);
        expect(out, form).not.toContain(secret);
        expect(out, form).not.toContain(form);
      }
    }
  });

  // About 10 s of CPU (1,200 tokens in one text): a loaded machine stretches it past the 60 s default.
  it("redacts a text holding every token (one pattern per token would not compile as one expression)", () => {
    const many = tokens.slice(0, 1200);
    const all = many.map((t, i) => (i % 2 === 0 ? t : encodeURIComponent(`${t}/`))).join(" ");
    const out = crowded.text(all);
    for (const t of many) expect(out).not.toContain(t);
    expect(out.split(REDACTED)).toHaveLength(many.length + 1);
    const cut = `${many
      .slice(0, 20)
      .map((t) => t.slice(0, 8))
      .join("... ")}...`;
    const cutOut = crowded.text(cut);
    for (const t of many.slice(0, 20)) expect(cutOut).not.toContain(t.slice(0, 8));
  }, 180_000);

  it("leaves texts without secrets as they were", () => {
    for (const text of [
      "http://h/lookup/acme/Country?filter=equals%28code%2C%27HN%27%29",
      '{"values":[{"code":"DE","label":"100% &#38; more \\u00e9"}]}',
      "and so on...",
    ])
      expect(crowded.text(text)).toBe(text);
  });
});

// ------------------------------------------------------------------ a random secret in a random form

const secretChar = fc.constantFrom(..."abcXYZ0189", ..." +%:/\\\"'&<>=-_.~", "é", "€", "😀");
/** A string's JSON escaping, without the quotes: once per level of JSON inside a JSON string. */
const jsonEscape = (s: string, depth = 1): string =>
  depth === 0 ? s : jsonEscape(JSON.stringify(s).slice(1, -1), depth - 1);
/** One character as an encoder may write it (the forms the Redactor promises to read). */
const charEncoders: ((c: string) => string)[] = [
  (c) => c,
  (c) => encodeURIComponent(c),
  (c) => encodeURIComponent(c).replace(/%/g, "%25"),
  (c) => formEncode(c),
  (c) => jsonEscape(c),
  (c) => jsonEscape(c, 2),
  (c) =>
    [...Array(c.length).keys()].map((i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`).join(""),
  (c) => `&#${c.codePointAt(0)};`,
  (c) => `&#X${(c.codePointAt(0) ?? 0).toString(16).toUpperCase()};`,
];
/** The whole secret in one form. */
const wholeEncoders: ((s: string) => string)[] = [
  (s) => s,
  encodeURIComponent,
  formEncode,
  (s) => encodeURIComponent(encodeURIComponent(s)),
  (s) => jsonEscape(s),
  (s) => jsonEscape(s, 3),
  (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;"),
];

describe("a random secret among 2,000 tokens (property)", () => {
  const surrounding = fc.string({ maxLength: 12 });

  it("never survives, in one form or mixed letter by letter", () => {
    fc.assert(
      fc.property(
        fc.array(secretChar, { minLength: 4, maxLength: 24 }),
        fc.oneof(
          fc.nat({ max: wholeEncoders.length - 1 }).map((i) => ({ whole: i })),
          fc
            .array(fc.nat({ max: charEncoders.length - 1 }), { minLength: 24, maxLength: 24 })
            .map((each) => ({
              each,
            })),
        ),
        surrounding,
        surrounding,
        (chars, how, before, after) => {
          const secret = chars.join("");
          const form =
            "whole" in how
              ? (wholeEncoders[how.whole] ?? String)(secret)
              : chars.map((c, i) => (charEncoders[how.each[i] ?? 0] ?? String)(c)).join("");
          crowded.addSecret(secret);
          // A separator keeps the random surroundings from being read as part of the form (a trailing
          // backslash would escape its first character).
          const out = crowded.text(`${before} ${form} ${after}`);
          expect(out).not.toContain(form);
        },
      ),
      { numRuns: 150, seed: 16 },
    );
  });

  it("never survives inside Base64, at any alignment and in either alphabet", () => {
    fc.assert(
      fc.property(
        fc.array(secretChar, { minLength: 12, maxLength: 24 }),
        fc.string({ maxLength: 5 }),
        fc.string({ maxLength: 5 }),
        fc.boolean(),
        (chars, before, after, urlSafe) => {
          const secret = chars.join("");
          crowded.addSecret(secret);
          const blob = Buffer.from(`${before}${secret}${after}`).toString(urlSafe ? "base64url" : "base64");
          // Secrets of earlier runs stay known and may redact more of the text: the blob must be gone.
          expect(crowded.text(`got ${blob} end`)).not.toContain(blob);
        },
      ),
      { numRuns: 60, seed: 16 },
    );
  });
});

describe("anchors", () => {
  it("reads one letter or digit where an escape starts, and where it ends", () => {
    const text = "a%41%2542\\\\u0043&#68;&#x45;%2F";
    const { code, next } = alnumReadings(text);
    const read = (p: number) => [String.fromCharCode(code[p] ?? 0), next[p]];
    expect(read(0)).toEqual(["a", 1]);
    expect(read(1)).toEqual(["A", 4]);
    expect(read(4)).toEqual(["B", 9]);
    expect(read(9)).toEqual(["C", 16]);
    expect(read(10)).toEqual(["C", 16]);
    expect(read(16)).toEqual(["D", 21]);
    expect(read(21)).toEqual(["E", 27]);
    expect(code[27]).toBe(0); // %2F is "/": no letter or digit
    // Leading zeros, as many as an encoder likes; a reference without its ";" reads as nothing.
    expect(String.fromCharCode(alnumReadings("&#x000000000000041;").code[0] ?? 0)).toBe("A");
    expect(String.fromCharCode(alnumReadings("&#0000000000000000066;").code[0] ?? 0)).toBe("B");
    expect(alnumReadings("&#65 ").code[0]).toBe(0);
  });

  it("files tokens sharing a prefix under different anchors, so each finds only itself", () => {
    const index = new AnchorIndex<string>();
    const jwts = ["eyJhbGciOiJIUzI1NiJ9xQ1", "eyJhbGciOiJIUzI1NiJ9zW2", "eyJhbGciOiJIUzI1NiJ9kP3"];
    for (const jwt of jwts) index.add(jwt, jwt);
    expect([...index.find(`x ${jwts[1]} y`)]).toEqual([jwts[1]]);
    expect([...index.find("nothing here")]).toEqual([]);
  });
});
