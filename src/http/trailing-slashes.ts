// A base address without its trailing slashes, by a loop from the end. The expression it replaces,
// /\/+$/, starts at every slash of a run that is not at the end and reads the rest of the run each time:
// quadratic in a long run of slashes inside a target file's address (160,000 slashes took 10 s).
export function trimTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end -= 1;
  return end === text.length ? text : text.slice(0, end);
}
