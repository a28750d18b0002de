// Bytes of input that must not reach a terminal or a log as they are: C0 and C1 control characters, DEL,
// the Unicode line separators and the bidirectional overrides would move the cursor, clear the screen,
// ring the bell or reorder text. Target answers, event messages and a client's requests all pass here
// before they are printed.

// Built from a string: a control-character class is the point here, not a typo.
const controlClass = "[\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]";
const controls = new RegExp(controlClass, "g");
const anyControl = new RegExp(controlClass);

/** True when the text holds a character escapeControls would rewrite. */
export function hasControl(text: string): boolean {
  return anyControl.test(text);
}

/** The text with every control character written as a visible escape (\x1b, \u202e). */
export function escapeControls(text: string): string {
  return text.replace(controls, (char) => {
    const code = char.charCodeAt(0);
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, "0")}`
      : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}
