// Check selection by id: an exact id, or a glob where `*` is any run of characters and `?` one character.

export function idPattern(pattern: string): RegExp {
  const body = pattern
    .split("")
    .map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.+^${}()|[\]\\/-]/g, "\\$&")))
    .join("");
  return new RegExp(`^${body}$`);
}

export function matchesId(id: string, pattern: string): boolean {
  return id === pattern || idPattern(pattern).test(id);
}
