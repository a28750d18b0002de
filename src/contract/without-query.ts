// A path without its query and fragment, as /[?#].*$/ cut it: from the first "?" or "#" that has no line
// break after it. That expression tried every "?" and "#" and read to the next line break from each,
// quadratic in a path from a pact file full of them before a line break (40,000 characters 4.7 s); this
// finds the last line break once and the first "?" or "#" after it.
export function withoutQuery(path: string): string {
  let lineStart = 0;
  // What "." does not match, so what /[?#].*$/ could not read past to the end.
  for (const lineBreak of ["\n", "\r", "\u2028", "\u2029"])
    lineStart = Math.max(lineStart, path.lastIndexOf(lineBreak) + 1);
  const cut = path.slice(lineStart).search(/[?#]/);
  return cut === -1 ? path : path.slice(0, lineStart + cut);
}
