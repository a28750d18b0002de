// Escaping for every output format: nothing from a target reaches a report unescaped.
import { escapeControls } from "../control-characters.ts";

/** Replaces what XML 1.0 forbids even when escaped (control characters other than tab, line feed and
 *  carriage return, lone surrogates, U+FFFE and U+FFFF) with U+FFFD, so bytes a target garbled cannot break
 *  a report. */
export function xmlSafe(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += text.slice(i, i + 2);
        i++;
      } else out += "\uFFFD";
      continue;
    }
    const bad =
      (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || (c >= 0xdc00 && c <= 0xdfff) || c >= 0xfffe;
    out += bad ? "\uFFFD" : text.charAt(i);
  }
  return out;
}

/** Text and attribute values of markup: the five characters escaped, the apostrophe as the language
 *  spells it (HTML 4 has no &apos;). */
function escapeMarkup(text: string, apostrophe: string): string {
  return xmlSafe(text)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, apostrophe);
}

export const escapeXml = (text: string): string => escapeMarkup(text, "&apos;");

export const escapeHtml = (text: string): string => escapeMarkup(text, "&#39;");

/** Text for a terminal line: every control character (ESC, BEL, NUL, C1, bidi overrides) written as a
 *  visible escape, so bytes a target sent cannot move the cursor, clear the screen or reorder the line. */
export const terminalSafe = escapeControls;

/** Inline Markdown text (also inside a table cell): HTML is neutralised, Markdown syntax and pipes escaped,
 *  line breaks flattened so a cell stays one row. */
export function escapeMarkdown(text: string): string {
  // One pass, so an entity made here is never escaped again; quotes are harmless in Markdown text.
  return xmlSafe(text)
    .replace(/[\\`*_[\]#|~!<>&]/g, (c) =>
      c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === "&" ? "&amp;" : `\\${c}`,
    )
    .replace(/\r?\n/g, " ");
}

/** Code inside a Markdown table cell: an HTML <code> element, so backticks and pipes in it are harmless. */
export function markdownCode(text: string): string {
  return `<code>${escapeHtml(text).replace(/\|/g, "&#124;").replace(/\r?\n/g, " ")}</code>`;
}
