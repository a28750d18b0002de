// How a finding quotes a value it came across: the envelope readers of the transport and the rules both
// say "what came" the same way, so it sits below both.

/** Shortens a value for a message: what came, in at most about 80 characters. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
