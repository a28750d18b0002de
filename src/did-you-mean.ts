// "Did you mean --seed?": the nearest known name to a mistyped flag, command or subcommand.

/** Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`: the optimal string
 *  alignment distance, so that the common slip of two swapped letters costs one edit, not two. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => d[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i < rows; i++) {
    const row = d[i] as number[];
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      row[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** The known name closest to `given`, when it is close enough to be a slip rather than another word:
 *  at most a third of its letters wrong (and at least one allowed), or `given` is the start of exactly one
 *  name (`--fail` for `--fail-on`), or a name is the start of `given`. Case is ignored: `--Seed` suggests
 *  `--seed`. */
export function closest(given: string, known: readonly string[]): string | undefined {
  const wanted = given.toLowerCase();
  const prefixed = known.filter((name) => wanted.length >= 3 && name.toLowerCase().startsWith(wanted));
  if (prefixed.length === 1) return prefixed[0];
  // A name typed out further than it goes (`--report-directory` for `--report-dir`): the longest such name.
  const extended = known
    .filter((name) => name.replace(/^-+/, "").length >= 3 && wanted.startsWith(name.toLowerCase()))
    .sort((a, b) => b.length - a.length);
  if (extended[0] !== undefined) return extended[0];
  const bare = (name: string) => name.replace(/^-+/, "");
  const allowed = Math.max(1, Math.floor(bare(wanted).length / 3));
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(bare(wanted), bare(name.toLowerCase()));
    if (distance <= allowed && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** `unknown option "--sed"; did you mean --seed?` or `unknown option "--x".`: a whole sentence, to be
 *  followed by what is allowed. */
export function unknownName(kind: string, given: string, known: readonly string[], detail = ""): string {
  const name = closest(given, known);
  return `unknown ${kind} "${given}"${detail}${name === undefined ? "." : `; did you mean ${name}?`}`;
}
