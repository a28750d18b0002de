// The testcases of a junit.xml, for verifying a report folder, which may come from anyone. A scan anchored
// on "<testcase" that finds what /<testcase\s+name="([^"]*)"[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g found,
// in one pass: that expression read to the end of the file from every testcase left open, quadratic in a
// tampered file (a 1.6 MB file of open testcases held verify for about 20 s).

export interface JunitTestcase {
  /** Where "<testcase" starts and where the element ends (after "/>" or "</testcase>"). */
  start: number;
  end: number;
  /** The name attribute as written, still XML-escaped. */
  name: string;
  /** What is between the start and end tags; undefined for a self-closing testcase. */
  body: string | undefined;
}

const OPEN = "<testcase";
const CLOSE = "</testcase>";
const NAME = 'name="';
const whitespace = /\s/;

/** indexOf that remembers its last answer for each needle: asked again from a position at or before that
 *  answer, it answers without reading, so each needle reads the text once. */
function nextIn(text: string): (needle: string, from: number) => number {
  const last = new Map<string, { from: number; at: number }>();
  return (needle, from) => {
    const known = last.get(needle);
    if (known !== undefined && known.from <= from && (known.at === -1 || from <= known.at)) return known.at;
    const at = text.indexOf(needle, from);
    last.set(needle, { from, at });
    return at;
  };
}

export function* junitTestcases(xml: string): Generator<JunitTestcase> {
  const next = nextIn(xml);
  let from = 0;
  for (let start = xml.indexOf(OPEN); start !== -1; start = xml.indexOf(OPEN, from)) {
    const found = testcaseAt(xml, start, next);
    if (found === undefined) from = start + 1;
    else {
      yield found;
      from = found.end;
    }
  }
}

function testcaseAt(
  xml: string,
  start: number,
  next: (needle: string, from: number) => number,
): JunitTestcase | undefined {
  let at = start + OPEN.length;
  while (at < xml.length && whitespace.test(xml.charAt(at))) at += 1;
  if (at === start + OPEN.length || !xml.startsWith(NAME, at)) return undefined;
  const nameStart = at + NAME.length;
  const nameEnd = next('"', nameStart);
  if (nameEnd === -1) return undefined;
  const name = xml.slice(nameStart, nameEnd);
  // The attributes after the name reach the first ">": a "/" just before it (after the name's quote)
  // closes the element; otherwise its body runs to the first "</testcase>" after it.
  const tagEnd = next(">", nameEnd + 1);
  if (tagEnd === -1) return undefined;
  if (tagEnd - 1 > nameEnd && xml.charAt(tagEnd - 1) === "/")
    return { start, end: tagEnd + 1, name, body: undefined };
  const close = next(CLOSE, tagEnd + 1);
  if (close === -1) return undefined;
  return { start, end: close + CLOSE.length, name, body: xml.slice(tagEnd + 1, close) };
}
