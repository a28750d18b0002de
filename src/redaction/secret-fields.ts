// Secret fields in JSON at any escaping depth: `"password":"v"`, `\"password\":\"v\"` (JSON inside a JSON
// string), `\\\"password\\\":...` and so on. Found by a scan anchored on the field names, in time linear
// in the text: a single regular expression for the same (a run of backslashes captured before each quote
// and required again around the value) tried every position of a long run of backslashes and took time
// quadratic in it, so that a hostile body of a few hundred kilobytes could hold the runner for minutes.

/** Field names whose values are secrets wherever they appear in evidence. */
export const secretFields = [
  "access_token",
  "refresh_token",
  "id_token",
  "client_secret",
  "clientSecret",
  "password",
  "accessToken",
  "refreshToken",
  "authorization",
  "Authorization",
] as const;

const fieldAlternation = secretFields.join("|");

/** A quote and a secret field's name, where the name is followed by backslashes (any) and a quote. */
const quotedName = new RegExp(`"(?:${fieldAlternation})(?=\\\\*")`, "g");

const backslash = 92;
const quote = 34;
const colon = 58;
const whitespace = /\s/;

/** One secret field found: the value is text[valueStart, valueEnd), written at `escapes` backslashes. */
export interface SecretField {
  /** Where the field's opening quote (with its backslashes) starts. */
  start: number;
  valueStart: number;
  valueEnd: number;
  /** Backslashes before each quote of the field: 0 in plain JSON, 1 inside a JSON string, ... */
  escapes: number;
  /** Just past the value's closing quote. */
  end: number;
}

function backslashesBefore(text: string, at: number, floor: number): number {
  let count = 0;
  while (at - count - 1 >= floor && text.charCodeAt(at - count - 1) === backslash) count += 1;
  return count;
}

function backslashesFrom(text: string, at: number): number {
  let count = 0;
  while (text.charCodeAt(at + count) === backslash) count += 1;
  return count;
}

function skipWhitespace(text: string, at: number): number {
  let index = at;
  while (index < text.length && whitespace.test(text.charAt(index))) index += 1;
  return index;
}

/**
 * The secret fields of a text, left to right and not overlapping: `\k"name\k" : \k"value\k"` where \k is
 * the same run of k backslashes at every quote, and the value ends at the first \k" that is not part of
 * an escape pair (an unescaped quote before it means this is no such field).
 */
export function* secretFieldsIn(text: string): Generator<SecretField> {
  let from = 0;
  quotedName.lastIndex = 0;
  for (let found = quotedName.exec(text); found !== null; found = quotedName.exec(text)) {
    const open = found.index;
    const nameEnd = open + found[0].length;
    if (open < from) continue;
    // The escaping is read at the name's closing quote; the opening quote needs at least as many.
    const escapes = backslashesFrom(text, nameEnd);
    if (backslashesBefore(text, open, from) < escapes) continue;
    let at = skipWhitespace(text, nameEnd + escapes + 1);
    if (text.charCodeAt(at) !== colon) continue;
    at = skipWhitespace(text, at + 1);
    if (backslashesFrom(text, at) !== escapes || text.charCodeAt(at + escapes) !== quote) continue;
    const valueStart = at + escapes + 1;
    const valueEnd = closingQuote(text, valueStart, escapes);
    if (valueEnd === -1) continue;
    const end = valueEnd + escapes + 1;
    yield { start: open - escapes, valueStart, valueEnd, escapes, end };
    from = end;
    quotedName.lastIndex = end;
  }
}

/**
 * Where the value that starts at `at` ends: the first run of exactly `escapes` backslashes and a quote
 * reached by whole characters and escape pairs (a backslash and the character after it); -1 when an
 * unescaped quote or the end of the text comes first. A run of backslashes is measured once, so a long
 * run costs its length, not its length squared.
 */
function closingQuote(text: string, at: number, escapes: number): number {
  let index = at;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === backslash) {
      const run = backslashesFrom(text, index);
      // Escape pairs start at index, index + 2, ...: the closing run begins at one of them or not at all.
      if (
        escapes > 0 &&
        text.charCodeAt(index + run) === quote &&
        run >= escapes &&
        (run - escapes) % 2 === 0
      )
        return index + run - escapes;
      // An odd run's last backslash escapes the character after the run.
      index += run % 2 === 0 ? run : run + 1;
    } else if (code === quote) return escapes === 0 ? index : -1;
    else index += 1;
  }
  return -1;
}
