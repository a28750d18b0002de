// A check whose finding carries bytes a hostile target could send (loaded through LCKIT_CHECKS_MODULE).
import type { Check } from "../../src/check/index.ts";
import { fail } from "../../src/check/index.ts";
import { check } from "./fake-target.ts";

export const allChecks: Check[] = [
  check("sample/terminal-bytes", async () =>
    fail("target said \x1b[2J\x07cleared\u202eevil\x00 and \x9b31m in red"),
  ),
];
